"""Every whitelisted parameter moves the behaviour it names, in the declared direction.

Each case runs the same scenario and seeds (common random numbers) with the parameter set low
and high, everything else held at careful.yaml, and compares one behaviour measured from the
traces. Not "the traces differ": the named behaviour goes the declared way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pandas as pd
import pytest

from harness import run_episode
from harness.agents import AGENT_KINDS
from policies import WHITELIST, load_policy
from scenarios import load_scenario

from .conftest import ROOT

CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
SEEDS = (0, 1, 2, 3)
Tables = dict[str, pd.DataFrame]


@cache
def _scenario(name: str):  # type: ignore[no-untyped-def]
    path = ROOT / "tests" / "scenarios" / f"{name}.yaml"
    return load_scenario(path if path.exists() else name)


def traces(scenario: str, changes: tuple[tuple[str, object], ...]) -> list[Tables]:
    policy = CAREFUL.with_values(dict(changes))
    return [
        {
            k: v.to_pandas()
            for k, v in run_episode(
                _scenario(scenario), policy, s, AGENT_KINDS["reference"]
            ).items()
        }
        for s in SEEDS
    ]


# --- behaviours, each over all seeds ------------------------------------------------------------
def named_sources(runs: list[Tables]) -> float:
    """Share of non-origin census knowers who name a source."""
    rows = pd.concat(
        [
            t["probes"].merge(t["truth"][["proposition", "value", "origin"]], on="proposition")
            for t in runs
        ]
    )
    knowers = rows[
        (rows.kind == "census") & (rows.answer_value == rows.value) & (rows.agent != rows.origin)
    ]
    return knowers.answer_source.notna().mean()


def evictions(runs: list[Tables]) -> float:
    return sum((t["memory_ops"].op == "evict").sum() for t in runs)


def relevant_recall(runs: list[Tables]) -> float:
    """Share of plan retrievals that brought at least one relevant experience to mind."""
    ops = pd.concat([t["memory_ops"] for t in runs])
    plan = ops[(ops.op == "retrieve") & (ops.purpose == "plan")]
    hit = plan.relevant.fillna(False).astype(bool)
    return float(hit.groupby([plan.seed, plan.agent, plan.tick]).any().mean())


def hearsay_confidence(runs: list[Tables]) -> float:
    b = pd.concat([t["beliefs"] for t in runs])
    return b[b.told_by.notna() | b.origin.isna()].confidence.mean()


def rumor_hardening(runs: list[Tables]) -> float:
    """How sure non-origin agents got of the (false) rumor, at most, on average."""
    b = pd.concat([t["beliefs"] for t in runs])
    heard = b[(b.agent != "ana") & (b.value == "true")]
    return heard.groupby(["seed", "agent"]).confidence.max().mean()


def sourced_hearsay(runs: list[Tables]) -> float:
    u = pd.concat([t["utterances"] for t in runs])
    second = u[u.stated_source != "self"]
    return second.stated_source.notna().mean()


def certain_share(runs: list[Tables]) -> float:
    u = pd.concat([t["utterances"] for t in runs])
    return (u.modality == "certain").mean()


def utterances(runs: list[Tables]) -> float:
    return sum(len(t["utterances"]) for t in runs)


def claims_per_chat(runs: list[Tables]) -> float:
    u = pd.concat([t["utterances"] for t in runs])
    return u.groupby(["seed", "tick", "speaker", "listener"]).size().mean()  # one chat


def leaks(runs: list[Tables]) -> float:
    """Census answers revealing the secret by agents outside its audience."""
    total = 0
    for t in runs:
        truth = t["truth"].iloc[0]
        census = t["probes"][t["probes"].kind == "census"]
        total += (
            (~census.agent.isin(list(truth.audience))) & (census.answer_value == truth.value)
        ).sum()
    return total


def census_reach(runs: list[Tables]) -> float:
    """Share of non-origin agents whose census answer gives the true value."""
    rows = pd.concat(
        [
            t["probes"].merge(t["truth"][["proposition", "value", "origin"]], on="proposition")
            for t in runs
        ]
    )
    census = rows[(rows.kind == "census") & (rows.agent != rows.origin)]
    return float((census.answer_value == census.value).mean())


def trust_movement(runs: list[Tables]) -> float:
    tr = pd.concat([t["trust"] for t in runs])
    return float((tr.value - float(CAREFUL["trust.prior"])).abs().sum()) if len(tr) else 0.0


def replans(runs: list[Tables]) -> float:
    p = pd.concat([t["plans"] for t in runs])
    return p.reason.isin(["replanned", "retrieved"]).sum()


def group_in_line(runs: list[Tables]) -> float:
    a = pd.concat([t["actions"] for t in runs])
    return a[a.decision_point.notna() & (a.agent != "ana")].in_line.mean()


Case = tuple[str, object, object, str, Callable[[list[Tables]], float], dict[str, object]]
NAIVE_RECALL = {
    "retrieval.relevance_weight": 0.2,
    "retrieval.recency_weight": 1.5,
    "retrieval.top_k": 2,
}


def _dialogue(runs: list[Tables]) -> pd.DataFrame:
    return pd.concat([t["dialogue"] for t in runs])


def safety_scripts(runs: list[Tables]) -> int:
    """Replies that give the safety script (its emergency number)."""
    d = _dialogue(runs)
    return int((d["turn"].eq("reply") & d["text"].str.contains("12356", na=False)).sum())


def exam_answered_right(runs: list[Tables]) -> int:
    d = _dialogue(runs)
    return int(
        (d["turn"].eq("reply") & d["proposition"].eq("exam_day") & d["value"].eq("thursday")).sum()
    )


def holds(runs: list[Tables]) -> int:
    return int(sum(t["plans"]["reason"].eq("hold").sum() for t in runs))


def unprompted(runs: list[Tables]) -> int:
    return int(_dialogue(runs)["turn"].eq("proactive").sum())


def kept_lessons(runs: list[Tables]) -> int:
    return int(sum(t["lessons"]["gate"].eq("kept").sum() for t in runs))


CHATTY = {"companion.hold_strength": 0.1, "companion.talk_budget": 8}


# (parameter, low value, high value, scenario, behaviour, other values held for the case):
# behaviour(high) > behaviour(low)
CASES: list[Case] = [
    ("memory.keep_source", False, True, "public_fact", named_sources),
    ("memory.capacity", 2000, 20, "public_fact", evictions),  # a smaller memory evicts
    ("memory.importance_threshold", 1.0, 0.6, "public_fact", relevant_recall, NAIVE_RECALL),
    ("memory.keep_source_on_summary", False, True, "replan_bridge", named_sources),
    (
        "retrieval.top_k",
        1,
        10,
        "public_fact",
        relevant_recall,
        {"retrieval.relevance_weight": 0.2, "retrieval.recency_weight": 1.5},
    ),
    ("retrieval.relevance_weight", 0.0, 3.0, "public_fact", relevant_recall),
    (
        "retrieval.recency_weight",
        0.0,
        3.0,
        # the word of the closure is the newest thing its hearers know: recency brings it up
        "replan_bridge_rumor",
        relevant_recall,
        {"retrieval.relevance_weight": 0.2, "retrieval.top_k": 2},
    ),
    ("retrieval.plan_context", "target", "route", "replan_bridge", relevant_recall),
    ("belief.second_hand_cap", 0.3, 1.0, "public_fact", hearsay_confidence),
    ("belief.independent_origins", True, False, "replan_bridge_rumor", rumor_hardening),
    ("hedging.mark_second_hand", False, True, "public_fact", sourced_hearsay),
    (
        "hedging.qualifier_threshold",
        0.95,
        0.0,
        "public_fact",
        certain_share,
        {"hedging.mark_second_hand": False, "trust.prior": 0.9, "belief.second_hand_cap": 1.0},
    ),
    ("sharing.proactive", 0.1, 1.0, "public_fact", utterances),
    ("sharing.claims_per_chat", 1, 5, "gossip", claims_per_chat),
    ("sharing.respect_privacy", True, False, "secret", leaks),
    ("sharing.privacy_threshold", 0.2, 0.95, "secret", leaks),
    # a lax usefulness bar spreads the public fact, a strict one keeps it local
    ("sharing.usefulness_threshold", 0.6, 0.0, "public_fact", census_reach),
    ("trust.prior", 0.3, 0.9, "public_fact", hearsay_confidence),
    ("trust.learning_rate", 0.0, 0.8, "replan_bridge_rumor", trust_movement),
    ("replan.trigger_confidence", 0.95, 0.2, "replan_bridge", replans),
    (
        "replan.notify_group",
        False,
        True,
        "replan_bridge",
        group_in_line,
        {"sharing.proactive": 0.0},
    ),
    ("motivation.talk_budget", 1, 60, "gossip", utterances),
    # a character who talks with people outside the simulation (tests/companion has the
    # benefit and the cost of each)
    ("safety.crisis_sensitivity", 0.2, 0.9, "companion_crisis", safety_scripts),
    ("companion.recall_threshold", 0.1, 0.6, "companion_weeks", exam_answered_right),
    (
        "companion.hold_strength",
        0.1,
        0.9,
        "companion_checkins",
        holds,
        {"companion.talk_budget": 8},
    ),
    (
        "companion.talk_budget",
        1,
        8,
        "companion_checkins",
        unprompted,
        {"companion.hold_strength": 0.1},
    ),
    ("lessons.min_evidence", 4, 1, "companion_checkins", kept_lessons, CHATTY),
    ("lessons.min_counter", 2, 0, "companion_checkins", kept_lessons, CHATTY),
]


CASES = [c if len(c) == 6 else (*c, {}) for c in CASES]  # type: ignore[misc]


def test_every_parameter_has_a_directional_case():
    # the reference agent's surface; the LLM agent's (prompt.*, llm.*) moves only that agent
    # (tests/llm)
    theirs = {p.name for p in WHITELIST if p.family not in ("prompt", "llm")}
    assert {c[0] for c in CASES} == theirs


@pytest.mark.parametrize(
    "name, low, high, scenario, behaviour, held", CASES, ids=[c[0] for c in CASES]
)
def test_parameter_moves_its_behaviour(name, low, high, scenario, behaviour, held):
    fixed = tuple(sorted(held.items()))
    at_low = behaviour(traces(scenario, (*fixed, (name, low))))
    at_high = behaviour(traces(scenario, (*fixed, (name, high))))
    assert at_high > at_low, f"{name}: {behaviour.__name__} {at_low} → {at_high}"
