"""One strict loading path for every user file: limits before parsing, plain YAML only, no
coercion, bounded nesting, and semantic checks the schema cannot express — each refusal an
InputError naming file, line, path and expectation (exit 2 from the command line)."""

from __future__ import annotations

import os

import pytest

from policies import InputError, load_policy
from scenarios import Sense, load_scenario
from scenarios.checks import LARGE
from scenarios.suite import load_suite
from scorecards.definition import load_definition
from villagelab.yamlsource import MAX_ALIASES, MAX_BYTES, MAX_DEPTH, YamlSource

from .test_scenarios import SMALL


def refusal(path) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as info:
        YamlSource.load(path)
    return str(info.value)


def write(tmp_path, text: str | bytes, name: str = "f.yaml"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


# --- the file itself ----------------------------------------------------------------------------
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "policy.yaml"
    os.mkfifo(fifo)
    assert "not a regular file" in refusal(fifo)


def test_a_device_a_folder_and_a_missing_file_are_refused(tmp_path):
    assert "not a regular file" in refusal("/dev/zero")
    assert "is a folder" in refusal(tmp_path)
    assert "cannot read the file" in refusal(tmp_path / "nowhere.yaml")


def test_a_file_over_the_size_limit_is_refused_before_parsing(tmp_path):
    path = write(tmp_path, "a: " + "x" * MAX_BYTES + "\n")
    assert f"expected at most {MAX_BYTES:,}" in refusal(path)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ("memory: {capacity: 10}\n".encode("utf-16"), "UTF-16 text; expected UTF-8"),
        ("memory: {capacity: 10}\n".encode("utf-32"), "UTF-32 text; expected UTF-8"),
        (b"memory:\n  capacity: \x00\x01\x02", ":2: a NUL byte"),
        (b"memory:\n  keep_source: \xff\xfe true\n", ":2: not UTF-8 text"),
        (b"a: '\x1b[2J'\n", "not valid YAML: the character '\\x1b' is not allowed"),
    ],
)
def test_text_that_is_not_utf8_yaml_is_refused_with_its_line(tmp_path, data, says):
    assert says in refusal(write(tmp_path, data))


def test_a_utf8_byte_order_mark_is_fine(tmp_path):
    assert YamlSource.load(write(tmp_path, b"\xef\xbb\xbfa: 1\n")).data == {"a": 1}


# --- plain YAML only ----------------------------------------------------------------------------
def test_an_alias_bomb_is_refused_at_the_alias_budget(tmp_path):
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    message = refusal(write(tmp_path, "\n".join(lines) + "\n"))
    assert f"more than {MAX_ALIASES} aliases" in message and "f.yaml:5:" in message


def test_a_few_aliases_are_allowed(tmp_path):
    source = YamlSource.load(write(tmp_path, "a: &x [1, 2]\nb: *x\n"))
    assert source.data == {"a": (1, 2), "b": (1, 2)}


@pytest.mark.parametrize(
    "text",
    [
        "memory: !!python/object/apply:os.system ['true']\n",
        "memory: !!python/name:os.system\n",
        "memory: !custom {capacity: 3}\n",
        "memory: !!set {a, b}\n",
        "memory: !!binary aGVsbG8=\n",
        "memory: !!timestamp 2024-01-01\n",
        "memory: !!omap [{a: 1}]\n",
    ],
)
def test_every_non_standard_tag_is_refused(tmp_path, text):
    message = refusal(write(tmp_path, text))
    assert "f.yaml:1: at memory: no tag !" in message and "expected plain YAML" in message


def test_merge_keys_unhashable_and_non_text_keys_are_refused(tmp_path):
    assert "no merge key" in refusal(write(tmp_path, "a: &a {x: 1}\nb:\n  <<: *a\n"))
    assert "a name as key, got a mapping or list" in refusal(write(tmp_path, "? [a, b]\n: 1\n"))
    assert "a name as key, got 1" in refusal(write(tmp_path, "memory:\n  1: x\n"))
    assert "a name as key, got True" in refusal(write(tmp_path, "true: x\n"))


def test_duplicate_keys_are_refused_at_the_second(tmp_path):
    message = refusal(write(tmp_path, "memory:\n  capacity: 1\n  capacity: 2\n"))
    assert "f.yaml:3: at memory.capacity: the key 'capacity' appears twice" in message


def test_nesting_is_bounded_however_deep_the_file(tmp_path):
    deep = "a: " + "[" * 200_000 + "]" * 200_000 + "\n"
    assert f"nesting deeper than {MAX_DEPTH} levels" in refusal(write(tmp_path, deep))
    block = "".join("  " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 5))
    assert f"nesting deeper than {MAX_DEPTH} levels" in refusal(write(tmp_path, block))


def test_two_documents_and_broken_syntax_are_located(tmp_path):
    assert "not valid YAML" in refusal(write(tmp_path, "a: 1\n---\nb: 2\n"))
    assert "f.yaml:2: not valid YAML" in refusal(write(tmp_path, "a: [1,\nb: }\n"))


def test_scalars_follow_the_core_schema(tmp_path):
    text = (
        "t: true\nf: False\nyes_: yes\non_: on\nn: null\ne: ~\ni: 12\nneg: -3\nx: 1.5\n"
        "exp: 5e-1\nclock: 12:30\noctal: 010\nhex: 0x10\nquoted: '0.5'\ndate: 2024-01-01\n"
    )
    data = YamlSource.load(write(tmp_path, text)).data
    assert data == {
        "t": True,
        "f": False,
        "yes_": "yes",  # YAML 1.1's yes/no/on/off are text, not booleans
        "on_": "on",
        "n": None,
        "e": None,
        "i": 12,
        "neg": -3,
        "x": 1.5,
        "exp": 0.5,
        "clock": "12:30",  # not the sexagesimal 750
        "octal": 10,
        "hex": "0x10",
        "quoted": "0.5",
        "date": "2024-01-01",
    }


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1e999", "9" * 40])
def test_infinite_and_huge_numbers_are_refused(tmp_path, value):
    message = refusal(write(tmp_path, f"retrieval:\n  top_k: {value}\n"))
    assert "f.yaml:2: at retrieval.top_k:" in message


# --- no coercion ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('retrieval:\n  relevance_weight: "0.5"', "got '0.5'; expected a number from 0"),
        ("retrieval:\n  relevance_weight: '5e-1'", "got '5e-1'; expected a number"),
        ("retrieval:\n  relevance_weight: true", "got True; expected a number"),
        ("retrieval:\n  top_k: 5.0", "got 5.0; expected an integer"),
        ('retrieval:\n  top_k: "5"', "got '5'; expected an integer"),
        ("memory:\n  keep_source: 1", "got 1; expected true or false"),
        ("memory:\n  keep_source: yes", "got 'yes'; expected true or false"),
        ('memory:\n  keep_source: "true"', "got 'true'; expected true or false"),
    ],
)
def test_a_policy_value_of_the_wrong_type_is_refused_not_coerced(tmp_path, line, says):
    with pytest.raises(InputError) as info:
        load_policy(write(tmp_path, line + "\n"))
    assert "f.yaml:2: " in str(info.value) and says in str(info.value)


def test_a_number_for_a_float_parameter_may_be_written_as_an_integer(tmp_path):
    assert (
        load_policy(write(tmp_path, "retrieval:\n  relevance_weight: 1\n"))[
            "retrieval.relevance_weight"
        ]
        == 1.0
    )


def test_thousands_of_problems_are_listed_briefly(tmp_path):
    text = "memory:\n" + "".join(f"  k{i}: 1\n" for i in range(5000))
    with pytest.raises(InputError) as info:
        load_policy(write(tmp_path, text))
    lines = str(info.value).splitlines()
    assert len(lines) == 21 and lines[-1] == "... and 4,980 more problems"


def test_the_suite_and_the_scorecard_definition_load_strictly(tmp_path):
    suite = write(
        tmp_path,
        "scenarios: [rumor]\nseeds:\n  selection: 0-4\n"
        "  confirmation_start: '10000'\n  gate: 100-104\n  test: 200-219\n",
    )
    with pytest.raises(InputError, match=r"f.yaml:4: at seeds.confirmation_start: expected an"):
        load_suite(suite)
    card = write(tmp_path, "metrics: [reach]\nweights: {reach: true}\ntolerances: {reach: 0.1}\n")
    with pytest.raises(InputError, match=r"f.yaml:2: at weights.reach: expected a number"):
        load_definition(card)


# --- scenarios: the schema and what it cannot say ----------------------------------------------
def scenario_error(tmp_path, text: str, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as info:
        load_scenario(write(tmp_path, text, "s.yaml"), **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("duration: 2h", "duration: 87600h", "at duration: a duration of at most 60 days"),
        ("duration: 2h", "duration: 1e9h", "at duration: expected a duration like"),
        ("duration: 2h", "duration: 120", "at duration: expected text like '48h'"),
        (
            "duration: 2h",
            "duration: 2h\ntick_minutes: true",
            "at tick_minutes: expected an integer",
        ),
        ("duration: 2h", "duration: 2h\ntick_minutes: 1.5", "at tick_minutes: expected an integer"),
        ("duration: 2h", "duration: 2h\ntick_minutes: '5'", "at tick_minutes: expected an integer"),
        (
            "{a: home, b: shop, minutes: 5}",
            "{a: shop, b: shop, minutes: 5}",
            "both ends are 'shop'",
        ),
        (
            "{a: home, b: shop, minutes: 5}",
            "{a: home, b: shop, minutes: 5}\n    - {a: shop, b: home, minutes: 7}",
            "one road between 'shop' and 'home' (roads[0] is one)",
        ),
        ("name: tiny", "name: " + "t" * 300, "at name: string should have at most 64 characters"),
        (
            "description: two agents and a notice",
            "description: " + "x" * 5000,
            "at description: text of at most 4,000 characters",
        ),
        (
            "at: day 1 00:10",
            "at: day 3 00:10",
            "at events[0].at: a moment within the scenario's duration",
        ),
    ],
)
def test_scenario_mutations_are_refused_with_their_place(tmp_path, old, new, says):
    assert old in SMALL
    message = scenario_error(tmp_path, SMALL.replace(old, new, 1))
    assert message.startswith(str(tmp_path / "s.yaml") + ":") and says in message


def test_a_long_run_is_allowed_when_asked_for(tmp_path):
    long = SMALL.replace("duration: 2h", "duration: 2400h")
    assert "at most 60 days" in scenario_error(tmp_path, long)
    assert load_scenario(write(tmp_path, long, "s.yaml"), bounds=LARGE).duration == 2400 * 60


WITH_ERRANDS = SMALL.replace(
    "  - {id: bo, home: home}",
    "  - {id: bo, home: home}\n"
    "  - id: cai\n    home: home\n    errands:\n"
    "      - {id: shop, at: '08:00', days: [1], action: buy, target: shop}\n",
).replace("duration: 2h", "duration: 48h")


def test_an_unreachable_place_an_agent_needs_is_refused(tmp_path):
    text = WITH_ERRANDS.replace("    - {id: shop}", "    - {id: shop}\n    - {id: island}")
    text = text.replace("target: shop}", "target: island}")
    message = scenario_error(tmp_path, text)
    assert "at agents[2].errands[0].target: a place 'cai' can reach from its home" in message


def test_a_group_errand_names_a_group_of_its_agent(tmp_path):
    """The replan of a group errand is told to its group: a group the agent is not in (a
    typo) would tell nobody, silently."""
    grouped = WITH_ERRANDS.replace("target: shop}", "target: shop, group: crew}")
    message = scenario_error(tmp_path, grouped)
    assert "at agents[2].errands[0].group: unknown group 'crew' for 'cai'" in message
    member = grouped.replace(
        "  - id: cai\n    home: home\n", "  - id: cai\n    home: home\n    groups: [crew]\n"
    )
    assert load_scenario(write(tmp_path, member, "s.yaml")).agents[2].errands[0].group == "crew"


def test_errand_days_and_decision_days_lie_within_the_run(tmp_path):
    assert "a day of the run (day 1 to day 3)" in scenario_error(
        tmp_path, WITH_ERRANDS.replace("days: [1]", "days: [1, 9]")
    )
    text = WITH_ERRANDS + (
        "decision_points:\n  - {id: d, proposition: p, action: buy, day: 7, right: [shop]}\n"
    )
    assert "at decision_points[0].day: a day of the run" in scenario_error(tmp_path, text)


WITH_TWO_FACTS = WITH_ERRANDS.replace(
    "truth:\n",
    "truth:\n  - {proposition: q, subject: road, predicate: closed_on, object: '2', value: 'true'}\n"
    "  - {proposition: r, subject: shop, predicate: opens_at, object: '2', value: '10:00'}\n",
)


@pytest.mark.parametrize(
    ("point", "says"),
    [
        (  # both ways of naming what decides
            "{id: d, proposition: p, when: {all_of: [p, q]}, action: buy, day: 2, right: [shop]}",
            "at decision_points[0]: exactly one of proposition, when",
        ),
        (  # neither
            "{id: d, action: buy, day: 2, right: [shop]}",
            "at decision_points[0]: exactly one of proposition, when",
        ),
        (
            "{id: d, when: {all_of: [p, q], any_of: [p, q]}, action: buy, day: 2, right: [shop]}",
            "at decision_points[0].when: exactly one of all_of, any_of",
        ),
        (
            "{id: d, when: {any_of: [p]}, action: buy, day: 2, right: [shop]}",
            "at decision_points[0].when.any_of: tuple should have at least 2 items",
        ),
        (
            "{id: d, when: {all_of: [p, p]}, action: buy, day: 2, right: [shop]}",
            "at decision_points[0].when: each proposition once; all_of names one",
        ),
        (
            "{id: d, when: {all_of: [p, x]}, action: buy, day: 2, right: [shop]}",
            "at decision_points[0].when.all_of[1]: unknown proposition 'x'",
        ),
        (  # a condition holds or fails on its parts' truth: each part is true or false
            "{id: d, when: {any_of: [q, r]}, action: buy, day: 2, right: [shop]}",
            (
                "at decision_points[0].when.any_of[1]: a proposition whose value is 'true' or "
                "'false'; 'r' has value '10:00'"
            ),
        ),
        (  # who decides is an agent of the scenario, each once
            "{id: d, proposition: p, action: buy, day: 2, right: [shop], agents: [ana, zed]}",
            "at decision_points[0].agents[1]: unknown agent 'zed'",
        ),
        (
            "{id: d, proposition: p, action: buy, day: 2, right: [shop], agents: [ana, ana]}",
            "at decision_points[0].agents: each agent once; got ['ana', 'ana']",
        ),
        (
            "{id: d, proposition: p, action: buy, day: 2, right: [shop], agents: []}",
            "at decision_points[0].agents: tuple should have at least 1 item",
        ),
    ],
)
def test_a_decision_point_is_refused_where_it_is_wrong(tmp_path, point, says):
    text = WITH_TWO_FACTS + f"decision_points:\n  - {point}\n"
    assert says in scenario_error(tmp_path, text)


def test_two_decision_points_on_one_action_and_day_are_refused(tmp_path):
    # the harness labels an agent's first such action with one point: the second would be
    # labelled on its second action, a different decision
    text = WITH_TWO_FACTS + (
        "decision_points:\n"
        "  - {id: d, proposition: p, action: buy, day: 2, right: [shop]}\n"
        "  - {id: e, proposition: q, action: buy, day: 2, right: [home]}\n"
        "  - {id: f, proposition: q, action: buy, day: 3, right: [home]}\n"
    )
    message = scenario_error(tmp_path, text)
    assert (
        "at decision_points[1]: one decision point per action and day; decision_points[0] is "
        "already on 'buy' on day 2 (join their propositions with `when`)"
    ) in message
    assert "decision_points[2]" not in message


def test_a_decision_condition_over_true_and_false_facts_loads(tmp_path):
    text = WITH_TWO_FACTS.replace("value: '10:00'", "value: 'false'") + (
        "decision_points:\n"
        "  - {id: d, when: {any_of: [p, q, r]}, action: buy, day: 2, right: [home]}\n"
    )
    scenario = load_scenario(write(tmp_path, text, "s.yaml"))
    (d,) = scenario.decision_points
    assert (d.proposition, d.when_operands, d.deciding) == (None, ("p", "q", "r"), ("p", "q", "r"))


@pytest.mark.parametrize(
    ("origins", "says"),
    [
        (
            "origin: ana, origins: [{agent: bo, modality: likely, at: day 1 00:10}]",
            "at truth[0]: one of origin, origins",
        ),
        (
            "modality: likely, origins: [{agent: bo, modality: likely, at: day 1 00:10}]",
            "at truth[0]: with origins, each origin's modality (not the truth's)",
        ),
        (
            (
                "origins: [{agent: bo, modality: likely, at: day 1 00:10}, "
                "{agent: bo, modality: certain, at: day 1 00:20}]"
            ),
            "at truth[0]: each agent once among origins; got ['bo', 'bo']",
        ),
        (
            (
                "origins: [{agent: bo, modality: likely, at: day 1 00:10}, "
                "{agent: zed, modality: likely, at: day 1 00:20}]"
            ),
            "at truth[0].origins[1].agent: unknown agent 'zed'",
        ),
        (
            "origins: [{agent: bo, modality: likely, at: day 2 00:10}]",
            "at truth[0].origins[0].at: a moment within the scenario's duration",
        ),
        ("origins: []", "at truth[0].origins: tuple should have at least 1 item"),
        (
            "origins: [{agent: bo, modality: sure, at: day 1 00:10}]",
            "at truth[0].origins[0].modality: ",
        ),
        ("origins: [{agent: bo, modality: likely}]", "at truth[0].origins[0].at: "),
    ],
)
def test_several_origins_are_refused_where_they_are_wrong(tmp_path, origins, says):
    old = 'value: "true", origin: ana}'
    assert old in SMALL
    text = SMALL.replace(old, f'value: "true", {origins}}}')
    assert says in scenario_error(tmp_path, text)


def test_several_origins_are_refused_with_successive_values(tmp_path):
    old = 'value: "true", origin: ana}'
    values = 'values: [{value: "3"}, {value: "4", from: day 1 00:20}]'
    origins = "origins: [{agent: bo, modality: likely, at: day 1 00:10}]"
    text = SMALL.replace(old, f"{values}, {origins}}}")
    assert "at truth[0]: origins with value, not with values" in scenario_error(tmp_path, text)


def test_errand_ids_are_unique_per_agent(tmp_path):
    text = WITH_ERRANDS.replace(
        "target: shop}\n",
        "target: shop}\n      - {id: shop, at: '09:00', days: [2], action: buy, target: shop}\n",
    )
    assert "errands[1]: a unique errand id; 'shop' appears more than once" in scenario_error(
        tmp_path, text
    )


def test_supersession_is_acyclic(tmp_path):
    text = SMALL.replace(
        "origin: ana}",
        "origin: ana, supersedes: q}\n"
        "  - {proposition: q, subject: shop, predicate: p, object: '1', value: 'true', "
        "supersedes: p}",
    )
    assert "p → q → p is a cycle" in scenario_error(tmp_path, text)


def test_a_phrase_with_a_crafted_placeholder_is_refused(tmp_path):
    text = SMALL.replace(
        "duration: 2h", "duration: 2h\npredicates:\n  closed_on: {phrase: '{object.real}'}"
    )
    assert "a phrase may name only {object}" in scenario_error(tmp_path, text)


def test_a_sense_is_named_by_its_value_and_a_misspelt_one_lists_the_senses(tmp_path):
    with_sense = "duration: 2h\npredicates:\n  closed_on: {sense: %s}"
    good = SMALL.replace("duration: 2h", with_sense % "unusable")
    path = tmp_path / "good.yaml"
    path.write_text(good)
    (closed_on,) = load_scenario(path).predicates.values()
    assert closed_on.sense is Sense.UNUSABLE
    message = scenario_error(tmp_path, SMALL.replace("duration: 2h", with_sense % "unusabel"))
    assert "at predicates.closed_on.sense: expected one of 'unusable', 'closes_early'" in message
    assert "got 'unusabel'" in message
