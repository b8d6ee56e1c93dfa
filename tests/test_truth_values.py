"""A truth with successive values (a price that changes): the language, its validation, and
what the scorecard makes of it."""

from __future__ import annotations

import pytest

from policies import InputError
from scenarios import load_scenario

PRICE = """\
name: price_rise
description: the price of bread goes up twice; ana hears each price, bo only the first
duration: 72h
encounter_chance: 0.0
world:
  places:
    - {id: home}
    - {id: bakery}
  roads:
    - {a: home, b: bakery, minutes: 5}
agents:
  - {id: ana, home: home}
  - {id: bo, home: home}
  - {id: cy, home: home}
events:
  - {id: old_price, at: day 1 09:00, kind: notice, proposition: price, value: "3", seen_by: [ana, bo]}
  - {id: rise, at: day 2 09:00, kind: notice, proposition: price, value: "4", seen_by: [ana]}
  - {id: rise_again, at: day 3 09:00, kind: notice, proposition: price, value: "5", seen_by: [ana]}
truth:
  - proposition: price
    subject: bread
    predicate: costs
    object: coins
    values: [{value: "3"}, {value: "4", from: "day 2 08:00"}, {value: "5", from: "day 3 08:00"}]
census: [day 1 12:00, day 3 12:00]
probes:
  - {id: ana_now, at: day 3 10:00, agent: ana, proposition: price}
  - {id: ana_before, at: day 3 10:00, agent: ana, proposition: price, asks: replaced}
  - {id: bo_now, at: day 3 10:00, agent: bo, proposition: price}
metrics: [reach, supersession, probe_recall]
"""


def load_text(tmp_path, text: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return load_scenario(path)


def error_of(tmp_path, text: str) -> str:
    with pytest.raises(InputError) as info:
        load_text(tmp_path, text)
    return str(info.value)


def test_successive_values_load_with_the_moment_each_holds(tmp_path):
    s = load_text(tmp_path, PRICE)
    (price,) = s.truth
    assert [(v.value, v.from_) for v in price.timeline] == [
        ("3", None),
        ("4", 24 * 60 + 8 * 60),
        ("5", 2 * 24 * 60 + 8 * 60),
    ]
    assert price.value is None
    assert [p.asks for p in s.probes] == ["current", "replaced", "current"]


VALUES = (
    'values: [{value: "3"}, {value: "4", from: "day 2 08:00"}, {value: "5", from: "day 3 08:00"}]'
)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            VALUES,
            'value: "3"\n    ' + VALUES,
            ["s.yaml:20", "truth[0]", "either value (true throughout) or values"],
        ),
        (VALUES, "modality: certain", ["truth[0]", "a value, or values that hold one after"]),
        (
            'value: "5", seen_by: [ana]',
            'value: "6", seen_by: [ana]',
            [
                "s.yaml:18",
                "events[2].value",
                "one of the values of 'price' ('3', '4', '5'); got '6'",
            ],
        ),
        (
            '{value: "5", from: "day 3 08:00"}',
            '{value: "5", from: "day 1 08:00"}',
            ["truth[0].values[2].from", "a moment after the previous value's ('day 2 08:00')"],
        ),
        (
            '{value: "5", from: "day 3 08:00"}',
            '{value: "5", from: "day 9 08:00"}',
            ["truth[0].values[2].from", "a moment within the scenario's duration"],
        ),
        (
            '{value: "5", from: "day 3 08:00"}',
            '{value: "5"}',
            ["truth[0].values[2]", "the moment this value starts to hold"],
        ),
        (
            '{value: "5", from: "day 3 08:00"}',
            '{value: "3", from: "day 3 08:00"}',
            ["truth[0].values[2].value", "each value once; '3' appears earlier"],
        ),
        (
            "object: coins\n",
            "object: coins\n    valid_to: day 2 00:00\n",
            ["truth[0].valid_to", "no validity on a truth with successive values"],
        ),
        (
            "{id: ana_before, at: day 3 10:00,",
            "{id: ana_before, at: day 1 10:00,",
            ["s.yaml:28", "probes[1].at", "after the first value of 'price' was replaced"],
        ),
        (VALUES, "values: []", ["truth[0].values", "at least 1 item"]),
    ],
)
def test_a_misused_values_truth_is_refused_where_it_is_written(tmp_path, old, new, expected):
    assert old in PRICE
    message = error_of(tmp_path, PRICE.replace(old, new, 1))
    for part in expected:
        assert part in message, message


def test_asking_what_was_replaced_needs_successive_values(tmp_path):
    one = PRICE.replace(VALUES, 'value: "3"').replace('value: "4"', 'value: "3"')
    one = one.replace('value: "5"', 'value: "3"')
    message = error_of(tmp_path, one)
    assert "probes[1].asks" in message and "'price' has one value (ask current)" in message, message


def run(tmp_path, kind: str, text: str = PRICE) -> dict:
    from harness import Episode
    from harness.agents import AGENT_KINDS
    from policies import load_policy

    from .conftest import ROOT

    policy = load_policy(ROOT / "policies" / "careful.yaml")
    traces = Episode(load_text(tmp_path, text), policy, 0, AGENT_KINDS[kind]).run()
    return {name: table.to_pandas() for name, table in traces.items()}


def test_the_truth_table_holds_each_value_from_its_moment_to_the_next():
    from harness.engine import ground_truth
    from harness.engine.recorder import Recorder

    s = load_scenario_text(PRICE)
    rec = Recorder(s.name, 0, s.start, 10)  # ten-minute ticks: 08:00 falls on a tick
    ground_truth.write(rec, s.model_copy(update={"tick_minutes": 10}))
    rows = rec.tables()["truth"].to_pylist()
    assert [(r["value"], r["valid_from"], r["valid_to"]) for r in rows] == [
        ("3", None, 192),
        ("4", 192, 336),
        ("5", 336, None),
    ]


def load_scenario_text(text: str):
    import yaml

    from scenarios import Scenario

    return Scenario.model_validate(yaml.safe_load(text))


def test_the_reference_agent_believes_the_latest_value_and_keeps_the_one_it_replaced(tmp_path):
    traces = run(tmp_path, "reference")
    answers = traces["probes"].set_index("probe_id")["answer_value"]
    assert answers["ana_now"] == "5"  # told 3, 4, 5 in order
    assert answers["ana_before"] == "4"  # what 5 replaced
    assert answers["bo_now"] == "3"  # told only the first price
    kinds = traces["probes"].set_index("probe_id")["kind"]
    assert kinds["ana_before"] == "probe_replaced" and kinds["ana_now"] == "probe"


def test_old_news_of_a_replaced_value_does_not_bring_it_back(tmp_path):
    # bo tells ana the first price after ana has heard the second: ana keeps the second
    late = PRICE.replace(
        "truth:\n",
        "  - {id: stale, at: day 3 09:30, kind: tell, speaker: bo, proposition: price, "
        'value: "3", seen_by: [ana]}\ntruth:\n',
    )
    assert "stale" in late
    answers = run(tmp_path, "reference", late)["probes"].set_index("probe_id")["answer_value"]
    assert (answers["ana_now"], answers["ana_before"]) == ("5", "4")


def test_the_reference_agent_tells_a_new_value_to_those_it_told_the_old_one(tmp_path):
    chatty = PRICE.replace("encounter_chance: 0.0", "encounter_chance: 0.3")
    traces = run(tmp_path, "reference", chatty)
    said = traces["utterances"]
    by_ana = said[said["speaker"].eq("ana") & ~said["scripted"].astype(bool)]
    told_bo = list(by_ana.loc[by_ana["listener"].eq("bo"), "value"].drop_duplicates())
    assert told_bo[0] == "3" and len(told_bo) > 1  # the old price first, then news of a new one
    census = traces["probes"]
    last = census[census["kind"].eq("census") & census["agent"].eq("bo")].iloc[-1]
    assert last["answer_value"] != "3"


def test_the_simple_agent_runs_a_values_truth(tmp_path):
    traces = run(tmp_path, "simple")
    assert set(traces["probes"]["probe_id"]) >= {"ana_now", "ana_before", "bo_now"}


def test_a_changing_quantity_folds_the_latest_value_even_from_the_same_informant():
    from harness.agents.reference.model.beliefs import fold
    from harness.agents.reference.model.memory import Experience
    from harness.engine.contract import Meaning
    from policies import load_policy

    from .conftest import ROOT

    policy = load_policy(ROOT / "policies" / "careful.yaml")
    price = Meaning("price", "bread", "costs", "coins", changes=True)

    def told(i: int, value: str) -> Experience:
        return Experience(
            i,
            "cy",
            10 * i,
            i,
            "told",
            "bread",
            0.5,
            proposition="price",
            value=value,
            modality="certain",
            told_by="bo",
        )

    three = fold(None, told(1, "3"), price, 0.9, policy)
    assert three is not None
    four = fold(three, told(2, "4"), price, 0.9, policy)  # bo again, with news
    assert four is not None and (four.value, four.replaced) == ("4", ("3",))
    assert fold(four, told(3, "3"), price, 0.9, policy) is None  # old news
    fixed = Meaning("price", "bread", "costs", "coins")  # the same words, a fact
    assert fold(three, told(2, "4"), fixed, 0.9, policy) is None  # bo again: no new evidence


def test_a_values_truth_crosses_the_agent_boundary_unchanged(tmp_path, monkeypatch):
    # Meaning.changes and Answer.replaced are contract records' fields: an isolated agent
    # gets and gives them as one in the episode's process does
    from harness import Episode
    from harness.agents import AGENT_KINDS
    from harness.engine import boundary
    from policies import load_policy

    from .conftest import ROOT

    policy = load_policy(ROOT / "policies" / "careful.yaml")
    scenario = load_text(tmp_path, PRICE.replace("encounter_chance: 0.0", "encounter_chance: 0.3"))
    agent = AGENT_KINDS["reference"]
    assert isinstance(agent, str)
    monkeypatch.setenv(boundary.VARIABLE, "none")
    inside = Episode(scenario, policy, 0, agent).run()
    monkeypatch.setenv(boundary.VARIABLE, "process")
    with Episode(scenario, policy, 0, agent) as episode:
        assert all(isinstance(a, boundary.RemoteAgent) for a in episode.agents.values())
        apart = episode.run()
    assert inside["probes"].equals(apart["probes"])
    assert "probe_replaced" in apart["probes"].column("kind").to_pylist()
