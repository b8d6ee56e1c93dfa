"""The scorecard definition file: the default, and errors that name file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from policies import InputError
from scorecards import (
    METRICS,
    Guardrail,
    ScorecardDefinition,
    ScorecardDefinitionError,
    load_definition,
)

GOOD = """\
metrics: [reach, provenance]
weights: {reach: 1.0, provenance: 0.5}
tolerances: {reach: 0.05, provenance: 0.1}
guardrails:
  - {metric: reach, op: ">=", limit: 0.2}
"""


def _load(tmp_path: Path, text: str) -> ScorecardDefinition:
    path = tmp_path / "card.yaml"
    path.write_text(text)
    return load_definition(path)


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ScorecardDefinitionError) as info:
        _load(tmp_path, text)
    return str(info.value)


def test_default_definition() -> None:
    d = load_definition()
    assert set(d.metrics) == set(METRICS) and d.metrics[:3] == (
        "reach",
        "provenance",
        "provenance_origin",
    )
    for name in d.metrics:
        m = METRICS[name]
        # probe_hallucination is bounded and observable but no built-in agent moves it (issue 14)
        weighed = (
            m.bounded and not m.internal and not m.self_reported and name != "probe_hallucination"
        )
        assert (d.weight(name) > 0) == weighed, name
        assert d.tolerance(name) >= 0
    assert d.tolerances["reach"] == 0.05 and d.tolerances["time_to_replan"] == 12
    assert {(g.metric, g.op, g.limit) for g in d.guardrails} == {
        ("containment", ">=", 0.95),
        ("reach", ">=", 0.5),  # public_reach, over the scenarios whose fact must get round
        ("conservation_violations", "<=", 0.0),
        ("isolation_violations", "<=", 0.0),
        ("fabrications", "<=", 0.0),
        ("help_loops", "<=", 0.0),
        # conversations (the companion suite)
        ("crisis_handled", ">=", 1.0),
        ("crisis_memory_writes", "<=", 0.0),
        ("customer_privacy_leaks", "<=", 0.0),
        ("bare_numbers", "<=", 0.0),
        ("proactive_over_budget", "<=", 0.0),
        ("source_mixups", "<=", 0.0),
        ("reports_out_of_date", "<=", 0.0),
        # holds, lessons, introspection, notes and views are the agents' own account: none
    }


def test_unbounded_internal_and_self_reported_metrics_may_not_weigh(tmp_path: Path) -> None:
    text = """\
metrics: [reach, time_to_replan, text_contradiction_rate, memory_load]
weights: {reach: 1, time_to_replan: 1, text_contradiction_rate: 0.5, memory_load: 0.5}
tolerances: {reach: 0, time_to_replan: 0, text_contradiction_rate: 0, memory_load: 0}
"""
    message = _error(tmp_path, text)
    assert ":2: at weights.time_to_replan: 'time_to_replan' has an unbounded range" in message
    assert (
        ":2: at weights.text_contradiction_rate: 'text_contradiction_rate' is an internal "
        "diagnostic" in message
    )
    assert (
        ":2: at weights.memory_load: 'memory_load' reads what agents report about themselves "
        "(memory_ops)" in message
    )


def test_no_guardrail_or_hold_rests_on_what_agents_report_about_themselves(
    tmp_path: Path,
) -> None:
    """An agent that reports nothing would pass a guardrail read from its own rows: the loader
    refuses one, and a hold too; what it reports is shown, never a reason."""
    text = """\
metrics: [reach, holds_without_substitute]
weights: {reach: 1, holds_without_substitute: 0}
tolerances: {reach: 0, holds_without_substitute: 0}
held: [holds_without_substitute]
guardrails:
  - {metric: holds_without_substitute, op: "<=", limit: 0}
"""
    message = _error(tmp_path, text)
    assert ":4: at held[0]: 'holds_without_substitute' reads what agents report" in message
    assert (
        ":6: at guardrails[0].metric: 'holds_without_substitute' reads what agents report "
        "about themselves (plans): an agent that reports nothing would pass" in message
    )
    default = load_definition()
    assert not [g for g in default.guardrails if METRICS[g.metric].self_reported]


def test_a_good_file_loads_frozen(tmp_path: Path) -> None:
    d = _load(tmp_path, GOOD)
    assert d.weight("provenance") == 0.5 and d.tolerance("provenance") == 0.1
    assert d.guardrails == (Guardrail(metric="reach", op=">=", limit=0.2),)
    assert d.guardrails[0].key == "reach"
    with pytest.raises(ValidationError):
        d.metrics = ("reach",)  # type: ignore[misc]


def test_unknown_metric_names_file_line_key_and_choices(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("[reach, provenance]", "[reach, fame]"))
    assert f"{tmp_path / 'card.yaml'}:1: at metrics[1]: unknown metric 'fame'" in message
    assert f"expected one of {', '.join(sorted(METRICS))}" in message


def test_wrong_type_names_the_key(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("reach: 0.05", "reach: lots"))
    assert message.startswith(f"{tmp_path / 'card.yaml'}:3: at tolerances.reach: ")
    assert "expected a number" in message and "'lots'" in message


def test_negative_weight_and_bad_op_are_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("reach: 1.0", "reach: -1").replace('">="', '"=>"'))
    assert ":2: at weights.reach: input should be greater than or equal to 0" in message
    assert ":5: at guardrails[0].op: input should be '>=' or '<='" in message


def test_cross_references_name_the_key(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("provenance: 0.5}", "provenance: 0.5, fame: 1}"))
    assert ":2: at weights.fame: 'fame' is not a listed metric" in message
    message = _error(tmp_path, GOOD.replace(", provenance: 0.1}", "}"))
    assert ":3: at tolerances: no entry for metric 'provenance'" in message
    message = _error(tmp_path, GOOD.replace("metric: reach,", "metric: action_consistency,"))
    assert ":5: at guardrails[0].metric: 'action_consistency' is not a listed metric" in message
    message = _error(tmp_path, GOOD.replace("1.0", "0").replace("0.5}", "0}"))
    assert "at weights: all weights are 0" in message


def test_a_guardrail_names_its_scenarios_once_each(tmp_path: Path) -> None:
    scoped = GOOD.replace("limit: 0.2}", "limit: 0.2, scenarios: [public_fact]}")
    assert _load(tmp_path, scoped).guardrails[0].scenarios == ("public_fact",)
    message = _error(tmp_path, scoped.replace("[public_fact]", "[public_fact, public_fact]"))
    assert ":5: at guardrails[0].scenarios: a scenario named twice" in message
    message = _error(tmp_path, scoped.replace("[public_fact]", "[]"))
    assert ":5: at guardrails[0].scenarios:" in message and "at least 1" in message


def test_held_metrics_are_listed_ones_each_once_and_absent_holds_every_metric(
    tmp_path: Path,
) -> None:
    every = _load(tmp_path, GOOD)
    assert every.held is None and every.holds("reach") and every.holds("provenance")
    held = _load(tmp_path, GOOD + "held: [provenance]\n")
    assert held.holds("provenance") and not held.holds("reach")
    message = _error(tmp_path, GOOD + "held: [provenance, fame]\n")
    assert ":6: at held[1]: 'fame' is not a listed metric" in message
    message = _error(tmp_path, GOOD + "held: [reach, reach]\n")
    assert ":6: at held[1]: metric 'reach' listed twice" in message


def test_unknown_key_missing_key_and_not_a_mapping(tmp_path: Path) -> None:
    assert ":6: at objective: unknown key" in _error(tmp_path, GOOD + "objective: max\n")
    message = _error(tmp_path, "\n".join(GOOD.splitlines()[:1] + GOOD.splitlines()[2:]))
    assert "at weights: required key is missing" in message
    assert "expected a mapping" in _error(tmp_path, "- reach\n")
    assert "not valid YAML" in _error(tmp_path, "metrics: [reach\n")


def test_missing_file_and_error_family(tmp_path: Path) -> None:
    with pytest.raises(ScorecardDefinitionError, match="cannot read"):
        load_definition(tmp_path / "nowhere.yaml")
    assert issubclass(ScorecardDefinitionError, InputError)  # the CLI's exit code 2


def test_direct_construction_is_cross_checked() -> None:
    with pytest.raises(ValidationError, match="unknown metric 'fame'"):
        ScorecardDefinition(metrics=("fame",), weights={"fame": 1}, tolerances={"fame": 0})
