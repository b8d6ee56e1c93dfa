"""Diffusion curves: how many agents could know each tracked proposition, tick by tick.

From exposures (what the harness recorded an agent could perceive), not from answers, so the
curve shows the spread itself; the census metrics say what stuck. Averaged over seeds.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from pandas.api.types import is_list_like

from ..metrics._tables import CERTAIN, flag

COLUMNS = [
    "scenario",
    "proposition",
    "private",
    "seeds",
    "audience",
    "tick",
    "knowers",
    "hedged",
    "outsiders",
]


def diffusion_curves(traces: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean over seeds, per scenario, tracked proposition and tick where anything changed:

    knowers   agents (origin excluded) exposed to the true value by that tick
    hedged    those knowers whose exposures to the true value so far were all non-certain
    outsiders agents exposed (any value) outside a private proposition's audience (0 if public)
    audience  the intended audience's size, origin excluded; seeds: how many were averaged
    Sorted by scenario, proposition, tick; the last tick is the scenario's last recorded tick.
    """
    truth = traces.get("truth")
    if truth is None or truth.empty:
        return pd.DataFrame(columns=COLUMNS)
    truth = _truth(truth)
    agents = _first_ticks(traces.get("exposures"), truth)
    ends = _ends(traces)
    frames = []
    for (scenario, proposition), group in truth.groupby(["scenario", "proposition"], sort=True):
        mine = agents[(agents["scenario"] == scenario) & (agents["proposition"] == proposition)]
        frames.append(_curve(str(scenario), str(proposition), group, mine, ends[scenario]))
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def _truth(truth: pd.DataFrame) -> pd.DataFrame:
    """One row per (scenario, seed, proposition) with the audience size (origin excluded)."""
    truth = truth[["scenario", "seed", "proposition", "value", "origin", "private", "audience"]]
    truth = truth.assign(
        scenario=truth["scenario"].astype(str),
        proposition=truth["proposition"].astype(str),
        seed=truth["seed"].astype("int64"),
        private=flag(truth["private"]),
    )
    # a value that changes has a row per value: its curve follows the last one
    truth = truth.drop_duplicates(["scenario", "seed", "proposition"], keep="last")
    size = [
        len({a for a in aud if isinstance(a, str)} - {origin}) if is_list_like(aud) else 0
        for aud, origin in zip(truth["audience"], truth["origin"], strict=True)
    ]
    return truth.assign(audience_size=size)


def _first_ticks(exposures: pd.DataFrame | None, truth: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, seed, proposition, agent): first exposure to the true value (`know`),
    first `certain` one (`sure`), first of any value (`any`), and whether it is an outsider."""
    keys = ["scenario", "seed", "proposition", "agent"]
    if exposures is None or exposures.empty:
        return pd.DataFrame(columns=[*keys, "know", "sure", "any", "outsider"])
    exp = exposures[["scenario", "seed", "tick", "agent", "proposition", "value", "modality"]]
    exp = exp.assign(
        scenario=exp["scenario"].astype(str),
        seed=exp["seed"].astype("int64"),
        proposition=exp["proposition"].astype(str),
        tick=exp["tick"].astype("int64").astype(float),
    )
    exp = exp.merge(truth, on=["scenario", "seed", "proposition"], suffixes=("", "_true"))
    exp = exp[~flag(exp["agent"].eq(exp["origin"]))]
    true = flag(exp["value"].eq(exp["value_true"]))
    sure = true & flag(exp["modality"].eq(CERTAIN))
    exp = exp.assign(know=exp["tick"].where(true), sure=exp["tick"].where(sure))
    firsts = (
        exp.groupby(keys, sort=True)
        .agg(know=("know", "min"), sure=("sure", "min"), any=("tick", "min"))
        .reset_index()
    )
    allowed = truth[["scenario", "seed", "proposition", "audience"]].explode("audience")
    allowed = allowed.rename(columns={"audience": "agent"}).dropna().astype({"agent": str})
    inside = (
        firsts[keys]
        .astype({"agent": str})
        .merge(allowed.assign(inside=True), on=keys, how="left")["inside"]
    )
    private = firsts[["scenario", "seed", "proposition"]].merge(
        truth[["scenario", "seed", "proposition", "private"]], how="left"
    )["private"]
    outsider = private.to_numpy(bool) & inside.isna().to_numpy()
    return firsts.assign(outsider=outsider)


def _ends(traces: Mapping[str, pd.DataFrame]) -> dict[str, int]:
    """Each scenario's last recorded tick over all tables."""
    ends: dict[str, int] = {}
    for frame in traces.values():
        if frame.empty or "tick" not in frame.columns:
            continue
        for scenario, tick in frame.groupby("scenario", sort=True)["tick"].max().items():
            ends[str(scenario)] = max(ends.get(str(scenario), 0), int(tick))
    return ends


def _curve(
    scenario: str, proposition: str, truth: pd.DataFrame, agents: pd.DataFrame, end: int
) -> pd.DataFrame:
    """The seed-averaged step curves of one (scenario, proposition)."""
    seeds = sorted(truth["seed"].unique().tolist())
    times = agents[["know", "sure", "any"]].to_numpy(float).ravel()
    grid = np.unique(np.concatenate([[0.0, float(end)], times[np.isfinite(times)]]))
    grid = grid[grid <= end]
    totals = np.zeros((3, grid.size))
    for seed in seeds:
        mine = agents[agents["seed"] == seed]
        know = np.sort(mine["know"].dropna().to_numpy(float))
        sure = np.sort(mine["sure"].dropna().to_numpy(float))
        outside = np.sort(mine.loc[mine["outsider"].to_numpy(bool), "any"].to_numpy(float))
        knowers = np.searchsorted(know, grid, side="right")
        totals[0] += knowers
        totals[1] += knowers - np.searchsorted(sure, grid, side="right")
        totals[2] += np.searchsorted(outside, grid, side="right")
    mean = totals / len(seeds)
    return pd.DataFrame(
        {
            "scenario": scenario,
            "proposition": proposition,
            "private": bool(truth["private"].any()),
            "seeds": len(seeds),
            "audience": float(np.mean(truth.sort_values("seed")["audience_size"].to_numpy(float))),
            "tick": grid.astype("int64"),
            "knowers": mean[0],
            "hedged": mean[1],
            "outsiders": mean[2],
        }
    )
