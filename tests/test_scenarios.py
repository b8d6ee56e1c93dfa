"""Scenario files: the schema, cross-references, and errors that name file, line and path."""

from __future__ import annotations

import pytest
import yaml

from policies import InputError
from scenarios import LIBRARY, load_scenario, load_suite, parse_seeds

SMALL = """\
name: tiny
description: two agents and a notice
duration: 2h
world:
  places:
    - {id: home}
    - {id: shop}
  roads:
    - {a: home, b: shop, minutes: 5}
agents:
  - {id: ana, home: home}
  - {id: bo, home: home}
events:
  - {id: news, at: day 1 00:10, kind: notice, proposition: p, value: "true", seen_by: [ana]}
truth:
  - {proposition: p, subject: shop, predicate: closed_on, object: "2", value: "true", origin: ana}
probes:
  - {id: ask_bo, at: day 1 01:00, agent: bo, proposition: p}
metrics: [reach]
"""


def load_text(tmp_path, text: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return load_scenario(path)


def error_of(tmp_path, text: str) -> str:
    with pytest.raises(InputError) as info:
        load_text(tmp_path, text)
    return str(info.value)


def test_public_fact_is_a_real_scenario():
    s = load_scenario("public_fact")
    assert len(s.agents) >= 8
    truth = {t.proposition: t for t in s.truth}
    assert truth["bakery_closed_day2"].value == "true"
    assert [d.id for d in s.decision_points] == ["buy_bread_day2"]
    # who learnt it by word of mouth: the census comes before the closed sign tells everyone
    (census,) = s.census_moments
    sign = next(e for e in s.events if e.id == "closed_sign")
    assert census < sign.at


def test_small_example_loads(tmp_path):
    s = load_text(tmp_path, SMALL)
    assert s.end == 120 and s.probes[0].at == 60


def test_an_event_sets_a_decimal_fact_as_a_starting_fact_may_be(tmp_path):
    from harness import Episode
    from policies import baseline_path, load_policy

    text = SMALL.replace(
        "events:\n",
        "events:\n  - {id: dusty, at: day 1 00:20, kind: set_facts, sets: {shop.dust: 0.9}}\n",
    ).replace("  places:\n", "  facts: {shop.dust: 0.0}\n  places:\n")
    scenario = load_text(tmp_path, text)
    assert scenario.events[0].sets == {"shop.dust": 0.9}
    with Episode(
        scenario, load_policy(baseline_path()), 0, "harness.agents.simple:SimpleAgent"
    ) as e:
        e.run()
        assert e.world.facts["shop.dust"] == 0.9


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("agent: bo,", "agent: zed,", ["s.yaml:18", "probes[0].agent", "unknown agent 'zed'"]),
        ("b: shop, minutes", "b: mall, minutes", ["s.yaml:9", "world.roads[0].b", "unknown place"]),
        (
            "agent: bo, proposition: p}",
            "agent: bo, proposition: q}",
            ["s.yaml:18", "probes[0].proposition", "unknown proposition 'q'"],
        ),
        (
            "at: day 1 01:00",
            "at: day 3 01:00",
            ["s.yaml:18", "probes[0].at", "within the scenario"],
        ),
        (
            "- {id: bo, home: home}",
            "- {id: ana, home: home}",
            ["s.yaml:12", "agents[1]", "duplicate"],
        ),
        ("minutes: 5", "minutes: -5", ["s.yaml:9", "world.roads[0].minutes", "greater than 0"]),
        ("duration: 2h", "duration: two hours", ["s.yaml:3", "duration", "'48h'"]),
        (
            "metrics: [reach]",
            "metrics: [reach]\ncolour: blue",
            ["s.yaml:20", "colour", "unknown key"],
        ),
        (
            "metrics: [reach]",
            "metrics: [reach]\nreferences: [{proposition: q, reach: 0.52, source: a paper}]",
            ["s.yaml:20", "references[0].proposition", "a proposition of this scenario's truth"],
        ),
    ],
)
def test_invalid_file_names_file_line_path_and_expectation(tmp_path, old, new, expected):
    assert old in SMALL
    message = error_of(tmp_path, SMALL.replace(old, new))
    for part in expected:
        assert part in message, message


def test_a_request_for_a_resource_with_no_source_is_refused(tmp_path):
    text = (LIBRARY / "picnic_request.yaml").read_text()
    message = error_of(
        tmp_path, text.replace("item: pastry, source: bakery", "item: croissant, source: bakery", 1)
    )
    assert "requests[0].item" in message and "'croissant'" in message


def test_broken_yaml_names_the_line(tmp_path):
    message = error_of(tmp_path, SMALL.replace("  places:", "  places: [", 1))
    assert "s.yaml:" in message and "not valid YAML" in message


def test_cli_validate_exit_codes(tmp_path, cli):
    good = tmp_path / "good.yaml"
    good.write_text(SMALL)
    assert cli("scenario", "validate", str(good)).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL.replace("agent: bo,", "agent: zed,"))
    result = cli("scenario", "validate", str(bad))
    assert result.returncode == 2
    assert "bad.yaml:18" in result.stderr and "Traceback" not in result.stderr


def test_scenario_list_shows_library(cli):
    result = cli("scenario", "list")
    assert result.returncode == 0 and "public_fact" in result.stdout


def test_suite_seed_sets_are_disjoint():
    seeds = load_suite().seeds
    sets = [set(seeds.selection), set(seeds.gate), set(seeds.test)]
    assert all(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1 :])
    assert max(max(s) for s in sets) < seeds.confirmation_start


def test_parse_seeds():
    assert parse_seeds("0-4") == (0, 1, 2, 3, 4)
    assert parse_seeds("1,5,9") == (1, 5, 9)
    with pytest.raises(ValueError):
        parse_seeds("4-0")


def test_every_builtin_scenario_is_valid_yaml_and_loads():
    for path in sorted(LIBRARY.glob("*.yaml")):
        assert yaml.safe_load(path.read_text())["name"] == path.stem
        load_scenario(path)
