"""`request_fulfilment`: the player's requests carried out by the deadline, or declined."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import frame

from scorecards.metrics.request_fulfilment import request_fulfilment


def _request(request_id: str, deadline: int | None = 100) -> dict[str, Any]:
    return {
        "request_id": request_id,
        "agent": "blossom",
        "action": "deliver",
        "item": "pastry",
        "place": "picnic",
        "deadline": deadline,
        "tick": 10,
    }


def _act(
    request_id: str | None,
    action: str = "deliver",
    *,
    tick: int = 50,
    ok: bool = True,
    target: str | None = "picnic",
) -> dict[str, Any]:
    return {
        "agent": "blossom",
        "action": action,
        "target": target,
        "ok": ok,
        "request_id": request_id,
        "tick": tick,
    }


def test_fulfilled_by_the_deadline_or_declined_for_a_stance() -> None:
    requests = [_request(r) for r in ("r1", "r2", "r3", "r4", "r5", "r6")] + [_request("r7", None)]
    actions = [
        _act("r1"),  # done in time
        _act("r2", tick=101),  # too late
        _act("r3", ok=False),  # tried, failed
        _act("r3", "walk"),  # another action with the id is not the request's action
        _act("r4", "decline", target="no_sweets_for_strangers"),  # declined for a stance
        _act("r5", "decline", target=None),  # declined with no stance
        _act("r7", tick=5000),  # no deadline: never late
        _act(None),  # delivering without the request id carries nothing out
    ]
    episode = {"requests": frame("requests", requests), "actions": frame("actions", actions)}
    assert request_fulfilment(episode) == pytest.approx(3 / 7)


def test_an_ignored_request_scores_zero_and_no_request_is_absent() -> None:
    assert request_fulfilment({"requests": frame("requests", [_request("r1")])}) == 0.0
    assert request_fulfilment({"actions": frame("actions", [_act("r1")])}) is None
    assert request_fulfilment({}) is None
