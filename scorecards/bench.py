"""How long scoring takes: a synthetic episode set of about `rows` trace rows, scored once.

Not a test (nothing is asserted): `python -m scorecards.bench 1000000` prints the seconds.
The synthetic traces (`synthetic_traces`) exercise every metric, so the tests also use them
to check order independence and that no NaN reaches a scorecard.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .definition import ScorecardDefinition, load_definition
from .scorecard import score

SHARES = {  # of the rows, per table
    "exposures": 0.25,
    "utterances": 0.2,
    "probes": 0.1,
    "actions": 0.15,
    "memory_ops": 0.2,
    "events": 0.05,
    "state": 0.02,
    "observations": 0.03,
}
PROPOSITIONS = ("bakery_closed", "bo_leaves", "secret")  # certain, rumor, private
MODALITIES = ("certain", "likely", "rumor")
WORDS = ("I saw it myself.", "Ana told me it might be so.", "It is so.", "Bo says so, I am sure.")
END = 576  # ticks: two days of five minutes


class _Draw:
    """Random columns for n rows spread over scenarios x seeds episodes."""

    def __init__(self, rng: np.random.Generator, scenarios: int, seeds: int, agents: int):
        self.rng, self.seeds, self.episodes = rng, seeds, scenarios * seeds
        self.names = np.array([f"a{i:02d}" for i in range(agents)], dtype=object)
        self.scenarios = np.array([f"scenario_{i}" for i in range(scenarios)], dtype=object)

    def key(self, episode: np.ndarray) -> dict[str, np.ndarray]:
        n = len(episode)
        return {
            "scenario": self.scenarios[episode // self.seeds],
            "seed": (episode % self.seeds).astype("int64"),
            "tick": self.rng.integers(0, END, n).astype("int64"),
            "event_id": np.arange(n, dtype="int64"),
        }

    def rows(self, n: int) -> dict[str, np.ndarray]:
        return self.key(np.sort(self.rng.integers(0, self.episodes, max(n, self.episodes))))

    def each(self, k: int) -> dict[str, np.ndarray]:
        """k rows per episode, at tick 0."""
        out = self.key(np.repeat(np.arange(self.episodes), k))
        out["tick"] = np.zeros(k * self.episodes, "int64")
        return out

    def pick(self, options: Sequence[object] | np.ndarray, n: int, null: float = 0.0) -> np.ndarray:
        out = np.array(options, dtype=object)[self.rng.integers(0, len(options), n)]
        out[self.rng.random(n) < null] = None
        return out


def _or_none(cond: ArrayLike, x: ArrayLike) -> np.ndarray:
    """`np.where(cond, x, None)`: `x` where `cond` holds, None elsewhere (an object column)."""
    return np.where(cond, x, None)  # type: ignore[call-overload]  # numpy's stubs lack y=None


def _knowledge(d: _Draw, rows: int) -> dict[str, pd.DataFrame]:
    """truth, exposures, utterances, probes."""
    names, pick, n_ep = d.names, d.pick, d.episodes
    truth = pd.DataFrame(
        {
            **d.each(3),
            "proposition": np.tile(np.array(PROPOSITIONS, dtype=object), n_ep),
            "value": "yes",
            "modality": np.tile(np.array(["certain", "rumor", "certain"], object), n_ep),
            "origin": names[0],
            "private": np.tile([False, False, True], n_ep),
            "audience": [list(names) if i % 3 < 2 else list(names[:3]) for i in range(3 * n_ep)],
            "valid_from": None,
            "valid_to": None,
            "supersedes": np.tile(np.array([None, "bakery_closed", None], object), n_ep),
            "origins": None,
            "origin_modalities": None,
            "origin_ticks": None,
        }
    )
    key = d.rows(int(rows * SHARES["exposures"]))
    n = len(key["tick"])
    channel = pick(("told", "seen", "heard", "read"), n)
    agents, props = pick(names, n), pick(PROPOSITIONS, n)
    # the rumor is only ever heard of, never seen: who hears it both ways holds a contest
    channel = np.where(props == PROPOSITIONS[1], "told", channel)
    exposures = pd.DataFrame(
        {
            **key,
            "agent": agents,
            "proposition": props,
            "value": pick(("yes", "yes", "no"), n),
            "modality": pick(MODALITIES, n),
            "channel": channel,
            "from_agent": _or_none(channel == "told", pick(names, n)),
        }
    )
    key = d.rows(int(rows * SHARES["utterances"]))
    n = len(key["tick"])
    utterances = pd.DataFrame(
        {
            **key,
            "speaker": pick(names, n),
            "listener": pick(names, n),
            "claim_id": np.arange(n),
            "proposition": pick(PROPOSITIONS, n),
            "value": pick(("yes", "no"), n),
            "modality": pick(MODALITIES, n),
            "stated_source": pick([*names, "self"], n, 0.3),
            "privacy": pick(("public", "private"), n),
            # every other utterance in an agent's own words (drawn without the generator, so
            # the other tables' draws stay as they were)
            "text": np.array(WORDS, dtype=object)[np.arange(n) % len(WORDS)],
            "text_by": np.where(np.arange(n) % 2 == 0, "agent", "harness"),
            # a few scripted lines (every twentieth), also drawn without the generator
            "scripted": np.arange(n) % 20 == 0,
            # every seventh claim from nowhere (its speaker never exposed), likewise
            "grounded": np.arange(n) % 7 != 0,
        }
    )
    key = d.rows(int(rows * SHARES["probes"]))
    n = len(key["tick"])
    kind = pick(("census", "census", "probe"), n)
    key["tick"] = np.where(kind == "census", END, key["tick"])
    probes = pd.DataFrame(
        {
            **key,
            "agent": pick(names, n),
            "probe_id": "p",
            "kind": kind,
            "proposition": pick(PROPOSITIONS, n),
            "answer_value": pick(("yes", "no"), n, 0.3),
            "answer_modality": pick(MODALITIES, n),
            "answer_source": pick([*names, "self"], n, 0.2),
            "answer_origin": pick([*names, "self"], n, 0.3),
            "answer_replaced_by": pick(PROPOSITIONS, n, 0.8),
        }
    )
    return {"truth": truth, "exposures": exposures, "utterances": utterances, "probes": probes}


def _behaviour(d: _Draw, rows: int) -> dict[str, pd.DataFrame]:
    """actions, decision_points, requests, memory_ops, events (transfers and milestones),
    state, observations."""
    names, pick, rng = d.names, d.pick, d.rng
    key = d.rows(int(rows * SHARES["actions"]))
    n = len(key["tick"])
    decided = rng.random(n) < 0.4
    other = pick(("walk", "ask_for_help", "paint", "deliver", "decline"), n)
    actions = pd.DataFrame(
        {
            **key,
            "agent": pick(names, n),
            "action": np.where(decided, "buy_bread", other),
            "target": pick(("bakery", "market", "lamp", "sink"), n, 0.1),
            "plan_id": 1,
            "ok": rng.random(n) < 0.8,
            "decision_point": _or_none(decided, "bread_day_2"),
            "proposition": _or_none(decided, pick(PROPOSITIONS[:2], n)),
            "in_line": _or_none(decided, rng.random(n) < 0.6),
            "horizon": _or_none(decided, 12),
            "request_id": pick(("r1", "r2"), n, 0.8),
            # the errand's own target, and what a guess away from it gets (no draws)
            "planned": _or_none(decided, "bakery"),
            "chance": _or_none(decided, 0.5),
        }
    )
    episodes = np.arange(d.episodes)  # one point per episode, drawn without the generator
    points = pd.DataFrame(
        {
            "scenario": d.scenarios[episodes // d.seeds],
            "seed": (episodes % d.seeds).astype("int64"),
            "tick": np.zeros(d.episodes, "int64"),
            "event_id": np.zeros(d.episodes, "int64"),
            "decision_point": "bread_day_2",
            "proposition": PROPOSITIONS[0],
            "action": "buy_bread",
            "day": 2,
            "opens": END // 2,
            "closes": END - 1,
            "right": [["market"] for _ in range(d.episodes)],
            "when": None,
            "propositions": None,
        }
    )
    requests = pd.DataFrame(
        {
            **d.each(2),
            "request_id": np.tile(np.array(["r1", "r2"], object), d.episodes),
            "agent": names[1],
            "action": "deliver",
            "item": "pastry",
            "place": "picnic",
            "deadline": END,
            # the second request meets its agent's stance: a decline of it stands
            "stance": np.tile(np.array([None, "no_sweets"], object), d.episodes),
            "reason": np.tile(np.array([None, "never handles sweets"], object), d.episodes),
        }
    )
    key = d.rows(int(rows * SHARES["memory_ops"]))
    n = len(key["tick"])
    agent = pick(names, n)
    memory_ops = pd.DataFrame(
        {
            **key,
            "agent": agent,
            "op": pick(("write", "retrieve", "retrieve", "evict"), n),
            "experience_id": rng.integers(0, 1000, n),
            "experience_owner": np.where(rng.random(n) < 0.999, agent, pick(names, n)),
            "purpose": "plan",
            "subject": "bakery",
            "rank": 1,
            "relevant": rng.random(n) < 0.7,
            "importance": rng.random(n),
            "size": rng.integers(0, 200, n),
            "capacity": 200,
        }
    )
    key = d.rows(int(rows * SHARES["events"]) // 2)  # transfers in pairs that net to 0
    key = {k: np.repeat(v, 2) for k, v in key.items()}
    n = len(key["tick"])
    units = rng.integers(1, 3, n // 2)
    events = pd.DataFrame(
        {
            **key,
            "kind": pick(("transfer", "transfer", "milestone"), n // 2).repeat(2),
            "place": None,
            "agent": None,
            "detail": pick(("sketch", "body", "finish"), n),
            "resource": "meal",
            "holder": pick(names, n),
            "delta": np.stack([-units, units], axis=1).ravel(),
        }
    )
    key = d.rows(int(rows * SHARES["state"]))
    n = len(key["tick"])
    state = pd.DataFrame(
        {
            **key,
            "agent": pick(names, n),
            "variable": pick(("inventory:meal", "energy"), n),
            "value": rng.integers(0, 6, n).astype(float),
        }
    )
    key = d.rows(int(rows * SHARES["observations"]))
    n = len(key["tick"])
    observations = pd.DataFrame(
        {
            **key,
            "agent": pick(names, n),
            "kind": "sight",
            "channel": "seen",
            "from_agent": None,
            "subject": pick(("lamp", "sink"), n),
            "proposition": None,
            "detail": None,
        }
    )
    return {
        "actions": actions,
        "decision_points": points,
        "requests": requests,
        "memory_ops": memory_ops,
        "events": events,
        "state": state,
        "observations": observations,
    }


KINDS = ("greeting", "promise", "correction", "question", "fact", "crisis", "joke", "chat")
REPLIES = (
    "Hey. It's been three days. I missed you.",
    "Hey again.",
    "Are you safe right now? Is someone with you? Please call 12356 now.",
    "Noted: it is so.",
    "It is 42, I think.",
    "- one\n- two",
)


def _conversation(d: _Draw, rows: int) -> dict[str, pd.DataFrame]:
    """dialogue (lines with replies, unprompted turns), the characters and their report
    windows, lessons, hold plans and introspection entries — drawn after every other table, so
    theirs stay as they were."""
    names, pick, rng = d.names, d.pick, d.rng
    key = d.rows(max(1, int(rows * 0.02)))
    n = len(key["tick"])
    kind = pick(KINDS, n)
    tier = np.where(kind == "crisis", pick(("high", "watch"), n), "none")
    line = np.array([f"l{i}" for i in range(n)], dtype=object)
    asks = np.isin(kind, ("promise", "correction", "question", "fact"))
    valued = np.isin(kind, ("correction", "fact"))
    minute = key["tick"] * 5
    lines = {
        **key,
        "agent": pick(names[:2], n),
        "at": minute,
        "speaker": pick(("player", "customer"), n),
        "turn": "line",
        "line_id": line,
        "text": "words",
        "proposition": _or_none(asks, pick(PROPOSITIONS, n)),
        "value": _or_none(valued, pick(("yes", "no"), n)),
        "kind": kind,
        "tier": tier,
        "due": _or_none(kind == "promise", key["tick"] + rng.integers(0, 40, n)),
        "gap": _or_none(kind == "greeting", pick((3, 30, 3000, 6000), n)),
    }
    frame = pd.DataFrame(lines)
    reply = frame.assign(
        speaker=frame["agent"],
        listener=frame["speaker"],
        turn="reply",
        text=pick(REPLIES, n),
        kind=None,
        tier=None,
        due=None,
        gap=None,
        value=_or_none(asks, pick(("yes", "no"), n)),
    )
    proactive = frame.sample(frac=0.5, random_state=0).assign(
        speaker=lambda f: f["agent"],
        listener="player",
        turn="proactive",
        line_id=None,
        text=lambda f: pick(REPLIES, len(f)),
        kind=None,
        tier=None,
        due=None,
        gap=None,
    )
    characters = pd.DataFrame(
        {
            **d.each(1),
            "agent": names[0],
            "start": 0,
            "minutes_per_tick": 5,
            "messages_per_day": 3,
            "emergency": [["12356", "120"]] * d.episodes,
            "sleeps": 23 * 60 + 30,
            "wakes": 7 * 60,
        }
    )
    dialogue = pd.concat([frame, reply, proactive], ignore_index=True)
    # every third chat line states a liking instead (no draw: the other tables stay as they were)
    liked = dialogue.index[dialogue["turn"].eq("line") & dialogue["kind"].eq("chat")][::3]
    dialogue.loc[liked, "kind"] = "preference"
    dialogue.loc[liked, "proposition"] = "liked"
    dialogue.loc[liked, "value"] = [("three", "tea")[i % 2] for i in range(len(liked))]
    m = max(1, n // 4)
    lessons = pd.DataFrame(
        {
            **d.rows(m),
            "agent": pick(names[:2], m),
            "lesson": "unanswered_morning",
            "kind": "lesson",
            "text": pick(("next time write in the evening", "next time do better"), m),
            "evidence": [list(map(int, rng.integers(0, END, 2))) for _ in range(m)],
            "counter": [list(map(int, rng.integers(0, END, 1))) for _ in range(m)],
            "gate": pick(("kept", "no_evidence"), m),
        }
    )
    plans = pd.DataFrame(
        {
            **d.rows(m),
            "agent": pick(names[:2], m),
            "plan_id": None,
            "goal": "talk",
            "day": 1,
            "action": "journal",
            "target": "home",
            "reason": "hold",
        }
    )
    looks = pd.DataFrame(
        {
            **d.rows(m),
            "agent": pick(names[:2], m),
            "op": "introspect",
            "experience_id": None,
            "experience_owner": None,
            "purpose": "night",
            "subject": None,
            "rank": None,
            "relevant": None,
            "importance": None,
            "size": 0,
            "capacity": 200,
        }
    )
    # the background layers: a reading's window, notes about the user, the views held
    windows = pd.DataFrame(
        {**d.each(1), "agent": names[0], "proposition": PROPOSITIONS[0], "minutes": 180}
    )
    notes = pd.DataFrame(
        {
            **d.rows(m),
            "agent": pick(names[:2], m),
            "op": pick(("note", "opinion"), m),
            "experience_id": None,
            "experience_owner": None,
            "purpose": "likes",
            "subject": pick(("tea beats coffee", "drinks tea"), m),
            "rank": None,
            "relevant": None,
            "importance": rng.random(m),
            "size": rng.integers(1, 5, m),
            "capacity": None,
        }
    )
    looks = pd.concat([looks, notes], ignore_index=True)
    return {
        "dialogue": dialogue,
        "characters": characters,
        "report_windows": windows,
        "lessons": lessons,
        "plans": plans,
        "memory_ops": looks,
    }


def synthetic_traces(
    rows: int, *, scenarios: int = 4, seeds: int = 50, agents: int = 12, rng_seed: int = 0
) -> dict[str, pd.DataFrame]:
    """Trace tables of scenarios x seeds episodes holding about `rows` rows in all."""
    draw = _Draw(np.random.default_rng(rng_seed), scenarios, seeds, agents)
    traces = {**_knowledge(draw, rows), **_behaviour(draw, rows)}
    talk = _conversation(draw, rows)
    traces["memory_ops"] = pd.concat([traces["memory_ops"], talk.pop("memory_ops")])
    traces["memory_ops"] = traces["memory_ops"].reset_index(drop=True)
    return {**traces, **talk}


def bench_score(
    rows: int, *, scenarios: int = 4, seeds: int = 50, definition: ScorecardDefinition | None = None
) -> float:
    """Seconds to score a synthetic set of scenarios x seeds episodes of about `rows` rows."""
    traces = synthetic_traces(rows, scenarios=scenarios, seeds=seeds)
    hashes = {"harness": "bench", "instrument": "bench", "policy": "bench"}
    started = time.perf_counter()
    score(traces, definition or load_definition(), hashes=hashes)
    return time.perf_counter() - started


if __name__ == "__main__":
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    print(f"rows: {total}\nseconds: {bench_score(total):.2f}")
