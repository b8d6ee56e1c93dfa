"""`request_fulfilment`: the player's requests carried out by the deadline, or declined."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import frame

from scorecards.metrics.request_fulfilment import request_fulfilment


def _request(
    request_id: str, deadline: int | None = 100, stance: str | None = None
) -> dict[str, Any]:
    return {
        "stance": stance,
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


def test_fulfilled_by_the_deadline_or_declined_on_the_stance_it_meets() -> None:
    requests = [_request(r) for r in ("r1", "r2", "r3", "r5", "r6")] + [_request("r7", None)]
    requests += [_request("r4", stance="no_sweets"), _request("r8")]
    actions = [
        _act("r1"),  # done in time
        _act("r2", tick=101),  # too late
        _act("r3", ok=False),  # tried, failed
        _act("r3", "walk"),  # another action with the id is not the request's action
        _act("r4", "decline", target="no_sweets"),  # declined on the stance it meets
        _act("r5", "decline", target=None),  # declined with no stance
        _act("r7", tick=5000),  # no deadline: never late
        _act(None),  # delivering without the request id carries nothing out
        # a refusal of a request no stance forbids: the harness did not let it stand
        _act("r8", "decline", target="no_sweets", ok=False),
    ]
    episode = {"requests": frame("requests", requests), "actions": frame("actions", actions)}
    assert request_fulfilment(episode) == pytest.approx(3 / 8)


def test_declining_everything_settles_only_what_a_stance_forbids() -> None:
    requests = [_request("r1"), _request("r2", stance="no_sweets")]
    # even a decline recorded as standing settles nothing where no stance meets the request
    actions = [_act(r, "decline", target="no_sweets") for r in ("r1", "r2")]
    episode = {"requests": frame("requests", requests), "actions": frame("actions", actions)}
    assert request_fulfilment(episode) == pytest.approx(1 / 2)


def test_an_ignored_request_scores_zero_and_no_request_is_absent() -> None:
    assert request_fulfilment({"requests": frame("requests", [_request("r1")])}) == 0.0
    assert request_fulfilment({"actions": frame("actions", [_act("r1")])}) is None
    assert request_fulfilment({}) is None
