"""Supersession chains of successive values, generated: a price that takes 1 to 8 values one
after another, told at random times to random agents, probed at random asking the current
value or the one it replaced. Each scenario is run by the reference and the simple agent; no
episode may crash, the traces must say what the scenario said, every metric must stay in its
range, and an agent that perceived every value as it came answers the current one (and, asked,
the one it replaced)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from harness.agents import AGENT_KINDS
from harness.engine.episode import Episode
from policies import load_policy
from scenarios import Scenario
from scorecards.metrics import METRICS

from .conftest import ROOT

DAY = 24 * 60
AGENTS = ("ana", "bo", "cy")  # ana perceives every value as it comes; the others hear gossip
CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
METRIC_NAMES = [
    "reach",
    "supersession",
    "probe_recall",
    "probe_hallucination",
    "false_certainty_rate",
    "provenance",
]


def moment(minute: int) -> str:
    day, rest = divmod(minute, DAY)
    return f"day {day + 1} {rest // 60:02d}:{rest % 60:02d}"


@st.composite
def chains(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario as a file holds it: a chain of prices, its news, its probes."""
    days = draw(st.integers(1, 3))
    end = days * DAY
    length = draw(st.integers(1, 8))
    # each value from a moment on a ten-minute tick, strictly after the one before
    starts = sorted(
        draw(st.sets(st.integers(1, end // 10 - 13), min_size=length - 1, max_size=length - 1))
    )
    froms = [0, *(10 * s for s in starts)]
    prices = [str(2 + i) for i in range(length)]
    values: list[dict[str, Any]] = [{"value": prices[0]}]
    values += [{"value": v, "from": moment(t)} for v, t in zip(prices[1:], froms[1:], strict=True)]
    events: list[dict[str, Any]] = [
        {  # ana sees each price posted as it starts to hold
            "id": f"posted_{i}",
            "at": moment(t),
            "kind": "notice",
            "channel": "seen",
            "proposition": "price",
            "value": v,
            "seen_by": ["ana"],
        }
        for i, (v, t) in enumerate(zip(prices, froms, strict=True))
    ]
    for k in range(draw(st.integers(0, 6))):  # gossip: a price that has held by then
        at = draw(st.integers(0, end - 10))
        held = [v for v, t in zip(prices, froms, strict=True) if t <= at]
        speaker, listener = draw(st.permutations(AGENTS))[:2]
        events.append(
            {
                "id": f"gossip_{k}",
                "at": moment(at),
                "kind": "tell",
                "speaker": speaker,
                "seen_by": [listener],
                "proposition": "price",
                "value": draw(st.sampled_from(held)),
                "modality": draw(st.sampled_from(["certain", "likely"])),
            }
        )
    probes = []
    for k in range(draw(st.integers(1, 4))):
        at = 10 * draw(st.integers(1, end // 10))  # on a tick: asked at its moment
        replaced_yet = length > 1 and at >= froms[1]
        asks = draw(st.sampled_from(["current", "replaced"])) if replaced_yet else "current"
        probes.append(
            {
                "id": f"p{k}",
                "at": moment(at),
                "agent": draw(st.sampled_from(AGENTS)),
                "proposition": "price",
                "asks": asks,
            }
        )
    # and ana once the last price holds: what it replaced, if anything did
    probes.append(
        {
            "id": "ana_last",
            "at": moment(10 * draw(st.integers(froms[-1] // 10 + 1, end // 10))),
            "agent": "ana",
            "proposition": "price",
            "asks": "replaced" if length > 1 else "current",
        }
    )
    return {
        "name": "price_chain",
        "description": "a price that changes, told around (tests/test_value_chains.py)",
        "duration": f"{days * 24}h",
        "tick_minutes": 10,
        "encounter_chance": draw(st.sampled_from([0.0, 0.1, 0.3])),
        "world": {
            "places": [{"id": "home"}, {"id": "bakery"}],
            "roads": [{"a": "home", "b": "bakery", "minutes": 5}],
        },
        "agents": [{"id": a, "home": "home"} for a in AGENTS],
        "events": events,
        "truth": [
            {
                "proposition": "price",
                "subject": "bread",
                "predicate": "costs",
                "object": "coins",
                "values": values,
            }
        ],
        "probes": probes,
        "metrics": METRIC_NAMES,
    }


def value_at(data: dict[str, Any], minute: int) -> tuple[str, str | None]:
    """(the value holding at `minute`, the one it replaced)."""
    s = Scenario.model_validate(data)
    timeline = s.truth[0].timeline
    held = [i for i, v in enumerate(timeline) if v.from_ is None or v.from_ <= minute]
    i = held[-1]
    return timeline[i].value, timeline[i - 1].value if i else None


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(chains())
def test_generated_value_chains(tmp_path_factory, data):  # type: ignore[no-untyped-def]
    from scenarios import load_scenario

    path = tmp_path_factory.mktemp("chain") / "chain.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    scenario = load_scenario(path)  # valid by construction: the loader's checks agree
    prices = [v.value for v in scenario.truth[0].timeline]
    for kind in ("reference", "simple"):
        traces = Episode(scenario, CAREFUL, 0, AGENT_KINDS[kind]).run()
        tables = {name: t.to_pandas() for name, t in traces.items()}
        truth = tables["truth"]
        assert list(truth["value"]) == prices  # one row per value, in order
        firsts = [int(x) for x in truth["valid_from"].dropna()]
        assert firsts == sorted(set(firsts)) and len(firsts) == len(prices) - 1
        exposures = tables["exposures"]
        assert set(exposures["value"]) <= set(prices)  # nobody heard a price that never was
        probes = tables["probes"].set_index("probe_id")
        for p in scenario.probes:
            want = "probe" if p.asks == "current" else "probe_replaced"
            assert probes.loc[p.id, "kind"] == want
        for name in METRIC_NAMES:
            value = METRICS[name].fn(tables)
            low, high = METRICS[name].range
            assert value is None or low <= value <= high, (kind, name, value)
        if kind == "reference":  # ana perceived every price as it came
            for p in (p for p in scenario.probes if p.agent == "ana"):
                answer = probes.loc[p.id, "answer_value"]
                current, replaced = value_at(data, p.at)
                event(f"ana asked {p.asks} of a chain of {len(prices)}")
                assert answer == (current if p.asks == "current" else replaced), (p, answer)
            census = tables["probes"]
            last = census[census["kind"].eq("census") & census["agent"].eq("ana")]
            assert list(last["answer_value"]) == [prices[-1]]
            assert not pd.isna(METRICS["reach"].fn(tables))
