"""Load and validate scenario files: schema first, then every cross-reference (design §3)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from villagelab.yamlsource import InputError, Location, YamlSource, listing

from . import checks as semantic
from .checks import DEFAULT, Bounds
from .clock import format_moment
from .model import Scenario, Truth

LIBRARY = Path(__file__).with_name("library")


def builtin_names() -> list[str]:
    return sorted(p.stem for p in LIBRARY.glob("*.yaml"))


def resolve(name_or_path: str | Path) -> Path:
    """A built-in scenario name or a path to a user's file."""
    text = str(name_or_path)
    if text.endswith((".yaml", ".yml")) or "/" in text:
        return Path(text)
    path = LIBRARY / f"{text}.yaml"
    if not path.exists():
        raise InputError(
            f"unknown scenario {text!r}; built-in scenarios: {', '.join(builtin_names())}, "
            "and village (generated, with --agents N); or give the path to a .yaml file"
        )
    return path


Check = Callable[[Scenario], Iterable[tuple[tuple[str | int, ...], str]]]


def load_scenario(
    name_or_path: str | Path, checks: Iterable[Check] = (), bounds: Bounds = DEFAULT
) -> Scenario:
    """A scenario file, validated: its schema, every cross-reference, what the schema cannot
    say (sizes within `bounds`, reachable places, acyclic supersession, days within the run,
    unique ids), then `checks` (what only a layer above can know, e.g. the harness's
    registered actions), each problem located."""
    source = YamlSource.load(resolve(name_or_path))
    if not isinstance(source.data, dict):
        raise source.error((), "expected a mapping with name, world, agents, truth, ...")
    scenario = source.validate(Scenario)
    problems = list(_cross_reference_problems(scenario))
    if not problems:
        problems.extend(semantic.problems(scenario, bounds))
    for check in checks if not problems else ():
        problems.extend(check(scenario))
    if problems:
        raise InputError(listing([str(source.error(where, what)) for where, what in problems]))
    return scenario


def _cross_reference_problems(s: Scenario) -> Iterator[semantic.Problem]:
    """Yield (path, expectation) for every reference to something the file does not declare."""
    places = [p.id for p in s.world.places]
    agents = [a.id for a in s.agents]
    props = [t.proposition for t in s.truth]
    truths = {t.proposition: t for t in s.truth}
    where: Location  # paths of any length below
    for label, ids, where in (
        ("place", places, ("world", "places")),
        ("agent", agents, ("agents",)),
        ("proposition", props, ("truth",)),
        ("event", [e.id for e in s.events], ("events",)),
        ("decision point", [d.id for d in s.decision_points], ("decision_points",)),
        ("probe", [p.id for p in s.probes], ("probes",)),
        ("request", [r.id for r in s.requests], ("requests",)),
    ):
        seen: set[str] = set()
        for i, ident in enumerate(ids):
            if ident in seen:
                yield (*where, i), f"duplicate {label} id {ident!r}; expected unique ids"
            seen.add(ident)

    def place(ref: str, where: Location) -> list[semantic.Problem]:
        return (
            []
            if ref in places
            else [(where, f"unknown place {ref!r}; expected one of {', '.join(places)}")]
        )

    def agent(ref: str, where: Location) -> list[semantic.Problem]:
        return (
            []
            if ref in agents
            else [(where, f"unknown agent {ref!r}; expected one of {', '.join(agents)}")]
        )

    def prop(ref: str, where: Location) -> list[semantic.Problem]:
        return (
            []
            if ref in props
            else [
                (
                    where,
                    (
                        f"unknown proposition {ref!r}; expected one "
                        f"of {', '.join(props) or '(none declared)'}"
                    ),
                )
            ]
        )

    def moment(value: int | None, where: Location) -> list[semantic.Problem]:
        if value is None or s.start <= value <= s.end:
            return []
        return [(where, "a moment within the scenario's duration (from its start to its end)")]

    for i, stock in enumerate(s.world.stock):
        if stock.holder not in places and stock.holder not in agents:
            yield (
                ("world", "stock", i, "holder"),
                f"unknown holder {stock.holder!r}; expected a place or an agent",
            )
    for i, road in enumerate(s.world.roads):
        yield from place(road.a, ("world", "roads", i, "a"))
        yield from place(road.b, ("world", "roads", i, "b"))
    for i, a in enumerate(s.agents):
        yield from place(a.home, ("agents", i, "home"))
        for j, slot in enumerate(a.routine):
            for k, p in enumerate(slot.go):
                yield from place(p, ("agents", i, "routine", j, "go", k))
        for j, errand in enumerate(a.errands):
            yield from place(errand.target, ("agents", i, "errands", j, "target"))
            for k, p in enumerate(errand.via):
                yield from place(p, ("agents", i, "errands", j, "via", k))
            # a group errand's replan is told to the group: one the agent belongs to
            if errand.group is not None and errand.group not in a.groups:
                own = ", ".join(a.groups) or "(it belongs to none; see agents[].groups)"
                yield (
                    ("agents", i, "errands", j, "group"),
                    f"unknown group {errand.group!r} for {a.id!r}; expected one of {own}",
                )
        for action_name, known in sorted(a.knows_where.items()):
            for k, p in enumerate(known):
                yield from place(p, ("agents", i, "knows_where", action_name, k))
        for j, stock in enumerate(a.knows_stock):
            if stock.holder not in places and stock.holder not in agents:
                yield (
                    ("agents", i, "knows_stock", j, "holder"),
                    f"unknown holder {stock.holder!r}; expected a place or an agent",
                )
        if a.autonomy == "needs" and a.room is None:
            yield ("agents", i), "an agent with autonomy: needs knows its room (room: ...)"
        for where, p in a.room.places() if a.room is not None else ():
            yield from place(p, ("agents", i, "room", *where))
    project = s.world.project
    if project is not None and project.makes is not None:
        yield from place(project.makes.holder, ("world", "project", "makes", "holder"))
    for i, e in enumerate(s.events):
        if e.place is not None:
            yield from place(e.place, ("events", i, "place"))
        for j, who in enumerate(e.seen_by):
            yield from agent(who, ("events", i, "seen_by", j))
        if e.proposition is not None:
            yield from prop(e.proposition, ("events", i, "proposition"))
        yield from moment(e.at, ("events", i, "at"))
        if e.kind == "tell":
            if e.speaker is None or not e.seen_by:
                yield ("events", i), "a tell needs a speaker and listeners (seen_by)"
            else:
                yield from agent(e.speaker, ("events", i, "speaker"))
        if e.kind in ("notice", "sign", "tell") and (e.proposition is None or e.value is None):
            yield ("events", i), f"a {e.kind} needs a proposition and the value it shows"
        if e.kind in ("sign", "supply") and e.place is None:
            yield ("events", i), f"a {e.kind} needs its place"
        if e.kind == "supply" and (not e.adds or min(e.adds.values()) <= 0):
            yield ("events", i, "adds"), "a supply adds at least one unit of each resource"
        yield from moment(e.until, ("events", i, "until"))
        if e.until is not None and e.until < e.at:
            yield ("events", i, "until"), "an end at or after the event's moment (at)"
        for j, who in enumerate(e.audience):
            yield from agent(who, ("events", i, "audience", j))
        told = truths.get(e.proposition or "")
        if told is not None and told.values is not None and e.value is not None:
            allowed = [v.value for v in told.values]
            if e.value not in allowed:
                yield (
                    ("events", i, "value"),
                    (
                        f"one of the values of {told.proposition!r} ({', '.join(map(repr, allowed))}); "
                        f"got {e.value!r}"
                    ),
                )
    for i, t in enumerate(s.truth):
        yield from _values_problems(s, t, ("truth", i))
        if t.origin is not None:
            yield from agent(t.origin, ("truth", i, "origin"))
        if t.supersedes is not None:
            yield from prop(t.supersedes, ("truth", i, "supersedes"))
        if t.audience != "all":
            for j, who in enumerate(t.audience):
                yield from agent(who, ("truth", i, "audience", j))
        for j, o in enumerate(t.origins or ()):
            yield from agent(o.agent, ("truth", i, "origins", j, "agent"))
            yield from moment(o.at, ("truth", i, "origins", j, "at"))
        yield from moment(t.valid_from, ("truth", i, "valid_from"))
        yield from moment(t.valid_to, ("truth", i, "valid_to"))
        if t.valid_from is not None and t.valid_to is not None and t.valid_to < t.valid_from:
            yield ("truth", i, "valid_to"), "an end of validity at or after its start (valid_from)"
    predicates = sorted({t.predicate for t in s.truth})
    for name in s.predicates:
        if name not in predicates:
            yield (
                ("predicates", name),
                (
                    "the predicate of a tracked proposition (truth); expected one of "
                    f"{', '.join(predicates) or '(none declared)'}"
                ),
            )
    seen_metrics: set[str] = set()
    for i, metric in enumerate(s.metrics):
        if metric in seen_metrics:
            yield ("metrics", i), f"each metric once; {metric!r} is listed twice"
        seen_metrics.add(metric)
    values = {t.proposition: t.value for t in s.truth}
    for i, d in enumerate(s.decision_points):
        if d.proposition is not None:
            yield from prop(d.proposition, ("decision_points", i, "proposition"))
        if d.when is not None:
            where = ("decision_points", i, "when", d.when.combine.value)
            for j, p in enumerate(d.when.operands):
                unknown = prop(p, (*where, j))
                yield from unknown
                # a condition is decided on its propositions' truth: each holds or does not
                if not unknown and values[p] not in ("true", "false"):
                    yield (
                        (*where, j),
                        (
                            f"a proposition whose value is 'true' or 'false'; {p!r} has "
                            f"value {values[p]!r}"
                        ),
                    )
        for j, p in enumerate(d.right):
            yield from place(p, ("decision_points", i, "right", j))
        for j, who in enumerate(d.agents or ()):
            yield from agent(who, ("decision_points", i, "agents", j))
    for i, m in enumerate(s.census or ()):
        yield from moment(m, ("census", i))
    for i, r in enumerate(s.requests):
        yield from agent(r.agent, ("requests", i, "agent"))
        yield from place(r.source, ("requests", i, "source"))
        if r.about is not None:
            yield from prop(r.about, ("requests", i, "about"))
        yield from place(r.place, ("requests", i, "place"))
        yield from moment(r.at, ("requests", i, "at"))
        yield from moment(r.deadline, ("requests", i, "deadline"))
        if r.deadline <= r.at:
            yield ("requests", i, "deadline"), "a deadline after the request is made"
        stocked = any(k.resource == r.item and k.holder == r.source for k in s.world.stock)
        supplied = any(
            e.kind == "supply" and e.place == r.source and r.item in e.adds for e in s.events
        )
        if not (stocked or supplied):
            yield (
                ("requests", i, "item"),
                (
                    f"a resource with a source: {r.item!r} is neither stocked at nor supplied "
                    f"to {r.source!r}"
                ),
            )
    for i, line in enumerate(s.dialogue.lines if s.dialogue is not None else ()):
        where = ("dialogue", "lines", i)
        yield from agent(line.to, (*where, "to"))
        if s.dialogue is not None and line.speaker not in s.dialogue.speakers:
            yield (*where, "speaker"), f"one of the dialogue's speakers {s.dialogue.speakers}"
        if line.about is not None:
            yield from prop(line.about, (*where, "about"))
        yield from moment(line.at, (*where, "at"))
        yield from moment(line.due, (*where, "due"))
    for i, probe in enumerate(s.probes):
        yield from agent(probe.agent, ("probes", i, "agent"))
        yield from prop(probe.proposition, ("probes", i, "proposition"))
        yield from moment(probe.at, ("probes", i, "at"))
        asked = truths.get(probe.proposition)
        if probe.asks == "replaced" and asked is not None:
            timeline = asked.timeline
            if len(timeline) < 2:
                yield (
                    ("probes", i, "asks"),
                    (
                        f"a truth with successive values to ask what was replaced; "
                        f"{asked.proposition!r} has one value (ask current)"
                    ),
                )
            elif (second := timeline[1].from_) is not None and probe.at < second:
                yield (
                    ("probes", i, "at"),
                    (
                        f"a moment after the first value of {asked.proposition!r} was replaced "
                        f"(at or after {format_moment(second)!r}) to ask what was replaced"
                    ),
                )


def _values_problems(s: Scenario, t: Truth, where: Location) -> Iterator[semantic.Problem]:
    """Successive values start within the run, in order, each once; the values' `from` say
    when each holds, so a values truth has no validity of its own."""
    if t.values is None:
        return
    for field in ("valid_from", "valid_to"):
        if getattr(t, field) is not None:
            yield (
                (*where, field),
                (
                    "no validity on a truth with successive values (each value's `from` says "
                    "when it holds)"
                ),
            )
    seen: set[str] = set()
    last: int | None = None
    for j, v in enumerate(t.values):
        here = (*where, "values", j)
        if v.value in seen:
            yield (*here, "value"), f"each value once; {v.value!r} appears earlier"
        seen.add(v.value)
        if v.from_ is None:
            if j > 0:
                yield here, 'the moment this value starts to hold (from: "day 2 08:00")'
            continue
        if not s.start <= v.from_ <= s.end:
            yield (
                (*here, "from"),
                "a moment within the scenario's duration (from its start to its end)",
            )
        if last is not None and v.from_ <= last:
            yield (
                (*here, "from"),
                (
                    f"a moment after the previous value's ({format_moment(last)!r}): values are "
                    "listed in the order they hold"
                ),
            )
        elif last is not None and _tick(s, v.from_) == _tick(s, last):
            yield (
                (*here, "from"),
                (
                    f"a moment in a later tick than the previous value's "
                    f"({format_moment(last)!r}; a tick is {s.tick_minutes} minutes): in the same "
                    "tick the previous value would never hold"
                ),
            )
        last = v.from_


def _tick(s: Scenario, moment: int) -> int:
    return (moment - s.start) // s.tick_minutes
