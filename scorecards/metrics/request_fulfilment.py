"""`request_fulfilment`: whether the player's requests are carried out (or fairly declined)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._rows import columns, eq, require

REQUESTS = ("request_id", "agent", "action", "deadline", "stance")
ANSWERS = ("agent", "action", "target", "ok", "request_id")


def request_fulfilment(episode: Episode) -> float | None:
    """Requests fulfilled, or declined on a protected stance they meet, ÷ requests (rows of
    `requests`).

    Fulfilled: an action with the request's id and action, ok, at a tick <= the deadline (a
    null deadline never expires). Declined on a stance: an action `decline` with the request's
    id, ok - the harness lets a refusal stand only on a stance of the agent's persona that
    forbids the request's action or item, and records that stance in `requests.stance`; a
    request that meets none is not settled by refusing it. Absent (None) only when the
    episode has no requests.
    """
    require(episode, "requests", REQUESTS)
    require(episode, "actions", ANSWERS)
    fields = ("request_id", "action", "deadline", "stance")
    ids, wanted, deadlines, stances = columns(episode, "requests", fields)
    if not ids:
        return None
    fields = ("request_id", "action", "ok", "tick")
    answered, actions, oks, ticks = columns(episode, "actions", fields)
    acts: dict[object, list[int]] = {}  # request id → its action rows
    for i, request in enumerate(answered):
        if request is not None:
            acts.setdefault(request, []).append(i)

    def settled(row: int) -> bool:
        deadline = deadlines[row]
        for i in acts.get(ids[row], ()):
            in_time = deadline is None or ticks[i] <= float(deadline)
            if eq(actions[i], wanted[row]) and bool(oks[i]) and in_time:
                return True  # fulfilled
            if eq(actions[i], "decline") and bool(oks[i]) and stances[row] is not None:
                return True  # declined on the stance it meets
        return False

    return sum(settled(row) for row in range(len(ids))) / len(ids)


METRIC = register(
    Metric(
        name="request_fulfilment",
        direction="max",
        range=(0.0, 1.0),
        definition="share of player requests carried out (action ok by the deadline) or "
        "declined on a protected stance of the agent's persona that the request meets",
        internal=False,
        fn=request_fulfilment,
        reads=("actions", "requests"),
    )
)
