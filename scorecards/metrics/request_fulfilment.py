"""`request_fulfilment`: whether the player's requests are carried out (or fairly declined)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._tables import flag, table, ticks

REQUESTS = ("request_id", "agent", "action", "deadline")
ANSWERS = ("agent", "action", "target", "ok", "request_id")


def request_fulfilment(episode: Episode) -> float | None:
    """Requests fulfilled or declined for a stance ÷ requests (rows of `requests`).

    Fulfilled: an action with the request's id and action, ok, at a tick <= the deadline (a
    null deadline never expires). Declined for a stance: an action with the request's id,
    action `decline` and a target (the stance invoked), at any tick. Absent (None) only when
    the episode has no requests.
    """
    requests = table(episode, "requests", REQUESTS)
    if requests.empty:
        return None
    asked = requests[["request_id", "action", "deadline"]].reset_index(drop=True)
    asked = asked.reset_index(names="row")
    acts = table(episode, "actions", ANSWERS)
    acts = acts[acts["request_id"].notna()][["request_id", "action", "target", "ok", "tick"]]
    joined = asked.merge(acts, on="request_id", suffixes=("", "_done"))
    tick = ticks(joined["tick"]).to_numpy()
    in_time = joined["deadline"].isna().to_numpy() | (
        tick <= joined["deadline"].astype("Float64").fillna(0).to_numpy(float)
    )
    done = flag(joined["action_done"].eq(joined["action"])) & flag(joined["ok"]) & in_time
    declined = flag(joined["action_done"].eq("decline")) & joined["target"].notna()
    settled = joined.loc[done | declined, "row"].nunique()
    return settled / len(asked)


METRIC = register(
    Metric(
        name="request_fulfilment",
        direction="max",
        range=(0.0, 1.0),
        definition="share of player requests carried out (action ok by the deadline) or "
        "declined for a stated stance",
        internal=False,
        fn=request_fulfilment,
    )
)
