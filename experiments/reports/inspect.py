"""`villagelab inspect`: one agent at one tick, reconstructed from the traces alone.

Its state, the recent events that touched it, its beliefs with provenance, its last
retrievals, plans and trust — what a person debugging a drifting agent wants side by side —
and, for an LLM agent, its model calls at that tick (or the latest before it): each prompt as
sent and the reply as it came back, with what became of the reply.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from rich.console import Group
from rich.table import Table
from rich.text import Text

from experiments.console.terminal import cell, clean
from experiments.evaluation.manifest import sealed_manifest
from experiments.evaluation.run_folder import read_progress
from harness.engine.store import episode_path, read_episode
from policies import InputError


def _recorded(
    root: Path, scenario: str, seed: int
) -> tuple[dict[str, str] | None, dict[str, int] | None]:
    """The episode's trace files' SHA-256 as the folder's manifest recorded them (None for a
    folder without one, such as a champion's: then only the pages' own checksums are checked),
    and their sizes when it recorded them. A manifest that was edited or damaged is refused."""
    path = Path(root) / "manifest.json"
    if not path.exists():
        return None, None
    meta = sealed_manifest(path)
    entries = [*meta.get("episodes", []), *read_progress(root)]
    for entry in entries:
        if (entry.get("scenario"), entry.get("seed")) == (scenario, seed):
            if entry.get("status") != "ok" or not isinstance(entry.get("sha256"), dict):
                raise InputError(
                    f"{path}: episode {scenario}/{seed} is {entry.get('status')}; it has no "
                    "traces to inspect"
                )
            sizes = entry.get("bytes")
            return dict(entry["sha256"]), (dict(sizes) if isinstance(sizes, dict) else None)
    raise InputError(
        f"{path}: episode {scenario}/{seed} is not recorded as finished; inspect an episode "
        "the run finished (its manifest lists each one)"
    )


def _table(title: str, frame: pd.DataFrame, columns: list[str]) -> Table:
    table = Table(title=title, title_justify="left")
    for col in columns:
        table.add_column(col)
    for row in frame[columns].itertuples(index=False):
        table.add_row(*(_cell(column, v) for column, v in zip(columns, row)))
    return table


def _cell(column: str, v: object) -> Text:
    """Trace values are shown as text (never parsed as markup; a folder may be crafted)."""
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return cell("")
    if isinstance(v, float):  # ids and ranks come back as floats when a column has nulls
        return cell(f"{v:.3f}" if column in ("value", "confidence") else str(int(v)))
    return cell(v)


def inspect(
    root: Path, scenario: str, seed: int, agent: str, tick: int | None, recent: int = 12
) -> Group:
    probe = episode_path(root, "actions", scenario, seed)
    if not probe.exists():
        raise InputError(
            f"{root}: no traces for scenario {scenario!r} seed {seed}; expected {probe}"
        )
    digests, sizes = _recorded(root, scenario, seed)
    t = {
        name: table.to_pandas()
        for name, table in read_episode(root, scenario, seed, digests, sizes).items()
    }
    known = set(t["observations"].agent) | set(t["actions"].agent) | set(t["probes"].agent)
    if agent not in known:
        raise InputError(
            f"no agent {agent!r} in {scenario}/{seed}; agents: {', '.join(sorted(known))}"
        )
    end = int(max((int(f.tick.max()) for f in t.values() if len(f)), default=0))
    at = end if tick is None else tick

    def mine(name: str, column: str = "agent") -> pd.DataFrame:
        frame = t[name]
        return frame[(frame[column] == agent) & (frame.tick <= at)]

    state = mine("state").sort_values("tick").groupby("variable").tail(1)
    beliefs = mine("beliefs").sort_values(["tick", "event_id"]).groupby("proposition").tail(1)
    retrievals = mine("memory_ops")
    retrievals = retrievals[retrievals.op == "retrieve"].tail(recent)
    events = pd.concat(
        [
            mine("observations").assign(what=lambda f: f.kind + " " + f.subject),
            mine("actions").assign(
                what=lambda f: (
                    f.action + " @ " + f.target + f.ok.map({True: "", False: " (failed)"})
                )
            ),
        ]
    )
    events = events.sort_values(["tick", "event_id"]).tail(recent)
    trust = mine("trust").sort_values("tick").groupby(["other", "domain"]).tail(1)
    plans = mine("plans").sort_values("tick").tail(6)
    return Group(
        Text.assemble(
            (clean(agent), "bold"),
            clean(f" in {scenario} seed {seed} at tick {at} (episode ends at {end})"),
        ),
        _table("state (latest snapshot)", state, ["variable", "value", "tick"]),
        _table(
            "recent events that reached or came from it",
            events,
            ["tick", "event_id", "what", "from_agent", "detail"],
        ),
        _table(
            "beliefs with provenance",
            beliefs,
            [
                "proposition",
                "value",
                "confidence",
                "modality",
                "origin",
                "told_by",
                "status",
                "tick",
            ],
        ),
        _table(
            "last retrievals",
            retrievals,
            ["tick", "purpose", "subject", "experience_id", "rank", "relevant"],
        ),
        _table("plans", plans, ["tick", "goal", "action", "target", "reason"]),
        _table("trust", trust, ["other", "domain", "value", "tick"]),
        *_model_calls(mine("llm_calls") if "llm_calls" in t else None),
    )


def _model_calls(calls: pd.DataFrame | None, most: int = 6) -> list[Text | Table]:
    """An LLM agent's calls at the latest tick it called its model (up to `most`): what
    it was asked and what it answered; nothing for an agent that calls no model."""
    if calls is None or not len(calls) or "prompt" not in calls:
        return []
    last = int(calls.tick.max())
    here = calls[calls.tick == last].tail(most)
    shown: list[Text | Table] = [
        _table(
            f"model calls at tick {last}",
            here,
            ["tick", "purpose", "structured_output", "outcome", "tokens_in", "tokens_out"],
        )
    ]
    for row in here.itertuples(index=False):
        shown.append(Text.assemble((clean(f"{row.purpose} — prompt"), "bold")))
        shown.append(cell(row.prompt or ""))
        shown.append(Text.assemble((clean(f"{row.purpose} — reply ({row.outcome})"), "bold")))
        shown.append(cell(row.reply or "(no reply)"))
    return shown
