"""`--proposer llm`: the diagnosis-driven proposal asked of a language model.

Where the rule-based diagnosis (`experiments.search.diagnosis`) moves every parameter declared against
the champion's worst shortfall, this asks a model — the same OpenAI-compatible endpoint config
as `--agent llm` — for one whitelisted change, given the champion's shortfalls (as the morning
report states them) and the surface with each parameter's meaning and declared purpose. The
model picks among the moves the whitelist allows (a JSON-schema enum: it cannot name anything
else), so its reply is validated against the whitelist before it becomes a trial; the call goes
through the response cache and is counted like an agent's (`llm_calls` rows, tokens). The trial
it proposes is judged by the same promotion rules as any other. A reply that cannot be used
leaves the proposal to the rules.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.search.diagnosis import Diagnosis, moved, shortfalls, show_value
from harness.agents.llm import LLMConfig, open_model
from harness.agents.llm.accounting import Accounted, summarise
from harness.agents.llm.calls import ChatCall, LLMFailure, Message, Purpose
from harness.agents.llm.model import resolve_format
from harness.agents.llm.structured import as_json, ask, choice, record, words
from policies import Policy
from policies.param import Param
from policies.purposes import Shortfall
from scorecards import Scorecard, ScorecardDefinition

SYSTEM = (
    "You tune the policy of simulated agents who remember, believe, talk and act. A search "
    "measures every change on scenarios with known ground truth and keeps it only if the "
    "scorecard improves and every guardrail holds. Choose the one change most likely to close "
    "the worst shortfall without breaking a guardrail."
)
MAX_TOKENS = 200


@dataclass(frozen=True)
class Move:
    """One change a proposal may make: a parameter's new value (a switch turned on with a
    threshold that acts only under it)."""

    changes: tuple[tuple[str, Any, Any], ...]  # (parameter, champion's value, proposed)

    @property
    def label(self) -> str:
        return ", ".join(f"{name} = {show_value(new)}" for name, _, new in self.changes)


def moves(champion: Policy, surface: Collection[str]) -> list[Move]:
    """Every single-parameter move the champion's surface allows from it on the searched
    parameters (`surface`): a
    bool flipped, another category, a number a step up or down (`diagnosis.STEP` of its
    range). A parameter under a switch that is off moves with the switch turned on."""
    out = []
    for name in surface:
        p = champion.surface.by_name[name]
        switch = p.requires
        needs_switch = switch is not None and switch in surface and not champion[switch]
        if switch is not None and not needs_switch and not champion[switch]:
            continue  # under a switch the search cannot turn on: it would move nothing
        for new in _values(p, champion[name]):
            changes = [(name, champion[name], new)]
            if needs_switch:
                assert switch is not None
                changes.insert(0, (switch, champion[switch], True))
            out.append(Move(tuple(changes)))
    return out


def _values(p: Param, value: Any) -> list[Any]:
    if p.kind == "bool":
        return [not value]
    if p.kind == "categorical":
        return [c for c in p.choices if c != value]
    found = []
    for up in (True, False):
        new = moved(p, value, up)
        if new != value and new not in found:
            found.append(new)
    return found


def prompt(
    card: Scorecard,
    definition: ScorecardDefinition,
    champion: Policy,
    options: Iterable[Move],
    tried: Collection[str] = (),
) -> str:
    """The question: the champion's shortfalls, worst first, the moves with what each
    parameter does and is declared to fix, and the changes already tried on this champion."""
    lines = ["The current policy falls short here, worst first:"]
    for shortfall, gap, worst in shortfalls(card, definition):
        if gap > 0:
            lines.append(f"- {shortfall.value}: {gap:.2f} short on average (worst {worst})")
    lines.append("")
    lines.append("Parameters (current value; what it does; what it is meant to fix):")
    shown: set[str] = set()
    listed = list(options)
    for move in listed:
        for name, old, _ in move.changes:
            if name in shown:
                continue
            shown.add(name)
            p = champion.surface.by_name[name]
            fixes = ", ".join(
                f"{s.value} ({'raise' if up else 'lower'})" if p.kind != "bool" else s.value
                for s, up in p.fixes
            )
            lines.append(
                f"- {name} = {show_value(old)}; {p.meaning}; fixes: {fixes or 'nothing named'}"
            )
    if tried:
        lines.append("")
        lines.append("Already tried on this policy, and not kept: " + "; ".join(tried) + ".")
    lines.append("")
    lines.append("Choose one change from the schema's list.")
    return "\n".join(lines)


@dataclass
class ModelProposer:
    """The search's model proposer: one model (cache, accounting) for the whole search."""

    config: LLMConfig
    runs_dir: Path
    study: str
    model: Accounted = field(init=False)

    def __post_init__(self) -> None:
        self.config = resolve_format(self.config, self.runs_dir)
        self.model = open_model(self.config, self.runs_dir)

    def propose(
        self,
        card: Scorecard,
        definition: ScorecardDefinition,
        champion: Policy,
        surface: Collection[str],
        tried: Collection[str] = (),
    ) -> tuple[Diagnosis | None, str]:
        """The model's one change for the champion, not one of the `tried` labels (None when
        its reply could not be used or the endpoint failed), and what became of the call."""
        options = [m for m in moves(champion, surface) if m.label not in tried]
        ranked = [s for s, gap, _ in shortfalls(card, definition) if gap > 0]
        if not options or not ranked:
            return None, "nothing to ask: no move on the surface, or no shortfall"
        by_label = {m.label: m for m in options}
        schema = record(
            change=choice(list(by_label), "the one change to make"),
            why=words("one sentence: the shortfall it should close and how"),
        )
        question = prompt(card, definition, champion, options, tried)
        # keyed by what is asked, never by a counter: a rerun is answered from the cache
        digest = hashlib.blake2b(f"{self.study}|{champion.hash}|{question}".encode(), digest_size=4)
        call = ChatCall(
            Purpose.PROPOSE,
            (Message("system", SYSTEM), Message("user", question)),
            0.0,
            MAX_TOKENS,
            int.from_bytes(digest.digest(), "big") % 2**31,
            schema_name=str(Purpose.PROPOSE),
            schema_json=as_json(schema),
            structured_output=self.config.endpoint.structured_output,
            agent="proposer",
        )
        try:
            reply = ask(self.model, call, self.config.calls.parse_retries)
        except LLMFailure as exc:
            return None, f"the model did not answer ({exc.status}: {exc})"
        if reply is None:
            return None, "the model's reply could not be used"
        move = by_label[reply["change"]]
        shortfall = _aimed(move, ranked, champion)
        gap = next(g for s, g, _ in shortfalls(card, definition) if s is shortfall)
        worst = next(w for s, _, w in shortfalls(card, definition) if s is shortfall)
        why = " ".join(str(reply["why"]).split())[:200]
        return Diagnosis(shortfall, gap, worst, move.changes), f"{move.label}: {why}"

    def usage(self) -> dict[str, float]:
        """The proposer's calls so far, summed as an agent's are (calls, hits, tokens)."""
        return summarise(self.model.rows, None)


def _aimed(move: Move, ranked: list[Shortfall], champion: Policy) -> Shortfall:
    """The worst shortfall the move's parameters are declared against (else the worst)."""
    by_name = champion.surface.by_name
    declared = {s for name, _, _ in move.changes for s, _ in by_name[name].fixes}
    return next((s for s in ranked if s in declared), ranked[0])
