"""`isolation_violations`: an agent asserting what only another agent's mind held (DESIGN §2).

Checked by the harness's evidence, never the agent's own report: what an agent says (its
utterances, its asserting probe and census answers) against what it was exposed to. Memory
namespaces that bled into each other would show as an agent asserting a tracked proposition it
never perceived, with the very value another agent had perceived.
"""

from __future__ import annotations

import pandas as pd

from ._base import Episode, Metric, register
from ._census import tracked
from ._tables import ANSWERED, EXPOSURES, said, table, ticks


def _assertions(episode: Episode) -> pd.DataFrame:
    """agent, proposition, value, tick of every assertion about a tracked proposition."""
    spoken = said(episode)
    probes = table(episode, "probes", ANSWERED)
    probes = probes[probes["answer_value"].notna()]
    out = pd.concat(
        [
            pd.DataFrame(
                {
                    "agent": spoken["speaker"].to_numpy(object),
                    "proposition": spoken["proposition"].to_numpy(object),
                    "value": spoken["value"].to_numpy(object),
                    "tick": ticks(spoken["tick"]).to_numpy(),
                }
            ),
            pd.DataFrame(
                {
                    "agent": probes["agent"].to_numpy(object),
                    "proposition": probes["proposition"].to_numpy(object),
                    "value": probes["answer_value"].to_numpy(object),
                    "tick": ticks(probes["tick"]).to_numpy(),
                }
            ),
        ],
        ignore_index=True,
    )
    return out[out["proposition"].isin(tracked(episode)["proposition"])]


def isolation_violations(episode: Episode) -> float | None:
    """Count of (agent, proposition) pairs where the agent asserted a tracked proposition —
    in an utterance of its own or an asserting probe/census answer — with no exposure of its
    own to that proposition (any value) at or before, while another agent had been exposed to
    it with the asserted value by then.

    Absent (None) only when the episode tracks no proposition.
    """
    if tracked(episode).empty:
        return None
    asserted = _assertions(episode)
    if asserted.empty:
        return 0.0
    exposures = table(episode, "exposures", EXPOSURES)
    exposures = pd.DataFrame(
        {
            "agent": exposures["agent"].to_numpy(object),
            "proposition": exposures["proposition"].to_numpy(object),
            "value": exposures["value"].to_numpy(object),
            "seen": ticks(exposures["tick"]).to_numpy(),
        }
    )
    own = exposures.groupby(["agent", "proposition"], as_index=False, sort=False)["seen"].min()
    keyed = asserted.reset_index(names="row").merge(own, on=["agent", "proposition"], how="left")
    blind = keyed[~(keyed["seen"].notna() & (keyed["seen"] <= keyed["tick"]))]
    if blind.empty:
        return 0.0
    others = blind.merge(
        exposures.rename(columns={"agent": "other"})[["other", "proposition", "value", "seen"]],
        on=["proposition", "value"],
        suffixes=("", "_other"),
    )
    leaked = others[others["other"].ne(others["agent"]) & (others["seen_other"] <= others["tick"])]
    return float(len(leaked[["agent", "proposition"]].drop_duplicates()))


METRIC = register(
    Metric(
        name="isolation_violations",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of (agent, proposition) pairs asserted (utterance or answer) by an "
        "agent never exposed to the proposition, with a value another agent had been exposed to",
        internal=False,
        fn=isolation_violations,
    )
)
