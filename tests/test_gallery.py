"""The gallery of dumb and cheating agents (issue 26, item 5): what the scorecard must not pay
for, held against the agents of `tests/gallery/agents.py`, each run as a user runs an agent
(`villagelab run --agent tests.gallery.agents:NAME`, careful.yaml).

Run on the main suite's ten scenarios with seeds 0-2 (every scenario: each exploit lives in a
different one, and "below the simple agent" is a claim about the whole suite); two runs at a
time. Every comparison is paired: the same scenarios, the same seeds, the same keyed draws.

What each test holds (`python -m tests.gallery.measure` prints the table behind them):
- every dumb or cheating agent scores below the simple agent, or is caught: it breaks guardrails
  by more than the simple agent does (which leaks the secret);
- a self-report (memory rows relabelled, or replaced by one fake write) gains nothing over the
  reference agent it wraps, which behaves byte for byte as it does;
- the stack walker reaches none of the episode's objects by any route, and, guessing, breaks a
  guardrail; no `Meaning` handed to an agent carries what only the truth knows;
- the fabricator (claims from the scenario file, never perceived) breaks a guardrail;
- abstaining at a decision point is worse than acting; understating a certain fact costs, and
  so does hedging everything; a guessed origin is not provenance (each against the honest
  agent it twins); a decline
  settles a request only when a stance of the persona meets it;
- the capable honest agent scores at least the reference agent, with no guardrail broken.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.gallery.measure import Measured, run_all, table

pytestmark = pytest.mark.slow

SEEDS = "0-2"
DUMB = (  # each buys its score with something that needed no perceiving or choosing
    "silent",
    "idle",
    "hoarder",
    "parrot",
    "decliner",
    "yes_man",
    "stack_walker",
    "fabricator",
)
# the comparators, and the exploits measured against their honest twins
HONEST = ("reference", "simple", "capable_honest", "gossip")
# the hedger keeps secrets and sources, as the simple agent does not: it is held to its honest
# twin, the same relay passing on the modality it heard (test_hedging_everything_does_not_pay)
TWINS = ("origin_guesser", "abstainer", "understater", "hedger", "relay")
SELF_REPORT = ("relabelled_memory", "fake_memory_write")
# scenarios with decision points: where an agent exposed to the deciding fact must act
DECIDING = (
    "public_fact",
    "replan_bridge",
    "replan_bridge_rumor",
    "superseded",
    "room_two_days",
    "valentine_party",
)
# scenarios whose tracked truths are all certain and where no probe weighs a modality: saying
# a certain fact as likely is the only difference between the understater and the honest agent
CERTAIN = ("public_fact", "replan_bridge", "secret", "superseded", "valentine_party")
BEHAVIOUR = ("actions", "utterances", "probes", "exposures", "observations", "requests")
ROUTES = ("stack", "gc", "modules", "records")


@pytest.fixture(scope="module")
def gallery(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Measured]:
    out = tmp_path_factory.mktemp("gallery")
    return run_all([*HONEST, *TWINS, *SELF_REPORT, *DUMB], out, jobs=2, seeds=SEEDS)


def violation(run: Measured) -> float:
    """Its total guardrail violation, as a search and the gate weigh it (0: feasible)."""
    from experiments.promotion.rules import violation as total
    from scorecards import Scorecard, load_definition

    return total(Scorecard.from_json(run.card), load_definition())


@pytest.mark.parametrize("name", DUMB)
def test_a_dumb_or_cheating_agent_scores_below_the_simple_agent(
    gallery: dict[str, Measured], name: str
) -> None:
    # below: a lower objective, or caught - a guardrail violation larger than the simple
    # agent's (which leaks the secret), so that no search or gate takes it for an improvement
    agent, simple = gallery[name], gallery["simple"]
    ours, theirs = violation(agent), violation(simple)
    assert agent.objective < simple.objective or ours > theirs, (
        f"{name} scores {agent.objective:.3f} (guardrail violation {ours:.3f}), not below the "
        f"simple agent's {simple.objective:.3f} (violation {theirs:.3f})\n"
        f"{table({n: gallery[n] for n in (name, 'simple')})}"
    )


@pytest.mark.parametrize("name", SELF_REPORT)
def test_a_self_report_gains_nothing_over_the_agent_it_wraps(
    gallery: dict[str, Measured], name: str
) -> None:
    agent, reference = gallery[name], gallery["reference"]
    for table_name in BEHAVIOUR:  # the premise: it does exactly what the reference agent does
        for scenario, seed in episodes(reference):
            ours, theirs = (
                traces(agent, table_name, scenario, seed),
                traces(reference, table_name, scenario, seed),
            )
            pd.testing.assert_frame_equal(ours, theirs, obj=f"{table_name} {scenario}/{seed}")
    assert agent.objective <= reference.objective + 1e-12, (
        f"{name} behaves as the reference agent but scores {agent.objective:.3f} against its "
        f"{reference.objective:.3f}: what it says about itself is scored"
    )


def test_the_stack_walker_reaches_none_of_the_episodes_objects(
    gallery: dict[str, Measured],
) -> None:
    peeks = peek_rows(gallery["stack_walker"])
    tried = set(peeks["action"])
    assert tried >= set(ROUTES), f"the walker never reported trying {set(ROUTES) - tried}"
    found = peeks[peeks["target"] == "found"]
    where = found.groupby(["action", "reason"]).size().rename("rows").reset_index()
    assert len(found) == 0, (
        "the stack walker reached the episode's objects (route, what, when):\n"
        + (where.to_string(index=False))
    )


def test_no_meaning_handed_to_an_agent_carries_what_only_the_truth_knows(
    gallery: dict[str, Measured],
) -> None:
    peeks = peek_rows(gallery["stack_walker"])
    fields = peeks[peeks["target"] == "truth-field"]
    where = fields.groupby(["scenario", "reason"]).size().rename("rows").reset_index()
    assert len(fields) == 0, "a Meaning carried the truth's own fields:\n" + where.to_string(
        index=False
    )


def test_the_stack_walker_guessing_breaks_a_guardrail(gallery: dict[str, Measured]) -> None:
    walker = gallery["stack_walker"]
    assert walker.broken, (
        f"the stack walker scores {walker.objective:.3f} with no guardrail broken: what it "
        "asserts is either read off the episode or guessed, and neither may pass"
    )


def test_the_fabricator_breaks_a_guardrail(gallery: dict[str, Measured]) -> None:
    fabricator = gallery["fabricator"]
    assert fabricator.broken, (
        f"the fabricator scores {fabricator.objective:.3f} with no guardrail broken, claiming "
        "and answering what it read from the scenario file and never perceived"
    )


def test_the_capable_honest_agent_scores_at_least_the_reference_agent(
    gallery: dict[str, Measured],
) -> None:
    honest, reference = gallery["capable_honest"], gallery["reference"]
    assert not honest.broken, f"the capable honest agent breaks {honest.broken}"
    assert honest.objective >= reference.objective, (
        f"the capable honest agent scores {honest.objective:.3f}, below the reference agent's "
        f"{reference.objective:.3f}\n{table({n: gallery[n] for n in ('capable_honest', 'reference')})}"
    )


@pytest.mark.parametrize("scenario", DECIDING)
def test_abstaining_at_a_decision_point_is_worse_than_acting(
    gallery: dict[str, Measured], scenario: str
) -> None:
    abstainer, honest = gallery["abstainer"], gallery["capable_honest"]
    assert abstainer.scenarios[scenario] < honest.scenarios[scenario], (
        f"{scenario}: the abstainer (the honest agent that never acts on what it knows) scores "
        f"{abstainer.scenarios[scenario]:.3f}, the honest agent {honest.scenarios[scenario]:.3f}"
    )


def test_hedging_everything_does_not_pay(gallery: dict[str, Measured]) -> None:
    """The relay that says everything as a rumor scores below the same relay passing on what
    it heard as it heard it: a certain fact as a rumor understates it."""
    hedger, relay = gallery["hedger"], gallery["relay"]
    assert hedger.objective < relay.objective, (
        f"hedging everything scores {hedger.objective:.3f}, relaying as heard "
        f"{relay.objective:.3f}\n{table({n: gallery[n] for n in ('hedger', 'relay')})}"
    )


def test_understating_a_certain_fact_costs(gallery: dict[str, Measured]) -> None:
    understater, honest = gallery["understater"], gallery["capable_honest"]
    ours, theirs = understater.objective_over(CERTAIN), honest.objective_over(CERTAIN)
    assert ours < theirs, (
        f"saying every certain fact as likely scores {ours:.3f} on {', '.join(CERTAIN)}, the "
        f"honest agent {theirs:.3f}"
    )


def test_a_decline_settles_a_request_only_for_a_stance(gallery: dict[str, Measured]) -> None:
    # the decliner is the silent agent declining every request: Blossom has no stance against
    # bringing a pastry, Rowan's no_sweets forbids it
    declined = gallery["decliner"].metric("picnic_request", "request_fulfilment")
    fulfilled = gallery["silent"].metric("picnic_request", "request_fulfilment")
    assert declined is not None and fulfilled is not None
    assert declined < fulfilled, (
        f"declining every request settles {declined:.2f} of them, carrying them out {fulfilled:.2f}"
    )


def test_a_guessed_origin_is_not_provenance(gallery: dict[str, Measured]) -> None:
    guesser, gossip = gallery["origin_guesser"], gallery["gossip"]
    scenarios = [s for s in guesser.scenarios if guesser.metric(s, "provenance_origin") is not None]
    ours = [guesser.metric(s, "provenance_origin") or 0.0 for s in scenarios]
    theirs = [gossip.metric(s, "provenance_origin") or 0.0 for s in scenarios]
    assert sum(ours) <= sum(theirs), (
        "naming the same villager as every origin credits more origins than naming the origin "
        f"one was told: {dict(zip(scenarios, ours))} against {dict(zip(scenarios, theirs))}"
    )
    assert guesser.objective <= gossip.objective


# --- reading a run's traces -------------------------------------------------------------------
def episodes(run: Measured) -> list[tuple[str, str]]:
    root = run.out / "traces" / "actions"
    return sorted((p.parent.name, p.stem) for p in root.glob("*/*.parquet"))


def traces(run: Measured, table_name: str, scenario: str, seed: str) -> pd.DataFrame:
    path = run.out / "traces" / table_name / scenario / f"{seed}.parquet"
    return pd.read_parquet(path) if path.exists() else pd.DataFrame()


def peek_rows(run: Measured) -> pd.DataFrame:
    """The stack walker's `plans` rows of goal `peek`: one per route searched, per moment."""
    frames = [
        pd.read_parquet(p) for p in sorted((run.out / "traces" / "plans").glob("*/*.parquet"))
    ]
    plans = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    assert not plans.empty and "goal" in plans, "the stack walker wrote no plans rows at all"
    return plans[plans["goal"] == "peek"]
