"""The LLM-backed agent: the reference agent's memory and trust components, a model deciding.

The model rates a new experience's importance, says whether trust in an informant moves after
an outcome the agent saw for itself, chooses what to tell a partner (memories by id, with
modality, stated source and its own words, which the harness records verbatim), what to do at
an errand among the actions and places offered, and how to answer a probe. Memory writes,
retrieval, trust arithmetic and the daily routine are the reference components'. Prompts carry
state as words; every model call is a row of `llm_calls`.

A probe is a read: `answer` retrieves without strengthening or tracing and remembers nothing of
having been asked, so the agent's state is unchanged (its model call is still accounted).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from harness.agents.reference.context import Diagnostics
from harness.agents.reference.memory import Memory
from harness.agents.reference.model import memory as mem
from harness.agents.reference.model.planning import Slot, daily_schedule
from harness.agents.reference.trust import Trust
from harness.engine.contract import (
    AgentSetup,
    Answer,
    Claim,
    DiagnosticRow,
    Intent,
    Meaning,
    Observation,
    Privacy,
)
from scenarios import day_of

from . import phrasing
from .accounting import Accounted
from .asking import Asking, CallSettings
from .calls import Purpose
from .dialogue import Conversations
from .errands import Errands

FIRST_HAND = ("seen", "heard", "read")
CONFIDENCE = {"certain": 0.9, "likely": 0.65, "rumor": 0.35}
SILENCE_ALLOWED = ("discreet",)  # share templates that ask "what, if anything"


class LLMAgent:
    def __init__(
        self, setup: AgentSetup, model: Accounted, settings: CallSettings, places: tuple[str, ...]
    ) -> None:
        self.name, self.setup, self.policy = setup.name, setup, setup.policy
        self.model = model
        self.ask = Asking(self.name, setup.policy, setup.draws, model, settings)
        self.log = Diagnostics()
        self.memory = Memory(setup, self.log)
        self.trust = Trust(setup, self.log)
        schedule: list[Slot] = daily_schedule(
            setup.spec, setup.draws, setup.start, setup.end, setup.tick_minutes
        )
        self.errands = Errands(setup, schedule, places, self.ask, self._plan_memories, self.log)
        self.meanings: dict[str, Meaning] = {}
        self.told: list[str] = []  # "partner|proposition" already told
        self.met: list[str] = []  # people talked with
        self.talked: dict[str, int] = {}  # day → claims spoken
        # a character (its agent entry has `companion:`) answers the lines said to it
        self.conversations = Conversations(self) if setup.spec.companion is not None else None

    # --- what the model reads ----------------------------------------------------------------------
    def people(self) -> set[str]:
        """Everyone this agent has heard of: itself, people met, informants, stated origins."""
        return {self.name, *self.met} | {
            n for e in self.memory.experiences.values() for n in (e.told_by, e.origin) if n
        }

    def _recall(
        self, query: mem.Query, now: int, pool: list[mem.Experience], trace: bool
    ) -> list[mem.Experience]:
        """Retrieval (the reference model's) over the memories that may answer; a real use is
        traced and strengthens what came to mind, a probe does neither."""
        store = self.memory.store
        view = mem.Memory(
            self.name,
            store.capacity,
            {e.id: e for e in pool},
            {e.id: store.strength[e.id] for e in pool},
        )
        recalled = mem.retrieve(view, query, now, self.policy, self.setup.draws)
        if trace:
            for rank, r in enumerate(recalled):
                self.memory.op(
                    now,
                    0,
                    "retrieve",
                    r.experience,
                    purpose=query.purpose,
                    rank=rank,
                    relevant=r.relevant,
                )
            if not recalled:
                self.memory.op(
                    now, 0, "retrieve", None, purpose=query.purpose, subject=query.subject
                )
            mem.strengthen(store, [r.experience for r in recalled], now)
        return [r.experience for r in recalled]

    def _words(self, recalled: list[mem.Experience], now: int) -> str:
        return phrasing.memory_lines(
            recalled,
            self.meanings,
            now,
            self.policy,
            int(self.policy["llm.context_tokens"]),
            self.people(),
        )

    def _plan_memories(self, query: mem.Query, now: int) -> str:
        pool = [e for e in self.memory.experiences.values() if e.proposition is not None]
        return self._words(self._recall(query, now, pool, True), now)

    # --- the protocol ---------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        if obs.kind in ("notice", "claim") and obs.meaning is not None and obs.value:
            self._take_in(obs)
        elif obs.kind == "arrival":
            self.errands.location = obs.subject
        elif obs.kind == "chat":
            self.trust.met(obs.subject)
            if obs.subject not in self.met:
                self.met.append(obs.subject)
        elif obs.kind == "action_result":
            self.errands.result(obs)
        elif obs.kind == "request" and obs.request is not None:
            self.errands.request(obs.request)
        elif obs.kind == "line" and self.conversations is not None:
            if obs.meaning is not None and (obs.value or obs.request is not None):
                self._take_in(obs)  # what the line states (or asks to be reminded of)
            elif obs.meaning is not None:
                self.meanings.setdefault(obs.meaning.proposition, obs.meaning)
            self.conversations.hear(obs)

    def _take_in(self, obs: Observation) -> None:
        meaning = obs.meaning
        assert meaning is not None
        self.meanings.setdefault(meaning.proposition, meaning)
        told = obs.speaker is not None
        what = phrasing.proposition_words(meaning, obs.value, self.people() | {obs.speaker or ""})
        event = f"{obs.speaker} told you that {what}." if told else f"You found that {what}."
        if obs.request is not None and obs.detail:  # a promise asked of it: their own words
            event = f'{obs.speaker} asked you: "{obs.detail}"'
        appraisal = (
            "it touches a place you plan to go, so it seems important"
            if meaning.subject in self.errands.planned_places()
            else "it is news about the village, so it seems notable"
            if told
            else "it is something you saw, so it seems notable"
        )
        reply = self.ask(
            Purpose.IMPORTANCE,
            phrasing.importance_schema(),
            obs.minute,
            obs.event_id,
            (obs.event_id, meaning.proposition),
            event=event,
            appraisal=appraisal,
        )
        origin = None
        if told:
            origin = obs.speaker if obs.stated_source in (None, "self") else obs.stated_source
        confidence = 1.0
        if told:
            heard = CONFIDENCE.get(str(obs.modality or "certain"), 0.65)
            confidence = min(
                heard * (0.5 + self.trust.in_informant(obs.speaker)),
                float(self.policy["belief.second_hand_cap"]),
            )
        self.memory.write(
            obs.minute,
            obs.event_id,
            channel=str(obs.channel),
            subject=meaning.subject,
            importance=phrasing.importance_value(reply),
            proposition=meaning.proposition,
            value=obs.value,
            modality=str(obs.modality or "certain"),
            told_by=obs.speaker,
            origin=origin,
            confidence=round(confidence, 6),
            privacy=str(obs.privacy),
            audience=obs.audience,
        )
        if not told:
            self._judge_informants(meaning, obs.value or "", obs.minute, obs.event_id)

    def _judge_informants(self, meaning: Meaning, value: str, minute: int, eid: int) -> None:
        """Seeing for oneself is the outcome that may move trust in who told us: the model
        says which way, the trust component moves it, once per informant and proposition."""
        told = sorted(
            {
                (e.told_by, e.value)
                for e in self.memory.experiences.values()
                if e.proposition == meaning.proposition and e.told_by is not None
            }
        )
        judged = self.trust.relations.judged
        for informant, said in told:
            key = f"{informant}|reports_facts:{meaning.proposition}"
            if key in judged:
                continue
            outcome = self.ask.template("trust").piece("right" if said == value else "wrong")
            reply = self.ask(
                Purpose.TRUST,
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
                judged.append(key)
            else:
                self.trust.judge(
                    informant, meaning.proposition, "reports_facts", move == "up", minute, eid
                )

    def decide(self, now: int) -> list[Intent]:
        return self.errands.decide(now)

    def wake_at(self, now: int) -> int:
        due = self.conversations.wake_at(now) if self.conversations is not None else None
        errands = self.errands.wake_at(now)
        return errands if due is None else min(errands, due)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        if self.conversations is not None:  # a character answers and reminds; it does not gossip
            return self.conversations.converse(partner, now)
        day = str(day_of(now))
        room = int(self.policy["motivation.talk_budget"]) - self.talked.get(day, 0)
        chance = self.setup.draws.uniform("share", self.name, partner, now)
        if room <= 0 or chance >= float(self.policy["sharing.proactive"]):
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
        if not firsts:
            return []
        by_id = {phrasing.memory_id(e): e for e in firsts.values()}
        names = {n for e in by_id.values() for n in (e.told_by, e.origin) if n}
        most = min(room, int(self.policy["sharing.claims_per_chat"]))
        # the policy's own draw (sharing.proactive) has decided to share: the eager template
        # asks for at least one claim; a template in SILENCE_ALLOWED lets the model say
        # nothing, which its llm_calls row then traces as chose_nothing
        least = 0 if self.policy["prompt.share"] in SILENCE_ALLOWED else 1
        schema = phrasing.share_schema(list(by_id), phrasing.sources_offered(names), most, least)
        reply = self.ask(
            Purpose.SHARE,
            schema,
            now,
            0,
            (partner,),
            lambda r: not r["claims"],
            partner=partner,
            place=self.errands.location,
            memories=self._words(list(by_id.values()), now),
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
                    self.meanings[exp.proposition or ""],
                    exp.value or "true",
                    item["modality"],
                    source,
                    Privacy(exp.privacy),
                    exp.audience,
                    text=item["words"] or None,
                )
            )
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
        question = (
            "What do you know about whether "
            f"{phrasing.proposition_words(meaning, None, self.people())}?"
        )
        reply = self.ask(
            Purpose.ANSWER,
            phrasing.answer_schema(list(by_id), phrasing.sources_offered(names)),
            now,
            0,
            (proposition,),
            lambda r: r["memory"] == phrasing.NO_SOURCE,
            question=question,
            memories=self._words(recalled, now),
        )
        if not reply or reply["memory"] == phrasing.NO_SOURCE:
            return Answer(None, None, None)
        source = None if reply["source"] == phrasing.NO_SOURCE else reply["source"]
        return Answer(by_id[reply["memory"]].value, reply["modality"], source)

    # --- state --------------------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "memory": self.memory.get_state(),
            "trust": self.trust.get_state(),
            "errands": self.errands.get_state(),
            "meanings": {k: asdict(m) for k, m in self.meanings.items()},
            "told": list(self.told),
            "met": list(self.met),
            "talked": dict(self.talked),
            **({} if self.conversations is None else {"dialogue": self.conversations.get_state()}),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.memory.set_state(state["memory"])
        self.trust.set_state(state["trust"])
        self.errands.set_state(state["errands"])
        self.meanings = {k: Meaning(**v) for k, v in state["meanings"].items()}
        self.told, self.met = list(state["told"]), list(state["met"])
        self.talked = dict(state["talked"])
        if self.conversations is not None:
            self.conversations.set_state(state["dialogue"])

    def drain_diagnostics(self) -> list[DiagnosticRow]:
        return [*self.log.drain(), *self.model.drain(self.name)]
