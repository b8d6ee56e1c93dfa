"""What a scenario's schema cannot express: sizes within documented bounds, places an agent
must reach reachable from its home, acyclic supersession, days within the run, unique ids,
facts that name something.

Each check yields (path, expectation) like the cross-references in `loader`; the loader turns
them into located errors. `Bounds` are the documented limits (README, "Writing a scenario");
`LARGE` is what `--allow-large` allows for a deliberate big run.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ._types import PLANNING_SENSES, PlaceFact, Sense
from .clock import MINUTES_PER_DAY, day_of
from .model import Scenario

Problem = tuple[tuple[str | int, ...], str]


@dataclass(frozen=True)
class Bounds:
    """Documented limits on a scenario's size and on an episode's estimated cost."""

    days: int  # the duration
    agents: int
    items: int  # places, roads, events, truth, probes, requests, decision points each
    agent_ticks: int  # an episode's estimated cost: agents × ticks
    large: bool = False

    @property
    def hint(self) -> str:
        return "" if self.large else " (--allow-large for a deliberate big run)"


DEFAULT = Bounds(days=60, agents=1_000, items=10_000, agent_ticks=20_000_000)
LARGE = Bounds(days=3_650, agents=1_000_000, items=1_000_000, agent_ticks=10**15, large=True)
START_DAYS = 366  # a scenario starts within its first year
ROAD_MINUTES = 7 * MINUTES_PER_DAY
SPAN_MINUTES = 30 * MINUTES_PER_DAY  # chat cooldown, plan horizon
COUNT = 1_000_000  # units of a resource held, supplied or moved at once
TEXT = 4_000  # characters of a description or any other text
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")  # a fact's thing and attribute, as ids are


def agent_ticks(scenario: Scenario) -> int:
    """An episode's estimated cost: agents × ticks (idle agents cost less, never more)."""
    return len(scenario.agents) * (scenario.duration // scenario.tick_minutes + 1)


def cost_problem(scenario: Scenario, bounds: Bounds) -> str | None:
    """Why an episode of this scenario is too big to start, saying the estimate; None if not."""
    cost = agent_ticks(scenario)
    if cost <= bounds.agent_ticks:
        return None
    return (
        f"an episode's estimated cost is {cost:,} agent-ticks ({len(scenario.agents):,} agents "
        f"× {scenario.duration // scenario.tick_minutes + 1:,} ticks); expected at most "
        f"{bounds.agent_ticks:,}{bounds.hint}"
    )


def problems(s: Scenario, bounds: Bounds = DEFAULT) -> Iterator[Problem]:
    yield from _sizes(s, bounds)
    yield from _roads(s)
    yield from _supersession(s)
    yield from _retractions(s)
    yield from _references(s)
    yield from _facts(s)
    yield from _days(s)
    yield from _unique(s)
    yield from _priorities(s)
    yield from _texts(s.model_dump(), ())


def _sizes(s: Scenario, bounds: Bounds) -> Iterator[Problem]:
    if s.duration > bounds.days * MINUTES_PER_DAY:
        yield ("duration",), f"a duration of at most {bounds.days} days{bounds.hint}"
    if s.start >= START_DAYS * MINUTES_PER_DAY:
        yield ("start",), f"a start within the first {START_DAYS} days"
    if len(s.agents) > bounds.agents:
        yield ("agents",), f"at most {bounds.agents:,} agents{bounds.hint}"
    where: tuple[str | int, ...]  # paths of any length below
    for where, items in (
        (("world", "places"), s.world.places),
        (("world", "roads"), s.world.roads),
        (("world", "stock"), s.world.stock),
        (("events",), s.events),
        (("truth",), s.truth),
        (("probes",), s.probes),
        (("requests",), s.requests),
        (("decision_points",), s.decision_points),
        (("census",), s.census or ()),
    ):
        if len(items) > bounds.items:
            yield where, f"at most {bounds.items:,} entries{bounds.hint}"
    for where, minutes in (
        (("chat_cooldown",), s.chat_cooldown),
        (("plan_horizon",), s.plan_horizon),
    ):
        if minutes > SPAN_MINUTES:
            yield where, f"at most {SPAN_MINUTES // MINUTES_PER_DAY} days"
    for i, road in enumerate(s.world.roads):
        if road.minutes > ROAD_MINUTES:
            yield ("world", "roads", i, "minutes"), f"at most {ROAD_MINUTES} minutes"
    for i, stock in enumerate(s.world.stock):
        if stock.count > COUNT:
            yield ("world", "stock", i, "count"), f"at most {COUNT:,} units"
    for i, e in enumerate(s.events):
        for resource, n in e.adds.items():
            if n > COUNT:
                yield ("events", i, "adds", resource), f"at most {COUNT:,} units"
    for i, a in enumerate(s.agents):
        for j, stock in enumerate(a.knows_stock):
            if stock.count > COUNT:
                yield ("agents", i, "knows_stock", j, "count"), f"at most {COUNT:,} units"
        persona = a.persona
        for j, practice in enumerate(persona.practices):
            if practice.window_minutes > MINUTES_PER_DAY:
                where = ("agents", i, "persona", "practices", j, "window_minutes")
                yield where, f"at most {MINUTES_PER_DAY} minutes (a day)"
        for j, commitment in enumerate(persona.commitments):
            if commitment.min_minutes > SPAN_MINUTES:
                where = ("agents", i, "persona", "commitments", j, "min_minutes")
                yield where, f"at most {SPAN_MINUTES} minutes"
        for j, stage in enumerate(a.room.project.stages if a.room else ()):
            if stage.minutes > MINUTES_PER_DAY:
                where = ("agents", i, "room", "project", "stages", j, "minutes")
                yield where, f"at most {MINUTES_PER_DAY} minutes (a day)"


def _roads(s: Scenario) -> Iterator[Problem]:
    """No road from a place to itself or declared twice; every place an agent must go to is
    reachable from its home."""
    links: dict[str, set[str]] = {p.id: set() for p in s.world.places}
    seen: dict[frozenset[str], int] = {}
    for i, road in enumerate(s.world.roads):
        if road.a == road.b:
            yield ("world", "roads", i), f"a road between two places (both ends are {road.a!r})"
            continue
        pair = frozenset((road.a, road.b))
        if pair in seen:
            yield (
                ("world", "roads", i),
                f"one road between {road.a!r} and {road.b!r} (roads[{seen[pair]}] is one)",
            )
        seen.setdefault(pair, i)
        if road.a in links and road.b in links:
            links[road.a].add(road.b)
            links[road.b].add(road.a)
    requested = {r.agent: r for r in s.requests}
    for i, a in enumerate(s.agents):
        if a.home not in links:
            continue  # an unknown home is reported as such
        reach = _component(links, a.home)
        for where, place in _destinations(a, i, requested.get(a.id)):
            if place in links and place not in reach:
                yield (
                    where,
                    (
                        f"a place {a.id!r} can reach from its home {a.home!r}; no road leads "
                        f"to {place!r}"
                    ),
                )


def _component(links: dict[str, set[str]], start: str) -> set[str]:
    found, todo = {start}, [start]
    while todo:
        for other in sorted(links[todo.pop()]):
            if other not in found:
                found.add(other)
                todo.append(other)
    return found


def _destinations(a: Any, i: int, request: Any) -> Iterator[tuple[tuple[str | int, ...], str]]:
    for j, slot in enumerate(a.routine):
        for k, place in enumerate(slot.go):
            yield ("agents", i, "routine", j, "go", k), place
    for j, errand in enumerate(a.errands):
        yield ("agents", i, "errands", j, "target"), errand.target
        for k, place in enumerate(errand.via):
            yield ("agents", i, "errands", j, "via", k), place
    for where, place in a.room.places() if a.room is not None else ():
        yield ("agents", i, "room", *where), place
    if request is not None:
        yield ("agents", i), request.source
        yield ("agents", i), request.place


def _facts(s: Scenario) -> Iterator[Problem]:
    """A fact is `thing.attribute`; a place's own (`<place>.passable`, `<place>.open`) names a
    place of the world and is true or false; an event sets only a fact the world declares or a
    place's own. A misspelt one would leave the world quietly unchanged, and every score of it
    wrong."""
    places = {p.id for p in s.world.places}
    own = {f"{place}.{fact.value}" for place in places for fact in PlaceFact}
    known = sorted(set(s.world.facts) | own)
    kinds = ", ".join(f.value for f in PlaceFact)
    for key, value in s.world.facts.items():
        where: tuple[str | int, ...] = ("world", "facts", key)
        thing, _, attribute = key.partition(".")
        if not (_NAME.match(thing) and _NAME.match(attribute)):
            yield (
                where,
                (
                    f"a fact named thing.attribute, each a snake_case name of at most 64 "
                    f"characters, got {key[:80]!r}"
                ),
            )
        elif attribute in PlaceFact._value2member_map_ and thing not in places:
            yield (
                where,
                (
                    f"a place of this world before .{attribute}, got {thing!r}"
                    f"{_nearest(thing, places)}"
                ),
            )
        elif attribute in PlaceFact._value2member_map_ and not isinstance(value, bool):
            yield where, f"true or false for a place's {attribute}, got {value!r}"
    for i, event in enumerate(s.events):
        for key, value in event.sets.items():
            where = ("events", i, "sets", key)
            if key not in known:
                yield (
                    where,
                    (
                        f"a fact the world declares (world.facts) or a place's own ({kinds}), got "
                        f"{key!r}{_nearest(key, known)}"
                    ),
                )
            elif key in own and not isinstance(value, bool):
                yield where, f"true or false for {key!r}, got {value!r}"


def _nearest(name: str, names: Iterable[str]) -> str:
    """'; did you mean X?' for the closest of `names`, if one is close."""
    close = difflib.get_close_matches(name, sorted(names), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _references(s: Scenario) -> Iterator[Problem]:
    """A published reach is shown beside a tracked proposition's curve: one of `truth`."""
    tracked = {t.proposition for t in s.truth}
    for i, r in enumerate(s.references):
        if r.proposition not in tracked:
            yield ("references", i, "proposition"), "a proposition of this scenario's truth"


def _supersession(s: Scenario) -> Iterator[Problem]:
    """A proposition supersedes an older one, which no other supersedes; following
    `supersedes` never comes back."""
    older = {t.proposition: t.supersedes for t in s.truth}
    replaced: dict[str, int] = {}
    for i, t in enumerate(s.truth):
        if t.supersedes is not None and replaced.setdefault(t.supersedes, i) != i:
            j = replaced[t.supersedes]
            expected = (
                f"a proposition no other replaces; {s.truth[j].proposition!r} (truth[{j}]) "
                f"already replaces {t.supersedes!r}: one replacement each, or a value that "
                "changes (values)"
            )
            yield ("truth", i, "supersedes"), expected
        chain, current = [t.proposition], t.supersedes
        while current is not None and current in older:
            if current in chain:
                yield (
                    ("truth", i, "supersedes"),
                    f"an older proposition; {' → '.join([*chain, current])} is a cycle",
                )
                break
            chain.append(current)
            current = older[current]


def _retractions(s: Scenario) -> Iterator[Problem]:
    """A retraction (a predicate of sense `retracts`) says in its `object` which tracked
    proposition it withdraws - what an agent hears - and names the same one in `supersedes`
    - what the scorecard judges by - so the two cannot disagree."""
    tracked = [t.proposition for t in s.truth]
    for i, t in enumerate(s.truth):
        predicate = s.predicates.get(t.predicate)
        if predicate is None or predicate.sense is not Sense.RETRACTS:
            continue
        others = [p for p in tracked if p != t.proposition]
        if t.object not in others:
            expected = (
                f"the tracked proposition it retracts (sense 'retracts'); expected one of "
                f"{others}, got {t.object!r}"
            )
            yield ("truth", i, "object"), expected
        elif t.supersedes != t.object:
            expected = (
                f"{t.object!r}, the proposition it retracts (its object), so that agents and "
                f"the scorecard agree on what it withdraws; got {t.supersedes!r}"
            )
            yield ("truth", i, "supersedes"), expected


def _days(s: Scenario) -> Iterator[Problem]:
    first, last = day_of(s.start), day_of(s.end)
    within = f"a day of the run (day {first} to day {last})"
    for i, a in enumerate(s.agents):
        for j, errand in enumerate(a.errands):
            for k, day in enumerate(errand.days):
                moment = (day - 1) * MINUTES_PER_DAY + errand.at
                if not s.start <= moment <= s.end:
                    yield (
                        ("agents", i, "errands", j, "days", k),
                        f"{within}, at {errand.at // 60:02d}:{errand.at % 60:02d}",
                    )
    for i, d in enumerate(s.decision_points):
        if not first <= d.day <= last:
            yield ("decision_points", i, "day"), within
    # the harness labels an agent's first `action` of a day with the one point it answers:
    # a second point on the same action and day would label its second action instead
    seen: dict[tuple[str, int], int] = {}
    for i, d in enumerate(s.decision_points):
        earlier = seen.setdefault((d.action, d.day), i)
        if earlier != i:
            yield (
                ("decision_points", i),
                (
                    f"one decision point per action and day; decision_points[{earlier}] is "
                    f"already on {d.action!r} on day {d.day} (join their propositions with "
                    "`when`)"
                ),
            )


def _priorities(s: Scenario) -> Iterator[Problem]:
    """A predicate's priority weighs the plan its news makes against a standing errand: only a
    sense that makes a plan of its own (a gathering) has one to weigh."""
    planning = ", ".join(sorted(PLANNING_SENSES))
    for name, predicate in sorted(s.predicates.items()):
        if predicate.priority is None or predicate.sense in PLANNING_SENSES:
            continue
        has = "no sense" if predicate.sense is None else f"sense {predicate.sense.value!r}"
        yield (
            ("predicates", name, "priority"),
            (
                f"a priority only on a predicate whose sense makes a plan of its own "
                f"({planning}); {name!r} has {has}, which makes none to weigh"
            ),
        )


def _unique(s: Scenario) -> Iterator[Problem]:
    for i, a in enumerate(s.agents):
        yield from _once([e.id for e in a.errands], ("agents", i, "errands"), "errand")
        if a.companion is not None:  # an opinion's id names it in the traces
            opinions = [o.id for o in a.companion.opinions]
            yield from _once(opinions, ("agents", i, "companion", "opinions"), "opinion")
        yield from _once(list(a.groups), ("agents", i, "groups"), "group")
        if a.room is not None:
            stages = [st.id for st in a.room.project.stages]
            yield from _once(stages, ("agents", i, "room", "project", "stages"), "stage")
            faults = [f.fault for f in a.room.light.faults]
            yield from _once(faults, ("agents", i, "room", "light", "faults"), "fault")
    if s.world.project is not None:
        stages = [st.id for st in s.world.project.stages]
        yield from _once(stages, ("world", "project", "stages"), "stage")
    if s.dialogue is not None:  # a line's id names it in the traces and the scorecard
        yield from _once([ln.id for ln in s.dialogue.lines], ("dialogue", "lines"), "line")
        yield from _once(list(s.dialogue.speakers), ("dialogue", "speakers"), "speaker")


def _once(ids: list[str], where: tuple[str | int, ...], label: str) -> Iterator[Problem]:
    seen: set[str] = set()
    for j, ident in enumerate(ids):
        if ident in seen:
            yield (*where, j), f"a unique {label} id; {ident!r} appears more than once"
        seen.add(ident)


def _texts(value: Any, where: tuple[str | int, ...]) -> Iterator[Problem]:
    """Every text short enough, and writable as UTF-8: traces and reports are UTF-8, and a
    lone surrogate (YAML's "\\ud800") would stop an episode when its table is written."""
    if isinstance(value, str):
        if len(value) > TEXT:
            yield where, f"text of at most {TEXT:,} characters (got {len(value):,})"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            yield where, f"text that can be written as UTF-8 (character {exc.start + 1} cannot)"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(item, (*where, key))
    elif isinstance(value, (list, tuple)):
        for j, item in enumerate(value):
            yield from _texts(item, (*where, j))
