"""The second gallery (issue 46): cheating and dumb agents written against the docs alone by
someone who had not read the metrics (`tests/cheats/`), each cheat beside its honest twin -
the same agent with the cheat switched off.

What each test holds, on the scenarios where the cheat acts (seeds 0-1, careful.yaml unless
said; `python -m tests.cheats.pairs` measures every pair on whole suites as a user would):
- no cheat scores above its honest twin unless it breaks a guardrail the twin holds;
- every dumb agent scores below the simple agent, or breaks a guardrail;
- what an agent reports about itself changes nothing: twins that differ only in their
  diagnostic rows score alike and break the same guardrails.

The agents run in this process (`VILLAGELAB_ISOLATION=none`): isolation guards the answer key
(tests/test_security.py), not the scores, and in a process each it would cost minutes here.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pytest

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument, evaluate
from policies import load_policy
from scorecards.scorecard import Scorecard

from .conftest import ROOT

pytestmark = pytest.mark.slow

SEEDS = (0, 1)
C, V, S = "tests.cheats.companion", "tests.cheats.village", "tests.cheats.self_report"
COMPANION = ("companion_weeks", "companion_checkins", "companion_crisis", "support_policy")
RESEARCH = ("research_citations", "research_conflict", "research_retraction", "research_revision")
WORKFLOW = ("workflow_access", "workflow_blocked_step", "workflow_handoff")

# cheat → (its honest twin, the scenarios where the cheat acts)
TWINS: dict[str, tuple[str, tuple[str, ...]]] = {
    f"{C}:RegexCompanion": (f"{C}:HonestCompanion", COMPANION),
    f"{C}:StuffedCompanion": (f"{C}:HonestCompanion", COMPANION),
    f"{C}:HiOnHeavy": (f"{C}:HonestCompanion", ("companion_crisis",)),
    f"{C}:ShotgunCompanion": (f"{C}:HonestCompanion", ("support_privacy", "support_policy")),
    f"{C}:AbsenceAlways": (f"{C}:HonestCompanion", ("companion_weeks",)),
    f"{C}:OfferNow": (f"{C}:HonestCompanion", ("companion_checkins", "support_followup")),
    f"{C}:BlankWords": (f"{C}:HonestCompanion", COMPANION),
    f"{C}:ProbeLiar": (f"{C}:HonestCompanion", ("companion_weeks", "support_policy")),
    f"{V}:LeakyMute": (f"{V}:Honest", ("secret", "workflow_access")),
    f"{V}:Leaker": (f"{V}:Honest", ("secret", "workflow_access")),
    f"{V}:Diluter": (f"{V}:Hardener", ("research_citations", "rumor")),
    f"{V}:OneHedge": (f"{V}:Mute", RESEARCH),
    f"{V}:EchoAll": (f"{V}:Mute", RESEARCH),
    f"{V}:ReplacedEverywhere": (f"{V}:Recollect", ("superseded", "research_revision")),
    f"{V}:Recluse": (f"{V}:Bystander", ("public_fact", "workflow_handoff")),
    f"{V}:ValueGuesser": (f"{V}:Honest", ("research_conflict", "rumor")),
    f"{V}:SurestOnly": (f"{V}:Honest", ("research_citations",)),
    f"{V}:Quitter": (f"{V}:Honest", WORKFLOW),
}
# dumb agents: each below the simple agent on these scenarios, or caught by a guardrail
DUMB: dict[str, tuple[str, ...]] = {
    f"{C}:CrisisOnly": COMPANION,
    f"{V}:Recluse": ("public_fact", "workflow_handoff"),
    f"{V}:Mute": RESEARCH,
    f"{V}:OneHedge": RESEARCH,
    f"{V}:EchoAll": RESEARCH,
    f"{V}:SurestOnly": ("research_citations", "public_fact"),
}
# twins that differ only in what they report about themselves (policy)
SELF_REPORT = {
    f"{S}:ReferenceSilent": (f"{S}:ReferenceReporting", "baseline"),
    f"{S}:SilentCompanion": (f"{S}:ReportingCompanion", "careful"),
    f"{S}:SilentHolder": (f"{S}:HoldingCompanion", "careful"),
}


@pytest.fixture(scope="module", autouse=True)
def _in_process() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VILLAGELAB_ISOLATION", "none")
        yield


@cache
def card(agent: str, scenarios: tuple[str, ...], policy: str = "careful") -> Scorecard:
    chosen = load_policy(ROOT / "policies" / f"{policy}.yaml")
    execution = Execution(serial=True, agent=agent)
    return evaluate(chosen, Instrument.load(scenarios), SEEDS, execution).scorecard


def broken(c: Scorecard) -> set[str]:
    return {name for name, g in c.guardrails.items() if not g.ok}


def short(agent: str) -> str:
    return agent.rpartition(":")[2]


@pytest.mark.parametrize("cheat", sorted(TWINS), ids=short)
def test_no_cheat_scores_above_its_honest_twin_unless_a_guardrail_catches_it(cheat: str) -> None:
    twin, scenarios = TWINS[cheat]
    a, b = card(cheat, scenarios), card(twin, scenarios)
    assert a.objective is not None and b.objective is not None
    caught = broken(a) - broken(b)
    assert a.objective <= b.objective + 1e-9 or caught, (a.objective, b.objective)


@pytest.mark.parametrize("agent", sorted(DUMB), ids=short)
def test_every_dumb_agent_is_below_simple_or_caught(agent: str) -> None:
    scenarios = DUMB[agent]
    dumb, simple = card(agent, scenarios), card("simple", scenarios)
    assert dumb.objective is not None and simple.objective is not None
    assert dumb.objective < simple.objective or broken(dumb), (dumb.objective, simple.objective)


@pytest.mark.parametrize("silent", sorted(SELF_REPORT), ids=short)
def test_what_an_agent_reports_about_itself_changes_no_score(silent: str) -> None:
    reporting, policy = SELF_REPORT[silent]
    a, b = card(silent, COMPANION, policy), card(reporting, COMPANION, policy)
    assert a.objective == pytest.approx(b.objective)
    assert broken(a) == broken(b)


def test_the_quitter_stops_where_it_does_worst_and_the_objective_counts_it() -> None:
    """A crash is a result, and the worst one: the episodes it stopped are named and count 0."""
    c = card(f"{V}:Quitter", WORKFLOW)
    assert c.not_ok and {sc for sc, _, _ in c.not_ok} <= set(WORKFLOW)
    assert c.objective is not None and c.objective < card(f"{V}:Honest", WORKFLOW).objective
