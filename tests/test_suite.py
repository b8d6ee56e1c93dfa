"""The controlled suite: baseline shows each failure mode, careful beats it on each scenario's
main metric (paired, interval above zero), and careful is not optimal: one-dimensional
sweeps each buy one metric with another, and six parameters have an interior optimum."""

from __future__ import annotations

from functools import cache

import pytest

from experiments.evaluation.evaluate import Execution, Instrument, evaluate
from policies import load_policy
from scenarios import load_suite
from scorecards import compare

from .conftest import ROOT

SERIAL = Execution(serial=True)
SEEDS = load_suite().seeds.selection
# each scenario's headline: (metric, the baseline's failure: (op, value))
MAIN = {
    "public_fact": ("action_consistency", ("<", 0.5)),  # it walks to the closed bakery
    # each hearer is judged by what it was told: the failure is the hardening itself, counted
    # at whoever hardened "might leave" into "is leaving"
    "rumor": ("false_certainty_rate", (">", 0.2)),
    "replan_bridge": ("action_consistency", ("<", 0.95)),
    # the baseline recalls no other meeting place, so the false rumor cannot move it: its
    # failure there is hardening the rumor into certainty (a fifth of its distinct claims)
    "replan_bridge_rumor": ("false_certainty_rate", (">", 0.15)),
    "secret": ("containment", ("<", 0.95)),
    # two probes a seed make probe_recall too coarse for a paired interval over five seeds
    "mango_recall": ("provenance", ("<", 0.5)),
    "superseded": ("provenance", ("<", 0.8)),
    "picnic_request": ("request_fulfilment", ("<", 1.0)),
    "room_two_days": ("action_consistency", ("<", 0.5)),
}


@cache
def card(policy: str, scenarios: tuple[str, ...] = tuple(load_suite().scenarios)):  # type: ignore[no-untyped-def]
    instrument = Instrument.load(scenarios)
    return evaluate(
        load_policy(ROOT / "policies" / f"{policy}.yaml"), instrument, SEEDS, SERIAL
    ).scorecard


@pytest.mark.parametrize("scenario", sorted(MAIN))
def test_baseline_shows_the_failure_mode(scenario):
    metric, (op, value) = MAIN[scenario]
    got = card("baseline").scenarios[scenario][metric].mean
    assert got < value if op == "<" else got > value, f"{scenario}: {metric} = {got}"


@pytest.mark.parametrize("scenario", sorted(MAIN))
def test_careful_beats_baseline_on_the_main_metric(scenario):
    metric, _ = MAIN[scenario]
    definition = Instrument.load([scenario]).definition
    c = compare(card("careful"), card("baseline"), definition)
    (diff,) = [d for d in c.metrics if d.scenario == scenario and d.metric == metric]
    better = (
        diff.diff
        if diff.direction == "max"
        else type(diff.diff)(-diff.diff.mean, -diff.diff.ci_high, -diff.diff.ci_low, diff.diff.n)
    )
    assert better.ci_low > 0, f"{scenario}/{metric}: {diff.diff}"


def test_the_room_is_lived_through_by_both():
    """The room's life does not hinge on the information policy: both pass it. (Its
    information failure is where she looks for paint: see MAIN.)"""
    for policy in ("baseline", "careful"):
        scenarios = card(policy).scenarios
        assert scenarios["room_two_days"]["milestones"].mean >= 1
        assert scenarios["room_two_days"]["conservation_violations"].mean == 0


def sweep_point(changes: dict, scenarios: tuple[str, ...]):  # type: ignore[no-untyped-def]
    policy = load_policy(ROOT / "policies" / "careful.yaml").with_values(changes)
    return evaluate(policy, Instrument.load(scenarios), SEEDS, SERIAL).scorecard.scenarios


def test_sharing_more_raises_reach_and_costs_containment():
    leaky = {"sharing.respect_privacy": False}
    shy = sweep_point({**leaky, "sharing.proactive": 0.1}, ("secret",))["secret"]
    chatty = sweep_point({**leaky, "sharing.proactive": 0.9}, ("secret",))["secret"]
    assert chatty["reach"].mean > shy["reach"].mean
    assert chatty["containment"].mean < shy["containment"].mean


def test_public_facts_stay_local_unless_judged_useful():
    """A public fact goes only to listeners its teller judges it useful to (from what it
    remembers of them): a strict bar keeps "the bakery is closed tomorrow" local - and keeps
    the mango rumor's hearsay from drowning its source - while a lax one spreads it; a weaker
    urge to share spreads it less."""
    both = ("public_fact", "mango_recall")
    strict = sweep_point({"sharing.usefulness_threshold": 0.6}, both)
    lax = sweep_point({"sharing.usefulness_threshold": 0.0}, both)
    assert strict["public_fact"]["reach"].mean < 0.2
    assert lax["public_fact"]["reach"].mean > 0.8
    # hearsay that spreads drowns the mango rumor's source in the one agent interviewed
    assert strict["mango_recall"]["probe_recall"].mean > lax["mango_recall"]["probe_recall"].mean
    shy = sweep_point({"sharing.proactive": 0.1}, ("public_fact",))["public_fact"]
    chatty = sweep_point({"sharing.proactive": 1.0}, ("public_fact",))["public_fact"]
    assert shy["reach"].mean < 0.6
    assert chatty["reach"].mean > 0.9


def test_an_eager_replanning_trigger_helps_true_blockages_and_wastes_trips_on_rumors():
    both = ("replan_bridge", "replan_bridge_rumor")
    eager = sweep_point({"replan.trigger_confidence": 0.2}, both)
    middle = sweep_point({"replan.trigger_confidence": 0.4}, both)
    slow = sweep_point({"replan.trigger_confidence": 0.8}, both)
    true, false = "replan_bridge", "replan_bridge_rumor"
    assert eager[true]["action_consistency"].mean > slow[true]["action_consistency"].mean
    assert eager[false]["action_consistency"].mean < slow[false]["action_consistency"].mean
    total = {
        k: p[true]["action_consistency"].mean + p[false]["action_consistency"].mean
        for k, p in (("eager", eager), ("middle", middle), ("slow", slow))
    }
    assert total["middle"] > max(total["eager"], total["slow"])  # an interior optimum


def test_credulity_speeds_true_facts_and_hardens_rumors():
    held = {"trust.prior": 0.9, "belief.independent_origins": False}
    both = ("replan_bridge", "rumor")
    doubtful = sweep_point({**held, "belief.second_hand_cap": 0.3}, both)
    credulous = sweep_point({**held, "belief.second_hand_cap": 1.0}, both)
    assert (
        credulous["replan_bridge"]["action_consistency"].mean
        > doubtful["replan_bridge"]["action_consistency"].mean
    )
    assert (
        credulous["rumor"]["uncertainty_preservation"].mean
        < doubtful["rumor"]["uncertainty_preservation"].mean
    )


def sweep_objective(changes: dict, scenarios: tuple[str, ...]) -> float:
    policy = load_policy(ROOT / "policies" / "careful.yaml").with_values(changes)
    objective = evaluate(policy, Instrument.load(scenarios), SEEDS, SERIAL).scorecard.objective
    assert objective is not None
    return objective


# parameter → (the scenarios where its trade-off shows, (low, middle, high), what each end costs)
INTERIOR = {
    # sharing more carries the blockage news and the rumor further than their sources
    # (provenance, uncertainty); sharing less leaves the secret's own audience uninformed
    "sharing.proactive": (("secret", "replan_bridge", "rumor"), (0.1, 0.6, 1.0)),
    # a strict privacy bar withholds the useful rumor-correction, a lax one leaks the secret
    "sharing.privacy_threshold": (("rumor", "secret"), (0.05, 0.45, 1.0)),
    # an eager trigger replans on the false rumor, a slow one misses the true blockage and the
    # bakery's early closing
    "replan.trigger_confidence": (("replan_bridge_rumor", "picnic_request"), (0.2, 0.4, 0.8)),
    # a doubting stranger ignores a true tip, a credulous one acts on a false rumor
    "trust.prior": (("replan_bridge_rumor", "picnic_request"), (0.5, 0.9, 1.0)),
    # hearsay capped low is never acted on; uncapped, it hardens into false certainty
    "belief.second_hand_cap": (("mango_recall", "picnic_request"), (0.2, 0.8, 1.0)),
    # (retrieval.top_k is not here: its cost, recalling mostly what is beside the point, was
    # memory_noise - the agent's own report, weighed 0 since issue 26 - and no observable
    # metric sees it yet: 3 no longer beats both 1 and 10)
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(INTERIOR))
def test_an_interior_optimum_of_the_objective(name):
    """Each end of the range buys something and costs more than it buys: the middle value
    beats both ends on the objective of the scenarios where the trade-off shows."""
    scenarios, (low, middle, high) = INTERIOR[name]
    got = {v: sweep_objective({name: v}, scenarios) for v in (low, middle, high)}
    assert got[middle] > max(got[low], got[high]), f"{name}: {got}"
