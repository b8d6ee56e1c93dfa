"""A villager backed by a language model, written the way a user would write one: it calls an
OpenAI-compatible chat endpoint itself (the `--llm-config FILE` it is given), keeps notes of
what it hears and a diary it writes by reflecting on them, and asks the model where to go
when an errand is due. Its words are two prompt families of its own (`diarist.choice`,
`diarist.reflection`, two variants each, in diarist_prompts/), its knobs two parameters of its
own, and every model call a row of its own table, `diarist_calls` (tokens and cost, summed
per episode). A worked example of docs/tutorials/search-your-own-agent.md; installed by
nothing, loaded from the repository's root as `--agent examples.diarist:diarist`.

A template's text before a line `---` is the system message, after it the user's."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from string import Template
from typing import Any, ClassVar

import httpx

from harness.engine.contract import AgentSetup, Answer, Claim, Intent, Meaning, Observation
from harness.engine.diagnostics import diagnostic_row
from policies import Param, PromptFamily

DAY = 24 * 60
DOUBT = {"certain": 1, "likely": 2, "rumor": 3}  # how much doubt a modality carries
CHOICE = PromptFamily(
    "diarist.choice",
    "diarist_prompts/choice",
    placeholders=("name", "errand", "options", "heard", "diary"),
    default="plain",
    meaning="how it asks the model where to go when an errand is due",
    anchor=__file__,
)
REFLECTION = PromptFamily(
    "diarist.reflection",
    "diarist_prompts/reflection",
    placeholders=("name", "notes"),
    default="gist",
    meaning="how it asks the model for a diary line about its notes",
    anchor=__file__,
)


@diagnostic_row
@dataclass(frozen=True)
class DiaristCall:
    """One call it made to the model: a row of its own table (what it says of itself)."""

    table: ClassVar[str] = "diarist_calls"
    sums: ClassVar[tuple[str, ...]] = ("tokens_in", "tokens_out", "cost_usd")
    minute: int
    event_id: int
    agent: str
    purpose: str  # choice / reflection
    variant: str  # the prompt variant asked with
    tokens_in: int
    tokens_out: int
    cost_usd: float | None  # from the config's price for the model; none without one
    outcome: str  # answered / fell_back (no usable answer: it went where it planned)


class Diarist:
    """The factory, configured with the run's model config (`configure`)."""

    row_types = (DiaristCall,)
    policy_surface = (
        Param(
            "diarist.reflect_every",
            "int",
            4,
            "notes it takes before it reflects on them in its diary (each reflection a call)",
            low=1,
            high=8,
        ),
        Param(
            "diarist.heed_doubt",
            "int",
            3,
            "how much doubt news may carry and still be put to the model when it chooses: "
            "1 only what is certain, 2 likely or surer, 3 rumors too",
            low=1,
            high=3,
        ),
        CHOICE,
        REFLECTION,
    )

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        self.config = config

    def configure(self, options: dict[str, Any]) -> Diarist:
        """The factory of one run: with the model config `--llm-config` gave."""
        return Diarist(options["config"])

    @staticmethod
    def identity(options: dict[str, Any]) -> str:
        """What in its options decides its behaviour: the model (part of the agent's hash)."""
        return str(options["config"]["endpoint"]["model"])

    @staticmethod
    def facts(options: dict[str, Any]) -> dict[str, str]:
        """What a run's records say of its options."""
        return {"model": str(options["config"]["endpoint"]["model"])}

    def __call__(self, setup: AgentSetup) -> DiaristAgent:
        if self.config is None:
            raise ValueError("the diarist needs its model: give --llm-config FILE")
        return DiaristAgent(setup, Model(self.config))


diarist = Diarist()  # what `--agent examples.diarist:diarist` names


class Model:
    """Its client: one chat completion at a time, over HTTP, greedy."""

    def __init__(self, config: dict[str, Any]) -> None:
        endpoint = config["endpoint"]
        self.url = endpoint["base_url"].rstrip("/") + "/chat/completions"
        self.model = endpoint["model"]
        key = os.environ.get(endpoint.get("api_key_env") or "", "")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.timeout = float(endpoint.get("timeout_s", 60))
        self.price = (config.get("prices") or {}).get(self.model)
        # a server that takes no json_schema is asked for json_object with the schema
        self.json_schema = endpoint.get("structured_output", "auto") != "json_object_schema"

    def ask(self, prompt: str, schema: dict[str, Any] | None) -> tuple[str, int, int]:
        """The reply's content and the tokens in and out."""
        system, _, user = prompt.partition("\n---\n")
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system.strip()},
                {"role": "user", "content": user.strip()},
            ],
            "temperature": 0,
            "max_tokens": 64,
        }
        if schema is not None:
            body["response_format"] = self._format(schema)
        reply = httpx.post(self.url, json=body, headers=self.headers, timeout=self.timeout)
        if reply.status_code >= 400 and schema is not None and self.json_schema:
            self.json_schema = False  # e.g. llama-cpp-python's server: json_object only
            body["response_format"] = self._format(schema)
            reply = httpx.post(self.url, json=body, headers=self.headers, timeout=self.timeout)
        reply.raise_for_status()
        data = reply.json()
        usage = data.get("usage") or {}
        content = data["choices"][0]["message"].get("content") or ""
        return content, int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))

    def _format(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self.json_schema:
            return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
        return {"type": "json_object", "schema": schema}

    def cost(self, tokens_in: int, tokens_out: int) -> float | None:
        if not self.price:
            return None
        return (tokens_in * self.price["input"] + tokens_out * self.price["output"]) / 1e6


class DiaristAgent:
    def __init__(self, setup: AgentSetup, model: Model) -> None:
        self.name, self.spec, self.policy, self.model = setup.name, setup.spec, setup.policy, model
        days = range(setup.start // DAY + 1, setup.end // DAY + 2)
        plan = [(e.at, "errand", e.id, d) for e in self.spec.errands for d in e.days]
        plan += [(r.at, "move", r.go[0], d) for r in self.spec.routine for d in days]
        day = sorted(((d - 1) * DAY + at, kind, what, d) for at, kind, what, d in plan)
        self.day = [step for step in day if setup.start <= step[0] <= setup.end]
        self.next = 0  # the next step of the day
        self.heard: dict[str, dict[str, Any]] = {}  # proposition → what, how sure, from whom
        self.notes: list[str] = []  # what it heard since its last diary line
        self.diary: list[str] = []
        self.told: list[str] = []  # "partner|proposition" already said
        self.calls: list[DiaristCall] = []  # rows not yet handed to the harness

    # --- what it perceives --------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        if obs.kind not in ("notice", "claim") or obs.meaning is None:
            return
        source = obs.speaker or "self"
        self.heard[obs.meaning.proposition] = {
            "value": obs.value,
            "modality": str(obs.modality or "certain"),
            "source": source,
            "privacy": str(obs.privacy),
            "audience": list(obs.audience),
            "meaning": vars(obs.meaning),
        }
        said = "I saw" if source == "self" else f"{source} told me"
        sure = obs.modality or "certain"
        self.notes.append(f"{said}: {_words(obs.meaning, obs.value)} ({sure})")
        if len(self.notes) >= int(self.policy["diarist.reflect_every"]):
            self.reflect(obs.minute, obs.event_id)

    def reflect(self, now: int, event_id: int) -> None:
        variant = str(self.policy["diarist.reflection"])
        prompt = Template(REFLECTION.template(variant)).substitute(
            name=self.name, notes="; ".join(self.notes)
        )
        line, tokens_in, tokens_out = self.model.ask(prompt, None)
        self.calls.append(self._call(now, event_id, "reflection", variant, tokens_in, tokens_out))
        self.diary.append(line.strip().splitlines()[0] if line.strip() else "")
        self.notes = []

    # --- what it does -------------------------------------------------------------------------
    def decide(self, now: int) -> list[Intent]:
        intents = []
        while self.next < len(self.day) and self.day[self.next][0] <= now:
            _, kind, what, day = self.day[self.next]
            self.next += 1
            errand = next((e for e in self.spec.errands if e.id == what), None)
            if kind == "move" or errand is None:
                intents.append(Intent("move", what))
            else:
                intents.append(Intent("act", self.choose(errand, day, now), errand.action))
        return intents

    def choose(self, errand: Any, day: int, now: int) -> str:
        """Where to go for an errand: the model's choice among the places it knows for it."""
        options = [errand.target, *self.spec.knows_where.get(errand.action, ())]
        options = list(dict.fromkeys(options))
        variant = str(self.policy["diarist.choice"])
        prompt = Template(CHOICE.template(variant)).substitute(
            name=self.name,
            errand=f"{errand.action} at the {errand.target} on day {day}",
            options=", ".join(options),
            heard="; ".join(self._about(errand, options, day)) or "nothing about these places",
            diary=" / ".join(self.diary[-3:]) or "empty",
        )
        schema = {
            "type": "object",
            "properties": {"place": {"type": "string", "enum": options}},
            "required": ["place"],
        }
        reply, tokens_in, tokens_out = self.model.ask(prompt, schema)
        try:
            place = json.loads(reply)["place"]
        except (ValueError, KeyError, TypeError):
            place = None
        outcome = "answered" if place in options else "fell_back"
        self.calls.append(
            self._call(now, 0, "choice", variant, tokens_in, tokens_out, outcome=outcome)
        )
        return place if place in options else errand.target

    def _about(self, errand: Any, options: list[str], day: int) -> list[str]:
        """What it heard that shuts off a place it could go (the place itself, or the way
        there), sure enough to heed: one line per place."""
        doubt = int(self.policy["diarist.heed_doubt"])
        lines = []
        for place in options:
            ways = (place, *(errand.via if place == errand.target else ()))
            for h in self.heard.values():
                m = h["meaning"]
                if (
                    m["sense"] == "unusable"
                    and m["subject"] in ways
                    and m["object"] == str(day)
                    and h["value"] == "true"
                    and DOUBT.get(h["modality"], 3) <= doubt
                ):
                    lines.append(
                        f"{place} is shut off: {_words(Meaning(**m), 'true')} "
                        f"({h['modality']}, from {h['source']})"
                    )
        return lines

    def _call(
        self,
        now: int,
        event_id: int,
        purpose: str,
        variant: str,
        tokens_in: int,
        tokens_out: int,
        outcome: str = "answered",
    ) -> DiaristCall:
        cost = self.model.cost(tokens_in, tokens_out)
        return DiaristCall(
            now, event_id, self.name, purpose, variant, tokens_in, tokens_out, cost, outcome
        )

    # --- what it says -------------------------------------------------------------------------
    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        claims = []
        for prop, h in sorted(self.heard.items()):
            secret = h["privacy"] == "private" and partner not in h["audience"]
            if f"{partner}|{prop}" in self.told or secret:
                continue
            self.told.append(f"{partner}|{prop}")
            meaning = Meaning(**h["meaning"])
            claims.append(
                Claim(
                    meaning,
                    h["value"],
                    h["modality"],
                    h["source"],
                    h["privacy"],
                    tuple(h["audience"]),
                    text=f"I have it from {h['source']}: {_words(meaning, h['value'])}.",
                )
            )
        return claims

    def answer(self, proposition: str, now: int) -> Answer:
        h = self.heard.get(proposition) or {"value": None, "modality": None, "source": None}
        return Answer(h["value"], h["modality"], h["source"])

    # --- its state ----------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "heard": self.heard,
            "notes": self.notes,
            "diary": self.diary,
            "told": self.told,
            "next": self.next,
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.heard, self.notes, self.diary = state["heard"], state["notes"], state["diary"]
        self.told, self.next = state["told"], state["next"]

    def drain_diagnostics(self) -> list[Any]:
        rows, self.calls = self.calls, []
        return rows

    def wake_at(self, now: int) -> int:
        return self.day[self.next][0] if self.next < len(self.day) else 1 << 40


def _words(meaning: Meaning, value: str | None) -> str:
    """A matter in words: the scenario's phrase for its predicate when it has one."""
    said = (meaning.phrase or meaning.predicate.replace("_", " ")).replace(
        "{object}", meaning.object
    )
    if value == "true":
        return f"the {meaning.subject} {said}"
    return f"the {meaning.subject}: untrue that it is {said}"
