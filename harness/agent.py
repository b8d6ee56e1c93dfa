"""The reference cognitive agent: memory, beliefs, trust, conversation and plans (DESIGN §2).

It meets the harness only through the `Agent` protocol. Its own state changes happen in
`observe` and `decide`, which the tick loop calls at tick boundaries; `answer` is a read, so a
probe leaves `state_hash(agent)` unchanged. All state round-trips through plain JSON.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace
from typing import Any

from scenarios import AgentSpec, day_of

from . import autonomy, life
from . import memory as mem
from .beliefs import MODALITY_WEIGHT, Belief, fold
from .contract import Answer, Claim, Intent, Meaning, Observation, Request
from .conversation import news_for, phrase
from .planning import Plan, Slot, blocking, daily_schedule, hurrying, request_plan, request_step
from .trust import Relations, judge, met, trust_in

NEVER = 1 << 40  # wake_at when only an observation can give the agent something to do
SUMMARY_AGE = 24 * 60  # experiences older than a day are summarised at night
FIRST_HAND = ("seen", "heard", "read")


def state_hash(agent: Any) -> str:
    """A digest of any agent's whole state (`get_state`): what a probe must leave unchanged."""
    text = json.dumps(agent.get_state(), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class ReferenceAgent:
    def __init__(
        self, spec: AgentSpec, policy: Any, draws: Any, start: int, end: int, tick_minutes: int
    ) -> None:
        self.name, self.spec, self.policy, self.draws = spec.id, spec, policy, draws
        self.schedule: list[Slot] = daily_schedule(spec, draws, start, end, tick_minutes)
        self.errands = {e.id: e for e in spec.errands}
        self.memory = mem.Memory(self.name, int(policy["memory.capacity"]))
        self.beliefs: dict[str, Belief] = {}
        self.meanings: dict[str, Meaning] = {}
        self.relations = Relations()
        self.plans: dict[str, Plan] = {}
        self.requests: dict[str, Request] = {}
        self.told: dict[str, list[str]] = {}  # partner → propositions told
        self.group_news: list[str] = []
        self.location: str = spec.home
        self.busy: str | None = None  # the goal whose action is under way
        self.fallback: Intent | None = None
        self.cursor = 0
        self.next_plan_id = 1
        self.life = life.initial_state(spec.persona, start)
        self.motivation = life.Motivation(int(policy["motivation.talk_budget"]), day_of(start))
        self.mind = (
            autonomy.initial_mind({f"{s.holder}|{s.resource}": s.count for s in spec.knows_stock})
            if spec.autonomy == "needs"
            else None
        )
        self.attended: tuple[int, int] = (start, 0)  # (minute, observations taken in)
        self._diag: list[tuple[str, dict[str, Any]]] = []

    # --- the protocol ----------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        self._live_until(obs.minute)
        if obs.kind in ("arrival", "chat") and not self._attend(obs.minute):
            return  # high arousal narrows attention: everyday sights pass unnoticed
        if obs.kind in ("notice", "claim"):
            self._take_in(obs)
            self._appraise(obs)
        elif obs.kind == "arrival":
            self.location = obs.subject
            self._remember(obs, channel="seen", subject=obs.subject, importance=0.1)
        elif obs.kind == "chat":
            met(self.relations, obs.subject)
            self._remember(obs, channel="heard", subject=obs.subject, importance=0.1)
        elif obs.kind == "action_result":
            self._appraise(obs)
            if self.mind is not None:
                self._autonomous_result(obs)
            else:
                self._action_result(obs)
        elif obs.kind == "sound" and self.mind is not None:
            self.mind = autonomy.on_sound(self.mind, obs.subject, obs.minute)
        elif obs.kind == "request" and obs.request is not None:
            self._request(obs)

    def decide(self, now: int) -> list[Intent]:
        self._live_until(now)
        if self.mind is not None:
            return self._autonomous(now)
        intents: list[Intent] = []
        if self.fallback is not None and self.busy is None:
            intents.append(self.fallback)
            self.busy, self.fallback = self.fallback.goal, None
        while self.cursor < len(self.schedule) and self.schedule[self.cursor].minute <= now:
            slot = self.schedule[self.cursor]
            self.cursor += 1
            intent = self._slot(slot, now)
            if intent is not None and self.busy is None:
                intents.append(intent)
                self.busy = intent.goal if intent.kind == "act" else None
        if self.busy is None:
            intents.extend(self._request_steps(now))
        return intents

    def wake_at(self, now: int) -> int:
        """The next scheduled slot or request step; never before an action's result is in."""
        if self.busy is not None:
            return NEVER
        if self.mind is not None:  # on its own: ask again when it wakes, or right away
            return max(now, self.mind.asleep_until or now)
        if self.fallback is not None:
            return now
        upcoming = [self.schedule[self.cursor].minute] if self.cursor < len(self.schedule) else []
        upcoming += [
            p.start
            for g, p in self.plans.items()
            if g.startswith("request:") and p.step < 2 and p.start is not None
        ]
        return max(now, min(upcoming, default=NEVER))

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        """Fresh, salient news for this partner, within the sharing and privacy rules.

        Wanting to speak is not speaking: news held back (by chance or by the day's talk
        budget) leaves a hold that fades over ~20 minutes and makes the next chance likelier;
        the agent listens instead meanwhile. Holds replace each other, never add up.
        """
        group_mate = bool(set(self.spec.groups) & set(partner_groups))
        urgent = set(self.group_news) if group_mate else set()
        candidates = news_for(
            self.beliefs,
            self.memory.experiences,
            partner,
            self.told.get(partner, []),
            urgent,
            bool(self.policy["sharing.respect_privacy"]),
        )
        if not candidates:
            return []
        urge = float(self.policy["sharing.proactive"]) + life.hold_strength(self.motivation, now)
        if not urgent and self.draws.uniform("share", self.name, partner, now) >= urge:
            self.motivation = life.hold(self.motivation, "listen", now)
            return []
        claims = []
        for b, privacy, audience in candidates[: int(self.policy["sharing.claims_per_chat"])]:
            self.motivation, allowed = life.spend(self.motivation, now)
            if not allowed:  # the day's budget is spent: hold the rest back
                self.motivation = life.hold(self.motivation, "listen", now)
                break
            claims.append(phrase(b, self.meanings[b.proposition], privacy, audience, self.policy))
            self.told.setdefault(partner, []).append(b.proposition)
        return claims

    def answer(self, proposition: str, now: int) -> Answer:
        b = self.beliefs.get(proposition)
        if b is None or b.status == "forgotten":
            return Answer(None, None, None)
        source = "self" if b.first_hand else b.told_by
        return Answer(b.value, b.modality, source)

    def get_state(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_json(),
            "beliefs": {k: b.to_json() for k, b in self.beliefs.items()},
            "meanings": {k: asdict(m) for k, m in self.meanings.items()},
            "relations": self.relations.to_json(),
            "plans": {k: asdict(p) for k, p in self.plans.items()},
            "requests": {k: asdict(r) for k, r in self.requests.items()},
            "told": {k: list(v) for k, v in self.told.items()},
            "motivation": self.motivation.to_json(),
            "group_news": list(self.group_news),
            "location": self.location,
            "busy": self.busy,
            "fallback": None if self.fallback is None else asdict(self.fallback),
            "cursor": self.cursor,
            "next_plan_id": self.next_plan_id,
            "life": self.life.to_json(),
            "mind": None if self.mind is None else self.mind.to_json(),
            "attended": list(self.attended),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.memory = mem.Memory.from_json(state["memory"])
        self.beliefs = {k: Belief.from_json(v) for k, v in state["beliefs"].items()}
        self.meanings = {k: Meaning(**v) for k, v in state["meanings"].items()}
        self.relations = Relations.from_json(state["relations"])
        self.plans = {k: Plan(**{**v, "via": tuple(v["via"])}) for k, v in state["plans"].items()}
        self.requests = {k: Request(**v) for k, v in state["requests"].items()}
        self.told = {k: list(v) for k, v in state["told"].items()}
        self.motivation = life.Motivation.from_json(state["motivation"])
        self.group_news = list(state["group_news"])
        self.location, self.busy = state["location"], state["busy"]
        self.fallback = None if state["fallback"] is None else Intent(**state["fallback"])
        self.cursor, self.next_plan_id = state["cursor"], state["next_plan_id"]
        self.life = life.LifeState.from_json(state["life"])
        self.mind = None if state["mind"] is None else autonomy.Mind.from_json(state["mind"])
        self.attended = (state["attended"][0], state["attended"][1])

    def drain_diagnostics(self) -> list[tuple[str, dict[str, Any]]]:
        out, self._diag = self._diag, []
        return out

    # --- memory and belief -------------------------------------------------------------------
    def _remember(self, obs: Observation, **fields: Any) -> mem.Experience:
        if not self.policy["memory.keep_source"]:
            fields = {**fields, "told_by": None, "origin": None}
        exp, evicted = mem.write(self.memory, obs.minute, obs.event_id, **fields)
        self._op(obs.minute, obs.event_id, "write", exp)
        self._evicted(obs.minute, obs.event_id, evicted)
        return exp

    def _evicted(self, minute: int, eid: int, evicted: list[mem.Experience]) -> None:
        if not evicted:
            return
        gone = {e.id for e in evicted}
        for e in evicted:
            self._op(minute, eid, "evict", e)
        for prop, b in sorted(self.beliefs.items()):
            if b.status == "current" and b.support and set(b.support) <= gone:
                self._set_belief(replace(b, status="forgotten"), minute, eid)

    def _op(self, minute: int, eid: int, op: str, exp: mem.Experience | None, **extra: Any) -> None:
        row = {
            "minute": minute,
            "event_id": eid,
            "agent": self.name,
            "op": op,
            "experience_id": None if exp is None else exp.id,
            "experience_owner": None if exp is None else exp.owner,
            "subject": None if exp is None else exp.subject,
            "importance": None if exp is None else exp.importance,
            "size": len(self.memory.experiences),
            "capacity": self.memory.capacity,
        }
        self._diag.append(("memory_ops", {**row, **extra}))

    def _set_belief(self, b: Belief, minute: int, eid: int) -> None:
        self.beliefs[b.proposition] = b
        self._diag.append(
            (
                "beliefs",
                {
                    "minute": minute,
                    "event_id": eid,
                    "agent": self.name,
                    "proposition": b.proposition,
                    "value": b.value,
                    "confidence": b.confidence,
                    "modality": b.modality,
                    "origin": b.origin,
                    "told_by": b.told_by,
                    "status": b.status,
                },
            )
        )

    def _importance(self, obs: Observation) -> float:
        """Rule-based appraisal: first-hand news matters more, and news touching one's plans."""
        base = (
            0.7
            if obs.channel in FIRST_HAND
            else 0.3 + 0.3 * MODALITY_WEIGHT.get(obs.modality or "rumor", 0.4)
        )
        planned = {p.target for p in self.plans.values()} | {
            v for p in self.plans.values() for v in p.via
        }
        if obs.meaning is not None and obs.meaning.subject in planned:
            base += 0.2
        if obs.privacy == "private":
            base += 0.1
        return round(min(base, 1.0), 6)

    def _take_in(self, obs: Observation) -> None:
        meaning = obs.meaning
        assert meaning is not None and obs.value is not None
        self.meanings.setdefault(meaning.proposition, meaning)
        origin = None
        if obs.speaker is not None:
            origin = obs.speaker if obs.stated_source in (None, "self") else obs.stated_source
        exp = self._remember(
            obs,
            channel=obs.channel,
            subject=meaning.subject,
            importance=self._importance(obs),
            proposition=meaning.proposition,
            value=obs.value,
            modality=obs.modality or "certain",
            told_by=obs.speaker,
            origin=origin,
            privacy=obs.privacy,
            audience=obs.audience,
        )
        if obs.channel in FIRST_HAND:
            self._judge_informants(meaning.proposition, obs.value, obs.minute, obs.event_id)
        elif obs.privacy == "private":
            self._judge_secret_keepers(obs)
        old = self.beliefs.get(meaning.proposition)
        trust = trust_in(
            self.relations, exp.told_by, "reports_facts", float(self.policy["trust.prior"])
        )
        new = fold(old, exp, meaning, trust, self.policy)
        if new is None:
            return
        newer = next(
            (
                b
                for b in self.beliefs.values()
                if b.supersedes == meaning.proposition and b.status == "current"
            ),
            None,
        )
        if newer is not None:  # already known to be replaced
            new = replace(new, status="superseded", superseded_by=newer.proposition)
        self._set_belief(new, obs.minute, obs.event_id)
        older = self.beliefs.get(meaning.supersedes or "")
        if older is not None and older.status == "current":
            self._set_belief(
                replace(older, status="superseded", superseded_by=meaning.proposition),
                obs.minute,
                obs.event_id,
            )
        self._replan_for(new, obs.minute, obs.event_id)

    def _judge_informants(self, prop: str, value: str, minute: int, eid: int) -> None:
        """Seeing for oneself is the independent outcome that moves trust in who told us."""
        told = sorted(
            {
                (e.told_by, e.value)
                for e in self.memory.experiences.values()
                if e.proposition == prop and e.told_by is not None and e.is_evidence
            }
        )
        for informant, said in told:
            self._judge(informant, prop, "reports_facts", said == value, minute, eid)

    def _judge_secret_keepers(self, obs: Observation) -> None:
        """Hearing our secret from an outsider means someone we told did not keep it."""
        prop = obs.meaning.proposition if obs.meaning else ""
        if obs.speaker in obs.audience:
            return
        for partner in sorted(self.told):
            if prop in self.told[partner] and partner != obs.speaker:
                self._judge(partner, prop, "keeps_secrets", False, obs.minute, obs.event_id)

    def _judge(self, other: str, prop: str, domain: str, kept: bool, minute: int, eid: int) -> None:
        new = judge(
            self.relations,
            other,
            f"{domain}:{prop}",
            domain,
            kept,
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
                        "other": other,
                        "domain": domain,
                        "value": new,
                        "reason": f"{'kept' if kept else 'broke'} word on {prop}",
                    },
                )
            )

    # --- plans -------------------------------------------------------------------------------
    def _new_plan(self, plan: Plan, minute: int, eid: int) -> Plan:
        plan = replace(plan, plan_id=self.next_plan_id)
        self.next_plan_id += 1
        self.plans[plan.goal] = plan
        self._diag.append(
            (
                "plans",
                {
                    "minute": minute,
                    "event_id": eid,
                    "agent": self.name,
                    "plan_id": plan.plan_id,
                    "goal": plan.goal,
                    "day": plan.day,
                    "action": plan.action,
                    "target": plan.target,
                    "reason": plan.reason,
                },
            )
        )
        return plan

    def _plan_errand(self, errand: Any, day: int, now: int) -> None:
        """Tomorrow's plan sees only what retrieval returns for the plan's context."""
        related = errand.via if self.policy["retrieval.plan_context"] == "route" else ()
        recalled = self._recall(mem.Query(errand.target, "plan", related), now)
        in_mind = [
            self.beliefs[r.experience.proposition]
            for r in recalled
            if r.experience.proposition in self.beliefs
        ]
        trigger = float(self.policy["replan.trigger_confidence"])
        target, reason = errand.target, "routine"
        blocker = blocking(in_mind, (errand.target, *errand.via), day, trigger)
        if errand.alternatives and blocker is not None:
            target, reason = errand.alternatives[0], "retrieved"
            self._tell_group(errand, blocker)
        via = errand.via if target == errand.target else ()
        self._new_plan(
            Plan(f"{errand.id}@{day}", day, errand.action, target, 0, reason, via), now, 0
        )

    def _recall(self, query: mem.Query, now: int) -> list[mem.Recall]:
        """Retrieval as the agent uses it: traced (an empty recall too) and strengthening what
        came to mind."""
        recalled = mem.retrieve(
            self.memory, query, now, self.policy, self.draws, life.mood(self.life)
        )
        if not recalled:
            self._op(
                now,
                0,
                "retrieve",
                None,
                purpose=query.purpose,
                rank=None,
                relevant=None,
                subject=query.subject,
            )
        for rank, r in enumerate(recalled):
            self._op(
                now,
                0,
                "retrieve",
                r.experience,
                purpose=query.purpose,
                rank=rank,
                relevant=r.relevant,
            )
        mem.strengthen(self.memory, [r.experience for r in recalled], now)
        return recalled

    def _leads(self, resource: str, now: int) -> tuple[str, ...]:
        """Where memory says a missing material is kept: only what retrieval brings to mind
        counts, so a note read hours ago helps only if it comes back when it is needed."""
        places = []
        for r in self._recall(mem.Query(resource, "search"), now):
            b = self.beliefs.get(r.experience.proposition or "")
            if (
                b is not None
                and b.status == "current"
                and b.subject == resource
                and b.predicate == "kept_in"
                and b.value == "true"
                and b.object not in places
            ):
                places.append(b.object)
        return tuple(places)

    def _replan_for(self, belief: Belief, minute: int, eid: int) -> None:
        """A new belief that blocks a plan above the trigger changes it at once; one that the
        source of a pending request closes early makes the agent set off now."""
        trigger = float(self.policy["replan.trigger_confidence"])
        for goal, plan in sorted(self.plans.items()):
            if (
                goal.startswith("request:")
                and plan.step == 0
                and plan.source
                and plan.start is not None
                and plan.start > minute
                and hurrying([belief], plan.source, plan.day, trigger)
            ):
                self._new_plan(replace(plan, start=minute, reason="hurried"), minute, eid)
                continue
            errand = self.errands.get(goal.split("@")[0])
            if errand is None or plan.reason == "fallback" or goal == self.busy:
                continue
            if blocking([belief], (plan.target, *plan.via), plan.day, trigger) is None:
                continue
            alternative = next((a for a in errand.alternatives if a != plan.target), None)
            if alternative is None:
                continue
            self._new_plan(
                replace(plan, target=alternative, via=(), reason="replanned"), minute, eid
            )
            self._tell_group(errand, belief)

    def _tell_group(self, errand: Any, reason: Belief) -> None:
        """By policy, a changed group plan is news for the group at the next meeting."""
        if (
            self.policy["replan.notify_group"]
            and errand.group
            and reason.proposition not in self.group_news
        ):
            self.group_news.append(reason.proposition)

    def _slot(self, slot: Slot, now: int) -> Intent | None:
        if slot.kind == "plan":
            if slot.day > day_of(now):  # the evening plan for tomorrow: consolidate first
                self._nightly(now)
            for errand in self.spec.errands:
                if slot.day in errand.days:
                    self._plan_errand(errand, slot.day, now)
            return None
        if slot.kind == "errand":
            plan = self.plans.get(f"{slot.errand}@{slot.day}")
            if plan is None:  # no evening before (the first day): the routine plan
                errand = self.errands[slot.errand or ""]
                plan = self._new_plan(
                    Plan(
                        f"{errand.id}@{slot.day}",
                        slot.day,
                        errand.action,
                        errand.target,
                        0,
                        "routine",
                        errand.via,
                    ),
                    now,
                    0,
                )
            return Intent("act", plan.target, plan.action, plan.plan_id, plan.goal)
        if slot.kind == "activity":
            if self.location == slot.place:
                importance = 0.1 + 0.2 * self.draws.uniform("activity", self.name, now)
                obs = Observation("activity", now, 0, "did", slot.place or "")
                self._remember(
                    obs, channel="did", subject=slot.place, importance=round(importance, 3)
                )
            return None
        return Intent("move", slot.place or self.spec.home)

    def _nightly(self, now: int) -> None:
        """Consolidation: summaries, reflections, and beliefs whose time has passed."""
        summaries, merged = mem.summarise(
            self.memory, now, 0, SUMMARY_AGE, bool(self.policy["memory.keep_source_on_summary"])
        )
        for e in merged:
            self._op(now, 0, "summarise", e)
        for summary in summaries:
            self._op(now, 0, "write", summary)
            self._rebase(summary, now)
        reflections, evicted = mem.reflect(self.memory, now, 0)
        for r in reflections:
            self._op(now, 0, "reflect", r)
        self._evicted(now, 0, evicted)
        for prop, b in sorted(self.beliefs.items()):
            if b.status == "current" and b.valid_to is not None and b.valid_to <= now:
                self._set_belief(replace(b, status="outdated"), now, 0)

    def _rebase(self, summary: mem.Experience, now: int) -> None:
        """A belief whose experiences were summarised now rests on the summary — and knows
        only the sources the summary kept."""
        b = self.beliefs.get(summary.proposition or "")
        if b is None or not set(b.support) & set(summary.evidence):
            return
        support = (*[i for i in b.support if i not in summary.evidence], summary.id)
        told_by, origin = (
            (b.told_by, b.origin) if b.first_hand else (summary.told_by, summary.origin)
        )
        changed = replace(b, support=support, told_by=told_by, origin=origin)
        if (changed.told_by, changed.origin) != (b.told_by, b.origin):
            self._set_belief(changed, now, 0)
        else:
            self.beliefs[b.proposition] = changed

    # --- life: dynamic state and autonomy ----------------------------------------------------------
    def _asleep(self) -> bool:
        return self.mind is not None and self.mind.asleep_until is not None

    def _live_until(self, minute: int) -> None:
        """Time composes: the state is brought forward in closed form only when needed, and
        a snapshot is traced at the first event of each hour (event-driven, not per tick)."""
        if minute > self.life.last_minute:
            hour = self.life.last_minute // 60
            self.life = life.advance(self.life, self.spec.persona, minute, self._asleep())
            if minute // 60 > hour:
                self._snapshot(minute)

    def _snapshot(self, minute: int) -> None:
        s = self.life
        values = {
            "valence": s.valence,
            "arousal": s.arousal,
            "stress": life.stress(s),
            **{e: life.emotion_level(s, e) for e in life.EMOTIONS},
        }
        if self.mind is not None:  # needs drive choices only for agents on their own
            values = {
                "energy_deficit": s.energy_deficit,
                "hunger_deficit": s.hunger_deficit,
                **values,
            }
        for variable, value in values.items():
            self._diag.append(
                (
                    "state",
                    {
                        "minute": minute,
                        "event_id": 0,
                        "agent": self.name,
                        "variable": variable,
                        "value": round(value, 6),
                    },
                )
            )

    def _attend(self, minute: int) -> bool:
        seen_at, count = self.attended
        count = count + 1 if seen_at == minute else 1
        self.attended = (minute, count)
        return count <= life.attention_span(self.life)

    def _appraise(self, obs: Observation) -> None:
        """Each event once: what it means for the agent's goals moves mood and arousal."""
        if obs.kind == "action_result":
            appraisal = life.appraise(
                "outcome",
                goal_related=True,
                caused_by="self",
                expected=bool(obs.ok),
                helps=bool(obs.ok),
            )
        else:
            planned = {p.target for p in self.plans.values()} | {
                v for p in self.plans.values() for v in p.via
            }
            subject = obs.meaning.subject if obs.meaning else obs.subject
            appraisal = life.appraise(
                "news",
                goal_related=subject in planned or subject == "lamp",
                caused_by="other" if obs.speaker else "object",
                expected=False,
            )
        self.life = life.apply_event(
            self.life, self.spec.persona, appraisal, obs.event_id, obs.minute
        )
        if (
            obs.meaning is not None
            and obs.meaning.subject == "lamp"
            and self.mind is not None
            and obs.value == "true"
        ):
            self.mind = replace(self.mind, lamp="flickering")

    def _autonomous(self, now: int) -> list[Intent]:
        """On its own: choose from needs, the project and practices; stances veto first."""
        assert self.mind is not None
        mind = self.mind
        if mind.asleep_until is not None:
            if now < mind.asleep_until:
                return []
            mind = replace(mind, asleep_until=None)
        if self.busy is not None:
            self.mind = mind
            return []
        missing = autonomy.unsourced(mind)
        if missing is not None:
            mind = autonomy.with_leads(mind, missing, self._leads(missing, now))
        slip = self.draws.uniform("practice", self.name, day_of(now))
        options, mind = autonomy.candidates(mind, self.life, self.spec.persona, now, slip)
        choice, vetoed = autonomy.arbitrate(
            options, self.spec.persona, mind, now, self.draws, self.name
        )
        for option, stance in vetoed:
            self._diag.append(
                (
                    "plans",
                    {
                        "minute": now,
                        "event_id": 0,
                        "agent": self.name,
                        "plan_id": None,
                        "goal": option.reason,
                        "day": day_of(now),
                        "action": option.action,
                        "target": option.target,
                        "reason": f"rule conflict: {stance}",
                    },
                )
            )
        if choice is None:
            self.mind = mind
            return []
        mind = autonomy.commit(mind, choice, self.spec.persona, now)
        if choice.action == "sleep":  # nights differ: the seed moves waking by up to ±40 min
            jitter = int(self.draws.uniform("sleep", self.name, now) * 9) * 10 - 40
            choice = replace(choice, minutes=max(20, (choice.minutes or 60) + jitter))
            mind = replace(mind, asleep_until=now + choice.minutes)
        practice = next(
            (
                p.id
                for p in self.spec.persona.practices
                if choice.reason.startswith(f"practice {p.id}")
            ),
            None,
        )
        if practice is not None:
            mind = replace(mind, practiced={**mind.practiced, practice: day_of(now)})
        self.mind = mind
        plan = self._new_plan(
            Plan(
                f"auto:{choice.reason}",
                day_of(now),
                choice.action,
                choice.target,
                0,
                "needs",
                item=choice.item,
            ),
            now,
            0,
        )
        self.busy = plan.goal
        return [
            Intent(
                "act",
                choice.target,
                choice.action,
                plan.plan_id,
                plan.goal,
                item=choice.item,
                minutes=choice.minutes,
            )
        ]

    def _autonomous_result(self, obs: Observation) -> None:
        assert self.mind is not None
        goal, self.busy = self.busy, None
        plan = self.plans.get(goal or "")
        if plan is None:
            return
        self._remember(obs, channel="did", subject=obs.subject, importance=0.3 if obs.ok else 0.5)
        self.mind, self.life = autonomy.on_result(
            self.mind,
            self.life,
            self.spec.persona,
            plan.action,
            plan.target,
            plan.item,
            bool(obs.ok),
            obs.detail,
            obs.minute,
            obs.event_id,
        )

    # --- results and requests -------------------------------------------------------------------
    def _action_result(self, obs: Observation) -> None:
        goal, self.busy = self.busy, None
        self._remember(obs, channel="did", subject=obs.subject, importance=0.3 if obs.ok else 0.5)
        plan = self.plans.get(goal or "")
        if plan is None:
            return
        if goal and goal.startswith("request:"):
            self.plans[goal] = replace(plan, step=plan.step + 1 if obs.ok else 3)
            return
        errand = self.errands.get(plan.goal.split("@")[0])
        if obs.ok or errand is None:
            return
        fallback = next((a for a in errand.alternatives if a != plan.target), None)
        if fallback is not None:
            new = self._new_plan(
                replace(plan, target=fallback, via=(), reason="fallback"), obs.minute, obs.event_id
            )
            self.fallback = Intent("act", fallback, new.action, new.plan_id, new.goal)

    def _request(self, obs: Observation) -> None:
        request = obs.request
        assert request is not None
        self.requests[request.request_id] = request
        self._remember(obs, channel="heard", subject=request.place, importance=0.8)
        plan = request_plan(
            request,
            self.spec.persona,
            list(self.beliefs.values()),
            obs.minute,
            float(self.policy["replan.trigger_confidence"]),
        )
        self._new_plan(plan, obs.minute, obs.event_id)

    def _request_steps(self, now: int) -> list[Intent]:
        due = request_step(self.plans, self.requests, now)
        if due is None:
            return []
        plan, intent = due
        if intent.kind == "decline":  # declining is done at once
            self.plans[plan.goal] = replace(plan, step=2)
        else:
            self.busy = plan.goal
        return [intent]
