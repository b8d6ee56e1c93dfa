"""Generated mutations of policy and scenario files through the CLI's loading path (`policy
validate`, `scenario validate`, then `run` for an accepted scenario), called in this process:
each is refused cleanly (exit 2, a message naming the file, no traceback) or accepted and
correct (a policy holds exactly the file's values; a scenario runs an episode). CI runs a
fixed sample (derandomized); `--robustness-full` runs thousands."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from .invoke import FAILED, REFUSED, cli, judge
from .mutations import (
    MEANINGS,
    REFUSE,
    SAYS,
    SCENARIOS,
    Mutation,
    dump,
    meaning,
    policy_mutations,
    scenario_mutations,
)

SAMPLE = {"policy": 60, "scenario": 25}
FULL = {"policy": 3000, "scenario": 2000}


def sized(kind: str, full: bool) -> settings:
    return settings(
        max_examples=(FULL if full else SAMPLE)[kind],
        deadline=None,
        derandomize=not full,  # CI: the same fixed sample every time
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture(autouse=True)
def _private_records(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGELAB_PROCESS_RECORDS", str(tmp_path / "records"))


def test_policy_mutations_are_refused_cleanly_or_loaded_exactly(robustness_full):
    @sized("policy", robustness_full)
    @given(policy_mutations())
    def case(mutation):  # type: ignore[no-untyped-def]
        verdict, detail = judge("policy", mutation)
        assert verdict != FAILED, f"{mutation.what}: {detail}"

    case()


def test_scenario_mutations_are_refused_cleanly_or_run(robustness_full):
    @sized("scenario", robustness_full)
    @given(scenario_mutations())
    def case(mutation):  # type: ignore[no-untyped-def]
        verdict, detail = judge("scenario", mutation, run=True)
        assert verdict != FAILED, f"{mutation.what}: {detail}"

    case()


def test_dialogue_line_ids_and_speakers_are_unique(tmp_path):
    """Found by the census: a dialogue line given twice was accepted (its id names it in the
    traces and the scorecard)."""
    import yaml

    from scenarios import load_scenario
    from villagelab.yamlsource import InputError

    from .mutations import ROOT, dump

    tree = yaml.safe_load((ROOT / "scenarios" / "library" / "companion_weeks.yaml").read_text())
    lines = tree["dialogue"]["lines"]
    lines.append(dict(lines[0]))
    path = tmp_path / "twice.yaml"
    path.write_bytes(dump(tree))
    with pytest.raises(InputError) as info:
        load_scenario(path)
    said = str(info.value)
    assert (
        f"dialogue.lines[{len(lines) - 1}]: a unique line id; 'hello' appears more than once"
        in said
    )
    tree["dialogue"]["lines"].pop()
    tree["dialogue"]["speakers"] = ["player", "player"]
    path.write_bytes(dump(tree))
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert "dialogue.speakers[1]: a unique speaker id" in str(info.value)


def test_a_companions_opinion_ids_are_unique(tmp_path):
    """Found by the census on issue 18c's persona: an opinion given twice was accepted."""
    import yaml

    from scenarios import load_scenario
    from villagelab.yamlsource import InputError

    from .mutations import ROOT, dump

    tree = yaml.safe_load((ROOT / "scenarios" / "library" / "companion_weeks.yaml").read_text())
    where = next(
        i for i, a in enumerate(tree["agents"]) if (a.get("companion") or {}).get("opinions")
    )
    opinions = tree["agents"][where]["companion"]["opinions"]
    opinions.append(dict(opinions[0]))
    path = tmp_path / "twice.yaml"
    path.write_bytes(dump(tree))
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert f"companion.opinions[{len(opinions) - 1}]: a unique opinion id" in str(info.value)


@pytest.mark.parametrize("op", MEANINGS)
def test_a_scenario_that_means_something_impossible_is_refused_where_it_says_so(op, tmp_path):
    """Issue 29's validator misses, each its own fuzz operator: refused with exit 2, the file
    and the place in it named, and what was expected said."""
    import yaml

    source = next(p for p in SCENARIOS if p.stem == "replan_bridge")
    what, tree = meaning(op, source, yaml.safe_load(source.read_bytes()))
    verdict, detail = judge("scenario", Mutation(what, dump(tree), REFUSE))
    assert verdict == REFUSED, f"{what}: {detail}"
    path = tmp_path / "scenario.yaml"
    path.write_bytes(dump(tree))
    said = cli("scenario", "validate", str(path)).stderr
    where, says = SAYS[op]
    assert where in said and says in said, said
