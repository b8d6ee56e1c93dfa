"""`memory_noise`, `memory_load` (internal) and `isolation_violations` (a guardrail, from the
harness's evidence: what agents said against what they were exposed to)."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards.metrics.isolation_violations import isolation_violations
from scorecards.metrics.memory_load import memory_load
from scorecards.metrics.memory_noise import memory_noise


def _op(
    agent: str,
    op: str = "retrieve",
    *,
    experience: int | None = 1,
    owner: str | None = None,
    relevant: bool | None = True,
    size: int | None = None,
    capacity: int | None = None,
    tick: int = 10,
) -> dict[str, Any]:
    return {
        "agent": agent,
        "op": op,
        "experience_id": experience,
        "experience_owner": agent if owner is None else owner,
        "relevant": relevant,
        "size": size,
        "capacity": capacity,
        "tick": tick,
    }


def _episode(ops: list[dict]) -> dict:
    return {"memory_ops": frame("memory_ops", ops)}


def test_noise_is_the_share_of_retrievals_not_relevant() -> None:
    ops = [
        _op("bo", relevant=True),
        _op("bo", relevant=False),
        _op("bo", relevant=None),  # relevance unknown is not relevance
        _op("bo", relevant=True),
        _op("bo", experience=None, relevant=None),  # an empty retrieval returned nothing
        _op("bo", "write", relevant=False),  # not a retrieval
    ]
    assert memory_noise(_episode(ops)) == pytest.approx(2 / 4)


def test_noise_is_zero_without_retrievals_and_absent_without_memory_ops() -> None:
    assert memory_noise(_episode([_op("bo", "write")])) == 0.0
    assert memory_noise(_episode([])) is None
    assert memory_noise({}) is None


def test_load_is_the_mean_of_each_agents_last_size_over_capacity() -> None:
    ops = [
        _op("bo", "write", size=10, capacity=100, tick=5),
        _op("bo", "write", size=50, capacity=100, tick=9),  # bo's last: 0.5
        _op("bo", "retrieve", tick=12),  # no size: skipped
        _op("cy", "write", size=30, capacity=20, tick=3),  # over capacity: capped at 1
        _op("di", "write", size=0, capacity=0, tick=3),  # no capacity: skipped
    ]
    assert memory_load(_episode(ops)) == pytest.approx((0.5 + 1.0) / 2)
    assert memory_load(_episode([_op("bo")])) is None
    assert memory_load({}) is None


def _said(speaker: str, value: str = "yes", tick: int = 50, **extra: Any) -> dict[str, Any]:
    return {
        "speaker": speaker,
        "listener": "ed",
        "proposition": "bakery_closed",
        "value": value,
        "modality": "certain",
        "tick": tick,
        **extra,
    }


def test_asserting_what_only_another_agent_perceived_is_an_isolation_violation() -> None:
    truth = frame("truth", [fact()])
    exposures = frame("exposures", [exposure("bo", "seen", tick=10)])

    def count(said: list[dict], probes: list[dict] = ()) -> float | None:  # type: ignore[assignment]
        return isolation_violations(
            {
                "truth": truth,
                "exposures": exposures,
                "utterances": frame("utterances", said),
                "probes": frame("probes", list(probes)),
            }
        )

    assert count([_said("bo")]) == 0.0  # bo saw it
    assert count([_said("cy")]) == 1.0  # cy never perceived it, bo had: a leak
    assert count([_said("cy"), _said("cy", tick=60)]) == 1.0  # one pair, counted once
    assert count([_said("cy", tick=5)]) == 0.0  # before bo knew: a guess, not a leak
    assert count([_said("cy", value="no")]) == 0.0  # a value nobody perceived
    assert count([_said("cy", scripted=True)]) == 0.0  # the scenario's line, not cy's
    assert count([], [answer("di", "yes", None)]) == 1.0  # a census answer asserts too
    assert count([], [answer("di", None, None)]) == 0.0  # "I don't know" asserts nothing
    # the origin holds its own proposition first, exposure or not (what it did itself)
    assert count([_said("ana", tick=60)]) == 0.0
    assert isolation_violations({}) is None
