"""Every name a scenario uses refers to something and every value is one it can hold (issue
48, item 4): an event sets only a fact the world declares or a place's own (`<place>.passable`,
`<place>.open`), a place's own fact names a place and is true or false, a fact is
thing.attribute in plain names; two truths never replace the same proposition, successive
values start in successive ticks, and text can be written as UTF-8. Anything else exits 2 at
validation, located (with the nearest name where one is close): a misspelt fact was a world
silently left unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from policies import InputError
from scenarios import load_scenario

from .conftest import ROOT

BRIDGE = ROOT / "scenarios" / "library" / "replan_bridge.yaml"
SETS = "sets: {bridge.passable: false}"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (SETS, "sets: {brigde.passable: false}", "did you mean 'bridge.passable'?"),
        (SETS, "sets: {bridge.pasable: false}", "did you mean 'bridge.passable'?"),
        (SETS, 'sets: {bridge.passable: "no"}', "true or false for 'bridge.passable', got 'no'"),
        (SETS, "sets: {bridge: false}", "a fact the world declares (world.facts) or a place's"),
    ],
)
def test_a_fact_an_event_sets_that_names_nothing_is_refused_with_the_nearest(
    cli, tmp_path: Path, old: str, new: str, expected: str
) -> None:
    text = BRIDGE.read_text()
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new, 1))
    line = next(i for i, row in enumerate(bad.read_text().splitlines(), 1) if new in row)
    result = cli("scenario", "validate", str(bad))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"bad.yaml:{line}:" in result.stderr and expected in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        ({"bakery.open": True, "bakrey.passable": True}, "got 'bakrey'; did you mean 'bakery'"),
        ({"bakery.open": "yes please"}, "true or false for a place's open"),
        ({"open": True}, "a fact named thing.attribute"),
        ({"Lamp.contact": "ok"}, "each a snake_case name of at most 64 characters"),
        ({"lamp." + "x" * 65: "ok"}, "each a snake_case name of at most 64 characters"),
    ],
)
def test_a_place_fact_the_world_declares_names_a_place_and_is_true_or_false(
    tmp_path: Path, facts: dict[str, object], expected: str
) -> None:
    data = yaml.safe_load((ROOT / "scenarios" / "library" / "public_fact.yaml").read_text())
    data["world"]["facts"] = facts
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(InputError, match="world.facts") as info:
        load_scenario(bad)
    assert expected in str(info.value)


def test_every_world_we_ship_or_test_on_names_only_facts_that_exist() -> None:
    worlds = [
        *(ROOT / "scenarios" / "library").glob("*.yaml"),
        *(ROOT / "tests" / "unseen_worlds").glob("*.yaml"),
    ]
    assert len(worlds) > 20
    for path in sorted(worlds):
        load_scenario(path)  # raises on a fact that names nothing


def test_the_nearest_is_offered_only_when_one_is_close() -> None:
    from scenarios.checks import _nearest

    assert _nearest("brigde", ["bridge", "bakery"]) == "; did you mean 'bridge'?"
    assert _nearest("zzz", ["bridge", "bakery"]) == ""


def _planted(tmp_path: Path, source: Path, old: str, new: str) -> tuple[Path, int]:
    text = source.read_text()
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new, 1))
    last = new.splitlines()[-1]  # the line the refusal names: the planted one
    line = next(i for i, row in enumerate(bad.read_text().splitlines(), 1) if last in row)
    return bad, line


def test_two_truths_replacing_the_same_proposition_are_refused_located(tmp_path: Path) -> None:
    source = ROOT / "scenarios" / "library" / "superseded.yaml"
    moved = next(r for r in source.read_text().splitlines() if "supersedes: gathering_at" in r)
    twin = moved.replace("proposition: gathering_moved", "proposition: gathering_moved_again")
    bad, line = _planted(tmp_path, source, moved, f"{moved}\n{twin}")
    with pytest.raises(InputError) as info:
        load_scenario(bad)
    assert f"bad.yaml:{line}:" in str(info.value)
    assert "'gathering_moved' (truth[" in str(info.value), info.value


def test_successive_values_starting_in_one_tick_are_refused_located(tmp_path: Path) -> None:
    # a tick is 5 minutes: a value from 14:02 would start in the tick of the one from 14:00
    source = ROOT / "tests" / "unseen_worlds" / "bread_price_three_steps.yaml"
    old = '{value: "5", from: "day 1 14:00"}'
    bad, line = _planted(tmp_path, source, old, f'{old}, {{value: "6", from: "day 1 14:02"}}')
    with pytest.raises(InputError) as info:
        load_scenario(bad)
    message = str(info.value)
    assert f"bad.yaml:{line}:" in message and "a moment in a later tick" in message, message


def test_text_that_cannot_be_written_as_utf8_is_refused_at_validation(tmp_path: Path) -> None:
    data = yaml.safe_load((ROOT / "scenarios" / "library" / "public_fact.yaml").read_text())
    data["description"] = "a lone \ud800 surrogate"  # YAML writes it escaped: "\ud800"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=False))
    with pytest.raises(InputError, match="text that can be written as UTF-8"):
        load_scenario(bad)
