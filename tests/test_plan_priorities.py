"""Plan priorities: a plan made from news (a party) that weighs more than a standing errand at
the same hour displaces it for that day, and the drop is traced; a tie keeps the errand. The
decision metrics then score going to the party as in line and the cafe as stale."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness import run_episode
from harness.agents import AGENT_KINDS
from harness.agents.reference.model.planning import displaced_errands
from policies import InputError, load_policy
from scenarios import load_scenario
from scorecards.metrics import METRICS
from scorecards.metrics._base import EpisodeTables

from .conftest import ROOT

CLASH = ROOT / "tests" / "scenarios" / "party_clash.yaml"
TEXT = CLASH.read_text()
PARTY = "sense: gathering, priority: 1}"
SEEDS = (0, 1)


def variant(tmp_path: Path, old: str, new: str) -> Path:
    assert old in TEXT
    path = tmp_path / "party.yaml"
    path.write_text(TEXT.replace(old, new))
    return path


def episode(path: Path, seed: int, agent: str = "reference") -> EpisodeTables:
    careful = load_policy(ROOT / "policies" / "careful.yaml")
    tables = run_episode(load_scenario(path), careful, seed, AGENT_KINDS[agent])
    return EpisodeTables({k: v.to_pandas() for k, v in tables.items()})


def metric(name: str, t: EpisodeTables) -> float | None:
    return METRICS[name].evaluate(t)


def evening_day2(t: EpisodeTables) -> pd.DataFrame:
    acts = t["actions"]
    return acts[acts.decision_point == "evening_day2"]


def test_a_weightier_party_displaces_the_evening_errand_and_the_drop_is_traced():
    for seed in SEEDS:
        t = episode(CLASH, seed)
        decided = evening_day2(t)
        assert sorted(decided.agent) == ["ana", "bo", "cai"]
        assert set(decided.target) == {"tavern"}
        # nobody also goes for coffee on day 2: the errand is dropped for the day, not deferred
        acts = t["actions"]
        day2 = acts[acts.tick >= 24 * 60 // 5]
        assert set(day2.target) == {"tavern"}
        plans = t["plans"]
        dropped = plans[plans.reason == "displaced"]
        assert sorted(dropped.agent) == ["ana", "bo", "cai"]
        assert set(dropped.goal) == {"coffee@2"} and set(dropped.target) == {"cafe"}
        # the evening plan for day 2 does not bring the dropped errand back
        assert not len(plans[(plans.goal == "coffee@2") & (plans.reason != "displaced")])
        assert metric("action_consistency", t) == 1.0
        assert metric("stale_action_rate", t) == 0.0


def test_without_a_priority_the_errand_stands_and_the_cafe_is_stale(tmp_path):
    path = variant(tmp_path, PARTY, "sense: gathering}")
    for seed in SEEDS:
        t = episode(path, seed)
        assert set(evening_day2(t).target) == {"cafe"}
        assert "displaced" not in set(t["plans"].reason)
        assert metric("action_consistency", t) == 0.0
        assert metric("stale_action_rate", t) == 1.0


def test_a_tie_keeps_the_standing_errand(tmp_path):
    path = variant(
        tmp_path,
        "action: meet, target: cafe}\n  - id: bo",
        "action: meet, target: cafe, priority: 1}\n  - id: bo",
    )
    t = episode(path, 0)
    decided = evening_day2(t).set_index("agent").target
    assert decided["ana"] == "cafe"  # its errand weighs as much as the party: it stands
    assert decided["bo"] == "tavern" and decided["cai"] == "tavern"
    plans = t["plans"]
    assert sorted(plans[plans.reason == "displaced"].agent) == ["bo", "cai"]


def test_news_heard_after_the_evening_plan_drops_the_plan_already_made(tmp_path):
    path = variant(tmp_path, "at: day 1 09:00, kind: notice", "at: day 2 10:00, kind: notice")
    t = episode(path, 0)
    plans = t["plans"]
    made = plans[(plans.goal == "coffee@2") & (plans.reason == "routine")]
    dropped = plans[plans.reason == "displaced"].set_index("agent")
    assert len(made) == 3 and len(dropped) == 3
    # the row names the plan that was dropped
    assert dict(zip(made.agent, made.plan_id)) == dict(dropped.plan_id)
    assert set(evening_day2(t).target) == {"tavern"}


def test_the_simple_agent_keeps_its_errand():
    t = episode(CLASH, 0, "simple")
    assert set(evening_day2(t).target) == {"cafe"}
    assert metric("stale_action_rate", t) == 1.0


def test_only_errands_due_in_the_gatherings_first_hour_and_of_lower_priority_are_displaced():
    spec = load_scenario(CLASH).agents[0]  # coffee at 17:00 on days 1 and 2, priority 0
    day2 = 24 * 60
    assert [e.id for e in displaced_errands(spec, 2, day2 + 17 * 60, 1)] == ["coffee"]
    assert [e.id for e in displaced_errands(spec, 2, day2 + 16 * 60 + 1, 1)] == ["coffee"]
    assert displaced_errands(spec, 2, day2 + 16 * 60, 1) == []  # due an hour after: free
    assert displaced_errands(spec, 2, day2 + 17 * 60 + 5, 1) == []  # due before it starts
    assert displaced_errands(spec, 2, day2 + 17 * 60, 0) == []  # a tie keeps the errand
    assert displaced_errands(spec.model_copy(update={"errands": ()}), 2, day2, 5) == []


@pytest.mark.parametrize(
    "old, new, expected",
    [
        (
            "target: cafe}\n  - id: bo",
            "target: cafe, priority: 101}\n  - id: bo",
            ["party.yaml:38", "agents[0].errands[0].priority", "less than or equal to 100"],
        ),
        (
            "target: cafe}\n  - id: bo",
            "target: cafe, priority: -1}\n  - id: bo",
            ["party.yaml:38", "agents[0].errands[0].priority", "greater than or equal to 0"],
        ),
        (
            "target: cafe}\n  - id: bo",
            "target: cafe, priority: high}\n  - id: bo",
            ["party.yaml:38", "agents[0].errands[0].priority", "integer"],
        ),
        (
            PARTY,
            "sense: gathering, priority: 1000}",
            ["party.yaml:14", "predicates.party_on.priority", "less than or equal to 100"],
        ),
        (
            PARTY,
            "sense: unusable, priority: 1}",
            [
                "party.yaml:14",
                "predicates.party_on.priority",
                "a priority only on a predicate whose sense makes a plan of its own (gathering)",
                "'party_on' has sense 'unusable'",
            ],
        ),
        (
            PARTY,
            "priority: 0}",
            ["predicates.party_on.priority", "'party_on' has no sense, which makes none"],
        ),
    ],
)
def test_a_misused_priority_is_refused_where_it_is_written(tmp_path, old, new, expected):
    with pytest.raises(InputError) as info:
        load_scenario(variant(tmp_path, old, new))
    for part in expected:
        assert part in str(info.value), str(info.value)
