"""An agent's policy surface: the whitelisted parameters it reads, which is all a search
samples for it. The declarations are checked against what the agents actually read in runs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

import optuna
import pytest

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument, evaluate
from experiments.search.surface import roles_in, sample, searched, unscored_on
from harness.agents.reference import reference_agent
from harness.agents.registry import policy_surface, resolve
from harness.engine.episode import Episode
from policies import BY_NAME, WHITELIST, InputError, Policy, load_policy
from policies import policy as policy_module
from scenarios import builtin_names, load_scenario
from scenarios.suite import load_suite, suite_path

from .conftest import ROOT

REFERENCE = resolve("reference")


@contextmanager
def reads_by_agents() -> Iterator[set[str]]:
    """The parameter names code under harness.agents reads from a Policy while inside."""
    names: set[str] = set()
    plain = policy_module.Policy.__getitem__

    def recording(self: Policy, name: str):  # type: ignore[no-untyped-def]
        if sys._getframe(1).f_globals.get("__name__", "").startswith("harness.agents"):
            names.add(name)
        return plain(self, name)

    policy_module.Policy.__getitem__ = recording  # type: ignore[method-assign]
    try:
        yield names
    finally:
        policy_module.Policy.__getitem__ = plain  # type: ignore[method-assign]


def test_the_reference_agent_reads_exactly_its_declared_surface():
    with reads_by_agents() as read:
        for policy in ("baseline", "careful"):
            for name in builtin_names():
                scenario = load_scenario(name)
                Episode(
                    scenario, load_policy(ROOT / "policies" / f"{policy}.yaml"), 0, reference_agent
                ).run()
    assert read == set(REFERENCE.surface)  # nothing read undeclared, nothing declared unread


@pytest.mark.parametrize("suite", ["main", "companion", "workflow", "research"])
def test_a_suite_searches_exactly_what_the_reference_agent_reads_on_it(suite):
    # a parameter that acts for no agent of the suite is not searched there: read-tracking
    # over the suite's scenarios checks the whitelist's `acts_for` declarations
    scenarios = [load_scenario(name) for name in load_suite(suite_path(suite)).scenarios]
    with reads_by_agents() as read:
        for policy in ("baseline", "careful"):
            for scenario in scenarios:
                Episode(
                    scenario, load_policy(ROOT / "policies" / f"{policy}.yaml"), 0, reference_agent
                ).run()
    unscored = unscored_on(suite, [s.name for s in scenarios])
    surface, notice = searched(REFERENCE, scenarios, unscored)
    assert read - set(unscored) == set(surface), notice
    assert "are not searched" in notice  # each suite leaves the other's parameters alone


@pytest.mark.parametrize("policy", ["baseline", "careful"])
def test_what_a_suite_declares_unscored_moves_no_metric_on_it(policy):
    # the declaration is checked: each unscored parameter at its two ends scores the same on
    # every metric of every scenario of the suite
    suite = load_suite(suite_path("main"))
    assert suite.unscored == ("trust.learning_rate",)
    instrument = Instrument.load(suite.scenarios)
    start = load_policy(ROOT / "policies" / f"{policy}.yaml")
    for name in suite.unscored:
        low, high = BY_NAME[name].low, BY_NAME[name].high
        cards = [
            evaluate(
                start.with_values({name: end}), instrument, (0, 1), Execution(serial=True)
            ).scorecard.to_json()["scenarios"]
            for end in (cast(float, low), cast(float, high))
        ]
        assert cards[0] == cards[1], name


def test_an_unscored_parameter_is_searched_once_a_scenario_of_ones_own_joins(tmp_path):
    scenarios = load_suite(suite_path("main")).scenarios
    assert unscored_on(None, scenarios) == ("trust.learning_rate",)
    surface, notice = searched(
        REFERENCE, [load_scenario(n) for n in scenarios], ("trust.learning_rate",)
    )
    assert "trust.learning_rate" not in surface and "no scenario of the suite scores it" in notice
    assert unscored_on(None, [*scenarios, "tests/scenarios/mine.yaml"]) == ()
    bad = tmp_path / "suite.yaml"
    bad.write_text(
        (ROOT / "scenarios" / "suite.yaml")
        .read_text()
        .replace("[trust.learning_rate]", "[trust.bogus]")
    )
    with pytest.raises(InputError, match=r"suite\.yaml: unscored\[0\]: 'trust.bogus' is not"):
        unscored_on(str(bad), scenarios)


def test_a_search_of_the_village_leaves_the_companion_knobs_alone():
    scenarios = [load_scenario(name) for name in load_suite(suite_path("main")).scenarios]
    surface, _ = searched(REFERENCE, scenarios)
    assert not any(n.split(".")[0] in ("safety", "companion", "lessons") for n in surface)
    assert {r.value for r in roles_in(scenarios)} == {"villager"}


def test_every_switch_is_a_bool_sampled_before_what_it_enables():
    order = [p.name for p in WHITELIST]
    for p in WHITELIST:
        if p.requires is not None:
            assert BY_NAME[p.requires].kind == "bool", p.name
            assert order.index(p.requires) < order.index(p.name), p.name


@pytest.mark.parametrize("mode", ["global", "local"])
def test_a_threshold_is_sampled_only_while_its_switch_is_on(mode):
    champion = load_policy(ROOT / "policies" / "careful.yaml")
    surface = ("sharing.respect_privacy", "sharing.privacy_threshold")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=5))
    seen = {True: 0, False: 0}
    for _ in range(40):
        trial = study.ask()
        policy = sample(trial, mode, champion, 0.2, 1, surface)
        on = bool(policy["sharing.respect_privacy"])
        seen[on] += 1
        assert ("sharing.privacy_threshold" in trial.params) == on
        if not on:  # off, the threshold does nothing: the champion's value stays
            assert policy["sharing.privacy_threshold"] == champion["sharing.privacy_threshold"]
        study.tell(trial, 0.0)
    assert seen[True] and seen[False]


def test_the_simple_agent_reads_no_parameter_and_cannot_be_searched():
    simple = resolve("simple")
    with reads_by_agents() as read:
        Episode(load_scenario("rumor"), Policy(), 0, simple.path).run()
    assert read == set() and simple.surface == () and simple.declared
    with pytest.raises(InputError, match="nothing to change"):
        searched(simple, [load_scenario("rumor")])


def test_an_agent_that_declares_nothing_is_searched_over_the_whole_whitelist():
    def factory(setup):  # pragma: no cover - never made here
        raise AssertionError

    names, own, declared = policy_surface(factory, "--agent x")
    assert names == tuple(p.name for p in WHITELIST) and not declared and own == ()
    factory.policy_surface = ("sharing", "trust.prior")  # type: ignore[attr-defined]
    names, own, declared = policy_surface(factory, "--agent x")
    assert declared and set(names) == {
        p.name for p in WHITELIST if p.name.startswith("sharing.")
    } | {"trust.prior"}
    factory.policy_surface = ("sharing.bogus",)  # type: ignore[attr-defined]
    with pytest.raises(InputError, match="'sharing.bogus', not on the whitelist"):
        policy_surface(factory, "--agent x")


@pytest.mark.parametrize("mode", ["global", "local"])
def test_a_search_samples_only_the_surface_and_keeps_the_rest(mode):
    champion = load_policy(ROOT / "policies" / "careful.yaml")
    surface = ("sharing.proactive", "trust.prior", "memory.keep_source")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    changed: set[str] = set()
    for _ in range(30):
        trial = study.ask()
        policy = sample(trial, mode, champion, 0.2, 1, surface)
        sampled = {k for k in trial.params if not k.startswith("flip:")}
        assert sampled <= set(surface)
        changed |= {n for n in policy if policy[n] != champion[n]}
        study.tell(trial, 0.0)
    assert changed == set(surface)  # every surface parameter moves, nothing else does


def _on_grid(name: str, value: float) -> bool:
    p = BY_NAME[name]
    assert p.low is not None
    cells = (value - p.low) / p.spacing
    return abs(cells - round(cells)) < 1e-9 and p.low <= value <= cast(float, p.high)


def test_every_number_has_a_grid_that_divides_its_range_and_holds_its_default():
    for p in WHITELIST:
        if p.kind in ("int", "float"):
            assert p.spacing > 0 and _on_grid(p.name, cast(float, p.default)), p.name


@pytest.mark.parametrize("mode", ["global", "local"])
def test_a_search_samples_numbers_on_their_grid_even_around_an_off_grid_champion(mode):
    # a hand-written policy may hold any value in range; what a search proposes is on the grid
    champion = load_policy(ROOT / "policies" / "careful.yaml").with_values(
        {"trust.prior": 0.4321, "retrieval.recency_weight": 2.987, "memory.capacity": 123}
    )
    surface = ("trust.prior", "retrieval.recency_weight", "memory.capacity", "sharing.proactive")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=7))
    values: dict[str, set[float]] = {name: set() for name in surface}
    for _ in range(60):
        trial = study.ask()
        policy = sample(trial, mode, champion, 0.2, 1, surface)
        for name in surface:
            assert _on_grid(name, cast(float, policy[name])), (name, policy[name])
            values[name].add(cast(float, policy[name]))
        study.tell(trial, 0.0)
    # a grid, not a point: each number still takes several values
    assert all(len(seen) >= 3 for seen in values.values()), values


@pytest.mark.slow
def test_sweeping_a_parameter_the_agent_never_reads_is_refused(cli, tmp_path):
    out = cli(
        "sweep", "--param", "prompt.share", "--values", "eager,discreet", "--scenario", "rumor"
    )
    assert out.returncode == 2, out.stderr
    assert "not on the surface of agent 'reference'" in out.stderr + out.stdout
    assert "Traceback" not in out.stderr
