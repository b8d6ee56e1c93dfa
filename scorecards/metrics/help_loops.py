"""`help_loops`: calls for help repeated with no new evidence in between (DESIGN §3)."""

from __future__ import annotations

import pandas as pd

from ._base import Episode, Metric, register
from ._tables import flag, table, ticks

CALL = "ask_for_help"
OBSERVATIONS = ("agent", "subject")


def help_loops(episode: Episode) -> float:
    """Count of `ask_for_help` actions that repeat the same agent's previous call (same
    target, null matching null) with no observation of that agent strictly between the two
    calls whose subject is the target — the answers to its own calls ("no answer") excepted:
    being unanswered is not new evidence.

    Never absent: a count of loops is 0 when nobody calls (scenarios opt in by listing the
    metric, see `score(applicable=...)`).
    """
    actions = table(episode, "actions", ("agent", "action", "target"))
    calls = actions[flag(actions["action"].eq(CALL))]
    if calls.empty:
        return 0.0
    calls = pd.DataFrame(
        {
            "agent": calls["agent"].astype(object).to_numpy(),
            "target": calls["target"].astype(object).to_numpy(),
            "tick": ticks(calls["tick"]).to_numpy(),
            "event_id": calls["event_id"].astype("int64").to_numpy(),
        }
    )
    calls["key"] = calls["target"].fillna("\0null")  # sortable, and null repeats null
    calls = calls.sort_values(["agent", "tick", "event_id", "key"], kind="mergesort")
    previous = calls.groupby("agent", sort=False)[["key", "tick"]].shift()
    calls["since"] = previous["tick"]
    repeats = calls[calls["key"].eq(previous["key"])]
    if repeats.empty:
        return 0.0
    repeats = repeats.reset_index(drop=True).reset_index(names="call")
    seen = table(episode, "observations", OBSERVATIONS)
    answers = pd.MultiIndex.from_frame(calls[["agent", "event_id"]])
    own = pd.MultiIndex.from_arrays(
        [seen["agent"].astype(object).to_numpy(), seen["event_id"].astype("int64").to_numpy()]
    ).isin(answers)
    seen = seen[~own]
    seen = pd.DataFrame(
        {
            "agent": seen["agent"].astype(object).to_numpy(),
            "target": seen["subject"].astype(object).to_numpy(),
            "seen": ticks(seen["tick"]).to_numpy(),
        }
    ).dropna()
    evidence = repeats.merge(seen, on=["agent", "target"])
    fresh = (evidence["seen"] > evidence["since"]) & (evidence["seen"] < evidence["tick"])
    return float(len(repeats) - evidence.loc[fresh, "call"].nunique())


METRIC = register(
    Metric(
        name="help_loops",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of ask_for_help actions repeating the agent's previous call (same "
        "target) with no observation of that target in between but the calls' own answers; "
        "0 with no calls",
        internal=False,
        fn=help_loops,
    )
)
