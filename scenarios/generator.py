"""The generated village: N agents on a generated map, for throughput and scaling.

Its structure seed (neighbourhoods, road lengths, who frequents which places, who learns the
news) is part of the scenario's identity — in its name — and is separate from episode seeds,
which vary only who meets whom and when.

A village grows by hamlets, as villages do: every `HAMLET` people share a square, a park, a
well and a mill of their own, and the whole village shares the bakery and the market. So an
agent's company at its haunts, and with it its chats a day, stays what it is in a small
village however many live there, and only the village's two shops draw a crowd.
"""

from __future__ import annotations

import random

from .model import Scenario

PUBLIC = ("square", "market", "bakery", "park", "well", "mill")
SHARED = ("market", "bakery")  # the village's: every hamlet's people shop there
HAMLET = 24  # people per hamlet (a village of fewer than 48 is one hamlet)


def _local(place: str, hamlet: int) -> str:
    """A hamlet's own public place (the first hamlet's keep the village's plain names)."""
    return place if hamlet == 0 or place in SHARED else f"{place}_{hamlet}"


def village_name(agents: int, structure_seed: int) -> str:
    return f"village_{agents}_s{structure_seed}"


def village(agents: int = 25, structure_seed: int = 0, hours: int = 48) -> Scenario:
    """A village of `agents` agents; the bakery closes on day 2 and one agent hears first."""
    if agents < 2:
        raise ValueError("a village needs at least 2 agents")
    rng = random.Random(structure_seed)  # a local generator: the structure, not the episode
    names = [f"a{i:04d}" for i in range(agents)]
    quarters = max(1, agents // 12)
    hamlets = max(1, agents // HAMLET)
    places = [{"id": p, "kind": "public"} for p in PUBLIC]
    roads = [{"a": "square", "b": p, "minutes": rng.randint(4, 12)} for p in PUBLIC[1:]]
    for h in range(1, hamlets):  # each further hamlet: its own places around its own square
        square = _local("square", h)
        places += [{"id": _local(p, h), "kind": "public"} for p in PUBLIC if p not in SHARED]
        roads.append({"a": square, "b": "square", "minutes": rng.randint(5, 15)})
        roads += [
            {"a": square, "b": _local(p, h), "minutes": rng.randint(4, 12)}
            for p in PUBLIC[1:]
            if p not in SHARED
        ]
    for q in range(quarters):  # a quarter's street leads to its hamlet's square
        places.append({"id": f"quarter_{q}", "kind": "street"})
        square = _local("square", q % hamlets)
        roads.append({"a": f"quarter_{q}", "b": square, "minutes": rng.randint(3, 10)})
    people = []
    for i, name in enumerate(names):
        home = f"home_{name}"
        hamlet = (i % quarters) % hamlets
        places.append({"id": home, "kind": "home"})
        roads.append({"a": home, "b": f"quarter_{i % quarters}", "minutes": rng.randint(2, 6)})
        haunts = [_local(p, hamlet) for p in rng.sample(PUBLIC, 3)]
        people.append(
            {
                "id": name,
                "home": home,
                "routine": [
                    {"at": "09:00", "go": haunts},
                    {"at": "12:30", "go": haunts[:2]},
                    {"at": "16:00", "go": [haunts[2], _local("square", hamlet)]},
                    {"at": "19:30", "go": [home], "activities": 3},
                ],
                "errands": [
                    {
                        "id": "buy_bread",
                        "at": "08:00",
                        "days": [1, 2],
                        "action": "buy_bread",
                        "target": "bakery",
                    }
                ],
                # two in three also know the market sells bread (no draw: the structure stays)
                "knows_where": {"buy_bread": ["bakery", "market"] if i % 3 else ["bakery"]},
            }
        )
    origin = names[rng.randrange(agents)]
    end = f"day {1 + hours // 24} {hours % 24:02d}:00"
    data = {
        "name": village_name(agents, structure_seed),
        "description": f"a generated village of {agents} agents (structure seed "
        f"{structure_seed}): the bakery is closed on day 2",
        "start": "day 1 00:00",
        "duration": f"{hours}h",
        "tick_minutes": 1,
        "encounter_chance": 0.004,
        "chat_cooldown": "90min",
        "physics": ["harness.worlds.village"],
        "predicates": {"closed_on": {"phrase": "closed on day {object}", "sense": "unusable"}},
        "world": {
            "places": places,
            "roads": roads,
            "facts": {"bakery.open": True, "market.open": True},
            "stock": [
                {"resource": "bread", "holder": "bakery", "count": 4 * agents},
                {"resource": "bread", "holder": "market", "count": 4 * agents},
            ],
        },
        "agents": people,
        "events": [
            {
                "id": "baker_tells",
                "at": "day 1 08:30",
                "kind": "notice",
                "proposition": "bakery_closed_day2",
                "value": "true",
                "channel": "heard",
                "seen_by": [origin],
            },
            {
                "id": "bakery_closes",
                "at": "day 2 00:00",
                "kind": "set_facts",
                "sets": {"bakery.open": False},
            },
        ]
        if hours > 24
        else [
            {
                "id": "baker_tells",
                "at": "day 1 08:30",
                "kind": "notice",
                "proposition": "bakery_closed_day2",
                "value": "true",
                "channel": "heard",
                "seen_by": [origin],
            }
        ],
        "truth": [
            {
                "proposition": "bakery_closed_day2",
                "subject": "bakery",
                "predicate": "closed_on",
                "object": "2",
                "value": "true",
                "origin": origin,
            }
        ],
        "decision_points": [
            {
                "id": "buy_bread_day2",
                "proposition": "bakery_closed_day2",
                "action": "buy_bread",
                "day": 2,
                "right": ["market"],
            }
        ]
        if hours > 24
        else [],
        "census": [end],
        "metrics": ["reach", "provenance", "action_consistency"]
        if hours > 24
        else ["reach", "provenance"],
    }
    return Scenario.model_validate(data)
