"""The LLM-backed agent: the reference agent's memory and trust components, a model deciding.

The model scores a new experience's importance, decides whether trust in an informant moves
after an outcome it observed itself, chooses what to tell a partner (memories by id, with
modality, stated source and its own words), what to do at an errand among the actions and
places offered, and how to answer a probe. Everything else — memory writes, retrieval, trust
arithmetic, the daily routine — is the reference components'. Prompts carry state as words.

A probe is a read: `answer` retrieves without strengthening and keeps no record of having been
asked, so the agent's state is unchanged (its call still appears in `llm_calls`).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from harness import memory as mem
from harness.contract import Answer, Claim, Intent, Meaning, Observation, Request
from harness.planning import Slot, daily_schedule
from harness.trust import Relations, judge, trust_in
from scenarios import day_of

from . import phrasing, prompts, words
from .accounting import Accounted
from .calls import ChatCall, Purpose
from .structured import Schema, as_json, ask

NEVER = 1 << 40
SET_OFF_BEFORE = 120  # minutes before a request's deadline the agent sets off
STAY = "stay"
CONFIDENCE = {"certain": 0.9, "likely": 0.65, "rumor": 0.35}


class LLMAgent:
    def __init__(
        self,
        spec: Any,
        policy: Any,
        draws: Any,
        start: int,
        end: int,
        tick_minutes: int,
        *,
        model: Accounted,
        places: tuple[str, ...],
        max_tokens: int = 256,
        parse_retries: int = 2,
    ) -> None:
        self.name, self.spec, self.policy, self.draws = spec.id, spec, policy, draws
        self.model, self.places = model, places
        self.max_tokens, self.parse_retries = max_tokens, parse_retries
        self.schedule: list[Slot] = daily_schedule(spec, draws, start, end, tick_minutes)
        self.errands = {e.id: e for e in spec.errands}
        self.memory = mem.Memory(self.name, int(policy["memory.capacity"]))
        self.relations = Relations()
        self.meanings: dict[str, Meaning] = {}
        self.requests: dict[str, Request] = {}
        self.steps: dict[str, int] = {}  # request id → 0 fetch, 1 deliver, 2 done
        self.told: list[str] = []  # "partner|proposition" already told
        self.met: list[str] = []  # people talked with
        self.talked: dict[str, int] = {}  # day → claims spoken
        self.location: str = spec.home
        self.busy: str | None = None
        self.cursor = 0
        self.next_plan_id = 1
        self._diag: list[tuple[str, dict[str, Any]]] = []
        self.spoken: list[str] = []  # until Claim carries text (issue 13): the words, in order

    # --- the model ---------------------------------------------------------------------------
    def _ask(
        self,
        purpose: Purpose,
        family: str,
        schema: Schema,
        minute: int,
        event_id: int,
        key: tuple[Any, ...],
        **values: str,
    ) -> Any | None:
        template = prompts.load(family, str(self.policy[f"prompt.{family}"]))
        seed = int(self.draws.uniform("llm", self.name, str(purpose), minute, *key) * 2**31)
        call = ChatCall(
            purpose,
            template.messages(name=self.name, time=words.clock(minute), **values),
            float(self.policy["llm.temperature"]),
            self.max_tokens,
            seed,
            str(purpose),
            as_json(schema),
            self.name,
            minute,
            event_id,
        )
        return ask(self.model, call, self.parse_retries)

    def _recall(
        self, query: mem.Query, now: int, pool: list[mem.Experience], strengthen: bool
    ) -> list[mem.Experience]:
        """Retrieval over `pool` (the reference component's); used memories grow stronger,
        except in a probe."""
        view = mem.Memory(
            self.name,
            self.memory.capacity,
            {e.id: e for e in pool},
            {e.id: self.memory.strength[e.id] for e in pool},
        )
        recalled = [r.experience for r in mem.retrieve(view, query, now, self.policy, self.draws)]
        if strengthen and recalled:
            mem.strengthen(self.memory, recalled, now)
        return recalled

    def _memories(self, recalled: list[mem.Experience], now: int) -> str:
        return phrasing.memory_lines(
            recalled,
            self.meanings,
            now,
            self.policy,
            int(self.policy["llm.context_tokens"]),
            self.people(),
        )

    def people(self) -> set[str]:
        """Everyone this agent has heard of: itself, informants and stated origins."""
        return {self.name, *self.met} | {
            n for e in self.memory.experiences.values() for n in (e.told_by, e.origin) if n
        }

    # --- the protocol ---------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        if obs.kind in ("notice", "claim") and obs.meaning is not None and obs.value:
            self._take_in(obs)
        elif obs.kind == "arrival":
            self.location = obs.subject
        elif obs.kind == "chat" and obs.subject not in self.met:
            self.met.append(obs.subject)
        elif obs.kind == "action_result":
            goal, self.busy = self.busy, None
            if goal and goal.startswith("request:"):
                rid = goal.split(":", 1)[1]
                self.steps[rid] = self.steps[rid] + 1 if obs.ok else 2
        elif obs.kind == "request" and obs.request is not None:
            self.requests[obs.request.request_id] = obs.request
            self.steps[obs.request.request_id] = 0

    def _take_in(self, obs: Observation) -> None:
        meaning = obs.meaning
        assert meaning is not None
        self.meanings.setdefault(meaning.proposition, meaning)
        what = phrasing.proposition_words(meaning, obs.value, self.people() | {obs.speaker or ""})
        told = obs.speaker is not None
        event = f"{obs.speaker} told you that {what}." if told else f"You found that {what}."
        planned = {e.target for e in self.errands.values()} | {
            v for e in self.errands.values() for v in e.via
        }
        appraisal = (
            "it touches a place you plan to go, so it seems important"
            if meaning.subject in planned
            else "it is news about the village, so it seems notable"
            if told
            else "it is something you saw, so it seems notable"
        )
        reply = self._ask(
            Purpose.IMPORTANCE,
            "importance",
            phrasing.importance_schema(),
            obs.minute,
            obs.event_id,
            (obs.event_id, meaning.proposition),
            event=event,
            appraisal=appraisal,
        )
        importance = words.IMPORTANCE[reply["importance"]] if reply else 0.5
        keep = bool(self.policy["memory.keep_source"])
        origin = None
        if told:
            origin = obs.speaker if obs.stated_source in (None, "self") else obs.stated_source
        trust = trust_in(
            self.relations, obs.speaker, "reports_facts", float(self.policy["trust.prior"])
        )
        confidence = CONFIDENCE.get(obs.modality or "certain", 0.65)
        if told:
            confidence = min(
                confidence * (0.5 + trust), float(self.policy["belief.second_hand_cap"])
            )
        exp, evicted = mem.write(
            self.memory,
            obs.minute,
            obs.event_id,
            channel=obs.channel,
            subject=meaning.subject,
            importance=importance,
            proposition=meaning.proposition,
            value=obs.value,
            modality=obs.modality or "certain",
            told_by=obs.speaker if keep else None,
            origin=origin if keep else None,
            confidence=round(1.0 if not told else confidence, 6),
            privacy=obs.privacy,
            audience=obs.audience,
        )
        for e in [exp, *evicted]:
            self._diag.append(
                (
                    "memory_ops",
                    {
                        "minute": obs.minute,
                        "event_id": obs.event_id,
                        "agent": self.name,
                        "op": "write" if e is exp else "evict",
                        "experience_id": e.id,
                        "experience_owner": e.owner,
                        "subject": e.subject,
                        "importance": e.importance,
                        "size": len(self.memory.experiences),
                        "capacity": self.memory.capacity,
                    },
                )
            )
        if not told:
            self._judge_informants(meaning, obs.value or "", obs.minute, obs.event_id)

    def _judge_informants(self, meaning: Meaning, value: str, minute: int, eid: int) -> None:
        """Seeing for oneself is the outcome that may move trust in who told us; the model
        says which way, the trust component does the arithmetic, once per informant."""
        told = sorted(
            {
                (e.told_by, e.value)
                for e in self.memory.experiences.values()
                if e.proposition == meaning.proposition and e.told_by is not None
            }
        )
        for informant, said in told:
            if f"{informant}|{meaning.proposition}" in self.relations.judged:
                continue
            template = prompts.load("trust", str(self.policy["prompt.trust"]))
            outcome = template.piece("right" if said == value else "wrong")
            reply = self._ask(
                Purpose.TRUST,
                "trust",
                phrasing.trust_schema(),
                minute,
                eid,
                (informant, meaning.proposition),
                informant=informant,
                claim=phrasing.proposition_words(meaning, said, self.people()),
                outcome=outcome,
            )
            move = reply["move"] if reply else "same"
            if move == "same":
                self.relations.judged.append(f"{informant}|{meaning.proposition}")
                continue
            new = judge(
                self.relations,
                informant,
                meaning.proposition,
                "reports_facts",
                move == "up",
                float(self.policy["trust.prior"]),
                float(self.policy["trust.learning_rate"]),
            )
            if new is not None:
                self._diag.append(
                    (
                        "trust",
                        {
                            "minute": minute,
                            "event_id": eid,
                            "agent": self.name,
                            "other": informant,
                            "domain": "reports_facts",
                            "value": new,
                            "reason": f"model: {move} after {meaning.proposition}",
                        },
                    )
                )

    def decide(self, now: int) -> list[Intent]:
        intents: list[Intent] = []
        while self.cursor < len(self.schedule) and self.schedule[self.cursor].minute <= now:
            slot = self.schedule[self.cursor]
            self.cursor += 1
            if self.busy is not None:
                continue
            if slot.kind == "move":
                intents.append(Intent("move", slot.place or self.spec.home))
            elif slot.kind == "errand":
                intent = self._errand(self.errands[slot.errand or ""], slot.day, now)
                if intent is not None:
                    intents.append(intent)
                    self.busy = intent.goal
        if self.busy is None:
            intents.extend(self._request_step(now))
        return intents

    def _errand(self, errand: Any, day: int, now: int) -> Intent | None:
        related = errand.via if self.policy["retrieval.plan_context"] == "route" else ()
        template = prompts.load("act", str(self.policy["prompt.act"]))
        recalled: list[mem.Experience] = []
        if "memories" in template.placeholders():
            pool = [e for e in self.memory.experiences.values() if e.proposition is not None]
            recalled = self._recall(mem.Query(errand.target, "plan", related), now, pool, True)
        plan = f"{errand.action} at the {errand.target}"
        if errand.via:
            plan += ", by way of the " + " and the ".join(errand.via)
        actions = [errand.action, STAY]
        places = [errand.target, *(p for p in self.places if p != errand.target)]
        reply = self._ask(
            Purpose.ACT,
            "act",
            phrasing.act_schema(actions, places),
            now,
            0,
            (errand.id, day),
            plan=plan,
            place=self.location,
            memories=self._memories(recalled, now),
            actions=", ".join(actions),
            places=", ".join(places),
        )
        action, target = (
            (reply["action"], reply["place"]) if reply else (errand.action, errand.target)
        )
        plan_id = self.next_plan_id
        self.next_plan_id += 1
        self._diag.append(
            (
                "plans",
                {
                    "minute": now,
                    "event_id": 0,
                    "agent": self.name,
                    "plan_id": plan_id,
                    "goal": f"{errand.id}@{day}",
                    "day": day,
                    "action": action,
                    "target": target,
                    "reason": "model" if reply else "fallback",
                },
            )
        )
        if action == STAY:
            return None
        return Intent("act", target, action, plan_id, f"{errand.id}@{day}")

    def _request_step(self, now: int) -> list[Intent]:
        for rid in sorted(self.requests):
            r, step = self.requests[rid], self.steps[rid]
            if step >= 2 or now < r.deadline - SET_OFF_BEFORE:
                continue
            self.busy = f"request:{rid}"
            if step == 0:
                return [Intent("act", r.source, "pick_up", None, self.busy, rid, r.item)]
            return [Intent("act", r.place, r.action, None, self.busy, rid, r.item)]
        return []

    def wake_at(self, now: int) -> int:
        if self.busy is not None:
            return NEVER
        upcoming = [self.schedule[self.cursor].minute] if self.cursor < len(self.schedule) else []
        upcoming += [
            r.deadline - SET_OFF_BEFORE for rid, r in self.requests.items() if self.steps[rid] < 2
        ]
        return max(now, min(upcoming, default=NEVER))

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        day = str(day_of(now))
        room = int(self.policy["motivation.talk_budget"]) - self.talked.get(day, 0)
        if room <= 0 or self.draws.uniform("share", self.name, partner, now) >= float(
            self.policy["sharing.proactive"]
        ):
            return []
        private_ok = not self.policy["sharing.respect_privacy"]
        pool = [
            e
            for e in self.memory.experiences.values()
            if e.proposition is not None
            and e.told_by != partner
            and f"{partner}|{e.proposition}" not in self.told
            and (e.privacy != "private" or private_ok or partner in e.audience)
        ]
        recalled = self._recall(mem.Query(partner, "share"), now, pool, True) if pool else []
        firsts: dict[str, mem.Experience] = {}
        for e in recalled:  # one memory per proposition: the one most present
            firsts.setdefault(e.proposition or "", e)
        recalled = list(firsts.values())
        if not recalled:
            return []
        by_id = {phrasing.memory_id(e): e for e in recalled}
        names = {n for e in recalled for n in (e.told_by, e.origin) if n}
        schema = phrasing.share_schema(
            list(by_id),
            phrasing.sources_offered(names),
            min(room, int(self.policy["sharing.claims_per_chat"])),
        )
        reply = self._ask(
            Purpose.SHARE,
            "share",
            schema,
            now,
            0,
            (partner,),
            partner=partner,
            place=self.location,
            memories=self._memories(recalled, now),
        )
        claims: list[Claim] = []
        for item in (reply or {}).get("claims", []):
            exp = by_id[item["memory"]]
            if f"{partner}|{exp.proposition}" in self.told:
                continue  # the model named one proposition twice
            self.told.append(f"{partner}|{exp.proposition}")
            source = None if item["source"] == phrasing.NO_SOURCE else item["source"]
            claims.append(
                Claim(
                    self.meanings[exp.proposition],
                    exp.value or "true",
                    item["modality"],
                    source,
                    exp.privacy,
                    exp.audience,
                )
            )
            self.spoken.append(item["words"])
        self.talked[day] = self.talked.get(day, 0) + len(claims)
        return claims

    def answer(self, proposition: str, now: int) -> Answer:
        meaning = self.meanings.get(proposition)
        pool = [e for e in self.memory.experiences.values() if e.proposition == proposition]
        if meaning is None or not pool:
            return Answer(None, None, None)
        recalled = self._recall(mem.Query(meaning.subject, "probe"), now, pool, False)
        if not recalled:
            return Answer(None, None, None)
        by_id = {phrasing.memory_id(e): e for e in recalled}
        names = {n for e in recalled for n in (e.told_by, e.origin) if n}
        what = phrasing.proposition_words(meaning, None, self.people())
        question = f"What do you know about whether {what}?"
        reply = self._ask(
            Purpose.ANSWER,
            "answer",
            phrasing.answer_schema(list(by_id), phrasing.sources_offered(names)),
            now,
            0,
            (proposition,),
            question=question,
            memories=self._memories(recalled, now),
        )
        if not reply or reply["memory"] == phrasing.NO_SOURCE:
            return Answer(None, None, None)
        exp = by_id[reply["memory"]]
        source = None if reply["source"] == phrasing.NO_SOURCE else reply["source"]
        return Answer(exp.value, reply["modality"], source)

    # --- state ------------------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_json(),
            "relations": self.relations.to_json(),
            "meanings": {k: asdict(m) for k, m in self.meanings.items()},
            "requests": {k: asdict(r) for k, r in self.requests.items()},
            "steps": dict(self.steps),
            "told": list(self.told),
            "met": list(self.met),
            "talked": dict(self.talked),
            "location": self.location,
            "busy": self.busy,
            "cursor": self.cursor,
            "next_plan_id": self.next_plan_id,
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.memory = mem.Memory.from_json(state["memory"])
        self.relations = Relations.from_json(state["relations"])
        self.meanings = {k: Meaning(**v) for k, v in state["meanings"].items()}
        self.requests = {k: Request(**v) for k, v in state["requests"].items()}
        self.steps, self.told = dict(state["steps"]), list(state["told"])
        self.met = list(state["met"])
        self.talked, self.location, self.busy = (
            dict(state["talked"]),
            state["location"],
            state["busy"],
        )
        self.cursor, self.next_plan_id = state["cursor"], state["next_plan_id"]

    def drain_diagnostics(self) -> list[tuple[str, dict[str, Any]]]:
        out, self._diag = self._diag, []
        return out + [("llm_calls", row.columns()) for row in self.model.drain(self.name)]
