"""Hand-built trace tables for scorecard tests: the schema's columns, nulls by default."""

from __future__ import annotations

from typing import Any

import pandas as pd

from harness.engine.schema import TABLES
from scorecards import ScorecardDefinition

COLUMNS = {name: [f.name for f in schema][4:] for name, schema in TABLES.items()}
"""Each table's columns after the key, as harness/engine/schema.py (the contract) declares them."""
KEY = ["scenario", "seed", "tick", "event_id"]
AGENTS = ["ana", "bo", "cy", "di", "ed"]  # ana is the origin in the builders below


def frame(
    table: str, rows: list[dict[str, Any]], *, scenario: str = "public_fact", seed: int = 0
) -> pd.DataFrame:
    """A table of the given rows; unspecified columns are null, tick 0, event ids in order."""
    base = {"scenario": scenario, "seed": seed, "tick": 0}
    records = [
        {**base, "event_id": i, **dict.fromkeys(COLUMNS[table]), **row}
        for i, row in enumerate(rows)
    ]
    out = pd.DataFrame(records, columns=KEY + COLUMNS[table])
    return out.astype({"seed": "int64", "tick": "int64", "event_id": "int64"})


def fact(
    proposition: str = "bakery_closed",
    value: str = "yes",
    origin: str = "ana",
    audience: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "proposition": proposition,
        "value": value,
        "modality": "certain",
        "origin": origin,
        "private": audience is not None,
        "audience": list(AGENTS) if audience is None else audience,
        **extra,
    }


def answer(
    agent: str,
    value: str | None,
    source: str | None = None,
    *,
    tick: int = 100,
    proposition: str = "bakery_closed",
    kind: str = "census",
) -> dict[str, Any]:
    return {
        "agent": agent,
        "probe_id": f"{kind}_{tick}",
        "kind": kind,
        "tick": tick,
        "proposition": proposition,
        "answer_value": value,
        "answer_modality": "certain",
        "answer_source": source,
    }


def exposure(
    agent: str,
    channel: str,
    from_agent: str | None = None,
    *,
    tick: int = 10,
    proposition: str = "bakery_closed",
    value: str = "yes",
    modality: str = "certain",
) -> dict[str, Any]:
    return {
        "agent": agent,
        "proposition": proposition,
        "value": value,
        "modality": modality,
        "channel": channel,
        "from_agent": from_agent,
        "tick": tick,
    }


def claim(
    speaker: str,
    listener: str,
    stated_source: str | None,
    *,
    event_id: int,
    tick: int = 10,
    proposition: str = "bakery_closed",
    value: str = "yes",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One claim heard: the speaker's utterance and the listener's exposure, one event (as the
    harness records a claim), so the source it stated reaches the listener with it."""
    said = {
        "speaker": speaker,
        "listener": listener,
        "proposition": proposition,
        "value": value,
        "modality": "certain",
        "stated_source": stated_source,
        "scripted": False,
        "grounded": True,
        "tick": tick,
        "event_id": event_id,
    }
    exposed = {
        **exposure(listener, "told", speaker, tick=tick, proposition=proposition, value=value),
        "event_id": event_id,
    }
    return said, exposed


def heard(
    *agents: str,
    proposition: str = "bakery_closed",
    tick: int = 10,
    value: str = "yes",
    modality: str = "certain",
) -> pd.DataFrame:
    """An exposures table in which each of `agents` was told the proposition's `value` by
    ana, as surely as `modality`: what makes a census answer knowledge rather than a guess."""
    told = [
        exposure(
            a, "told", "ana", tick=tick, proposition=proposition, value=value, modality=modality
        )
        for a in agents
    ]
    return frame("exposures", told)


def decision(
    agent: str, in_line: bool | None, *, tick: int = 50, proposition: str = "bakery_closed"
) -> dict[str, Any]:
    return {
        "agent": agent,
        "action": "buy_bread",
        "target": "market",
        "plan_id": 1,
        "ok": True,
        "decision_point": "bread_day_2",
        "proposition": proposition,
        "in_line": in_line,
        "tick": tick,
    }


def episode(
    scenario: str, seed: int, *, knowers: int, named: int, decided: int = 0, in_line: int = 0
) -> dict[str, pd.DataFrame]:
    """One public-fact episode with chosen outcomes.

    reach = knowers / 4, provenance = named / 4 (a share of the audience), action_consistency
    = in_line / decided (None when nothing decided).
    """
    others = AGENTS[1:]
    probes = [
        answer(
            a,
            "yes" if i < knowers else None,
            ("ana" if i < named else "zed") if i < knowers else None,
        )
        for i, a in enumerate(others)
    ]
    exposures = [exposure(a, "told", "ana") for a in others[: max(decided, knowers)]]
    actions = [decision(a, i < in_line) for i, a in enumerate(others[:decided])]
    where = {"scenario": scenario, "seed": seed}
    return {
        "truth": frame("truth", [fact()], **where),
        "probes": frame("probes", probes, **where),
        "exposures": frame("exposures", exposures, **where),
        "actions": frame("actions", actions, **where),
    }


def concat(*episodes: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Trace tables of many episodes, as read from a trace folder."""
    return {name: pd.concat([e[name] for e in episodes], ignore_index=True) for name in episodes[0]}


def three_metrics() -> ScorecardDefinition:
    """The first scorecard (reach, provenance, action_consistency, equal weights): the
    definition the older score tests compute their expected objectives with."""
    names = ("reach", "provenance", "action_consistency")
    return ScorecardDefinition(
        metrics=names, weights=dict.fromkeys(names, 1.0), tolerances=dict.fromkeys(names, 0.05)
    )
