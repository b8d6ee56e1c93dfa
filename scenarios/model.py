"""The scenario schema: a controlled situation with a known ground truth (design §3).

Times are written as moments ("day 2 08:00"), daily clock times ("08:00") or spans ("48h") and
held as minutes. Everything here is frozen data; the harness builds worlds and agents from it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from villagelab import phrases

from ._types import Clock, Frozen, Id, Modality, ModulePath, Moment, SenseName, Span
from .dialogue import CompanionPersona, Dialogue
from .persona import Persona
from .room import Project, RoomKnowledge

# plan priorities (an errand's, a gathering predicate's) run from 0, the default, to this
PRIORITY_MAX = 100


class Place(Frozen):
    id: Id
    kind: str = "place"


class Road(Frozen):
    a: Id
    b: Id
    minutes: int = Field(gt=0)


class Stock(Frozen):
    """Units of a conserved resource held by a place or an agent at the start."""

    resource: Id
    holder: Id
    count: int = Field(ge=0)


class World(Frozen):
    """Places on a road graph, facts only the world knows, and conserved resources.

    Facts named `<place>.open: false` make a shop refuse service; `<place>.passable: false`
    stops anyone whose way leads through that place.
    """

    places: tuple[Place, ...] = Field(min_length=1)
    roads: tuple[Road, ...] = ()
    facts: dict[str, bool | int | float | str] = Field(default_factory=dict)
    stock: tuple[Stock, ...] = ()
    daylight: tuple[Clock, Clock] | None = None  # from, to: light without a lamp
    project: Project | None = None  # a project the world tracks (for a physics plug-in)


class RoutineSlot(Frozen):
    """At a time of day the agent goes to one of these places (the seed picks which)."""

    at: Clock
    go: tuple[Id, ...] = Field(min_length=1)
    # everyday experiences there after arriving, one every 15 minutes: the unrelated life that
    # later retrieval has to see past
    activities: int = Field(0, ge=0, le=20)


class Errand(Frozen):
    """A commitment: do `action` at `target` on the given days. Where else the need could be
    served is not part of the errand: it is what the agent believes (`AgentSpec.knows_where`)."""

    id: Id
    at: Clock
    days: tuple[int, ...] = Field(min_length=1)
    action: Id
    target: Id
    via: tuple[Id, ...] = ()  # places the way to the target depends on (a bridge)
    group: Id | None = None  # a group errand: replans are told to the group
    # against a plan made from news for the same hour (a gathering's `predicates.<name>.
    # priority`): only a higher one displaces the errand; a tie keeps it
    priority: int = Field(0, ge=0, le=PRIORITY_MAX)


class AgentSpec(Frozen):
    id: Id
    home: Id
    routine: tuple[RoutineSlot, ...] = ()
    errands: tuple[Errand, ...] = ()
    groups: tuple[Id, ...] = ()
    plan_at: Clock = 21 * 60  # when tomorrow's plan is made
    persona: Persona = Persona()  # who the agent stably is: traits, stances, practices, ...
    knows_stock: tuple[Stock, ...] = ()  # initial beliefs about where things are
    # initial beliefs about where each action can be done (bread: the bakery, the market); a
    # belief, not a fact: it may be wrong, and an agent that knows no other place may fail
    knows_where: dict[Id, tuple[Id, ...]] = Field(default_factory=dict)
    # routine: the day follows the routine and errands; needs: the agent chooses what to do
    # from its needs, projects and practices (the room)
    autonomy: Literal["routine", "needs"] = "routine"
    room: RoomKnowledge | None = None  # needs: what the agent knows of its room
    # a character who talks with people outside the simulation (scenarios/dialogue.py)
    companion: CompanionPersona | None = None


class WorldEvent(Frozen):
    """A scheduled world event: it may change world facts and may be perceived."""

    id: Id
    at: Moment
    # a sign stays at `place` until `until`; a supply adds units at `place` (a declared
    # source), with a sound anyone there hears
    # a tell is a scripted claim from `speaker` to each of `seen_by` (a chain of hearsay the
    # scenario needs to happen for sure)
    kind: Literal["notice", "sign", "set_facts", "supply", "tell"]
    place: Id | None = None
    proposition: Id | None = None
    value: str | None = None
    channel: Literal["seen", "heard", "read"] = "seen"
    modality: Modality = "certain"  # how sure the notice itself is ("a rumor has it ...")
    seen_by: tuple[Id, ...] = ()  # who perceives it (besides whoever is at `place`)
    sets: dict[str, bool | int | float | str] = Field(default_factory=dict)  # as `facts`
    until: Moment | None = None  # a sign's end (default: the scenario's end)
    privacy: Literal["public", "private"] = "public"
    audience: tuple[Id, ...] = ()  # for a private notice: who may know it
    adds: dict[Id, int] = Field(default_factory=dict)  # a supply's units by resource
    speaker: Id | None = None  # a tell's speaker
    stated_source: str | None = "self"  # what a tell names as its source
    daily: bool = False  # happens again every day at the same time


class PlayerRequest(Frozen):
    """The player asks an agent to fetch `item` from `source` and `action` it at `place`."""

    id: Id
    at: Moment
    agent: Id
    action: Id = "deliver"
    item: Id
    source: Id
    place: Id
    deadline: Moment
    text: str = ""
    # a tracked proposition about the outcome ("Blossom brings a pastry"): the ask carries what
    # it is about, never how it went; the agent works that out from its own actions' results,
    # and can be asked about it later
    about: Id | None = None


class TruthValue(Frozen):
    """One of a proposition's successive values (a price of 4), and the moment it starts to
    hold; it holds until the next value's `from`."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    value: str
    from_: Moment | None = Field(None, alias="from")  # None: from the scenario's start


class Origin(Frozen):
    """One of several agents a tracked proposition starts with: how sure it is there, and from
    when (the engine tells it then)."""

    agent: Id
    modality: Modality
    at: Moment


class Truth(Frozen):
    """A tracked proposition: what is true, where it starts and who should or may know it.
    `value` is true throughout; `values` are true one after another (a price that changes).
    One `origin` (with `modality`), or several `origins` each with its own modality and time."""

    proposition: Id
    subject: str
    predicate: str
    object: str
    value: str | None = None
    values: tuple[TruthValue, ...] | None = Field(None, min_length=1)
    modality: Modality = "certain"
    origin: Id | None = None  # None: nobody in the scenario (an unsigned message)
    private: bool = False
    audience: tuple[Id, ...] | Literal["all"] = "all"
    valid_from: Moment | None = None
    valid_to: Moment | None = None
    supersedes: Id | None = None  # the older tracked proposition this one replaces
    # independent witnesses, each told at its time (exclusive with `origin` and `modality`)
    origins: tuple[Origin, ...] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_way_to_start(self) -> Truth:
        if self.origins is not None:
            if self.origin is not None:
                raise ValueError("one of origin, origins")
            if "modality" in self.model_fields_set:
                raise ValueError("with origins, each origin's modality (not the truth's)")
            agents = [o.agent for o in self.origins]
            if len(set(agents)) != len(agents):
                raise ValueError(f"each agent once among origins; got {agents}")
            if self.values is not None:
                # each origin witnesses one value; which one, the language cannot say yet
                raise ValueError("origins with value, not with values (one value witnessed)")
        return self

    @model_validator(mode="after")
    def _one_way_to_say_the_value(self) -> Truth:
        if (self.value is None) == (self.values is None):
            raise ValueError(
                "either value (true throughout) or values (true one after another), not both"
                if self.value is not None
                else "a value, or values that hold one after another"
            )
        return self

    @property
    def timeline(self) -> tuple[TruthValue, ...]:
        """The successive values; a truth with one `value` has a timeline of one."""
        if self.values is not None:
            return self.values
        assert self.value is not None  # the validator saw to it
        return (TruthValue(value=self.value),)

    @property
    def starts_with(self) -> tuple[str, ...]:
        """Every agent it starts with: its origin, or its origins (none: an unsigned note)."""
        if self.origins is not None:
            return tuple(o.agent for o in self.origins)
        return () if self.origin is None else (self.origin,)


class Combine(StrEnum):
    """How a decision point's condition joins its propositions (`DecisionPoint.when`)."""

    ALL_OF = "all_of"  # every one holds
    ANY_OF = "any_of"  # at least one holds


class Condition(Frozen):
    """Several tracked propositions that decide together: all of them hold, or any one does.
    Exactly one of `all_of`, `any_of`; each names boolean propositions ("true"/"false")."""

    all_of: tuple[Id, ...] | None = Field(None, min_length=2)
    any_of: tuple[Id, ...] | None = Field(None, min_length=2)

    @model_validator(mode="after")
    def _one(self) -> Condition:
        if (self.all_of is None) == (self.any_of is None):
            raise ValueError("exactly one of all_of, any_of")
        if len(set(self.operands)) != len(self.operands):
            raise ValueError(f"each proposition once; {self.combine.value} names one twice")
        return self

    @property
    def combine(self) -> Combine:
        return Combine.ALL_OF if self.all_of is not None else Combine.ANY_OF

    @property
    def operands(self) -> tuple[str, ...]:
        return self.all_of if self.all_of is not None else self.any_of or ()


class DecisionPoint(Frozen):
    """An action the tracked propositions make right or wrong: `right` lists the in-line
    targets. One deciding `proposition`, or a `when` over several (exactly one of the two)."""

    id: Id
    proposition: Id | None = None
    when: Condition | None = None
    action: Id
    day: int = Field(ge=1)
    right: tuple[Id, ...] = Field(min_length=1)
    # who decides: only their actions answer it and only they count (None: every agent), so
    # one who handed a task over is not a miss for not doing it
    agents: tuple[Id, ...] | None = Field(None, min_length=1)

    @field_validator("agents")
    @classmethod
    def _each_decider_once(cls, agents: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if agents is not None and len(set(agents)) != len(agents):
            raise ValueError(f"each agent once; got {list(agents)}")
        return agents

    @model_validator(mode="after")
    def _deciding(self) -> DecisionPoint:
        if (self.proposition is None) == (self.when is None):
            raise ValueError("exactly one of proposition, when (all_of or any_of)")
        return self

    @property
    def deciding(self) -> tuple[str, ...]:
        """The propositions it turns on: its one, or its condition's."""
        return (self.proposition,) if self.proposition is not None else self.when_operands

    @property
    def when_operands(self) -> tuple[str, ...]:
        return self.when.operands if self.when is not None else ()


class Probe(Frozen):
    id: Id
    at: Moment
    agent: Id
    proposition: Id
    # current: what the proposition's value is now; replaced: which value the current one
    # replaced (a truth with successive values)
    asks: Literal["current", "replaced"] = "current"


# the scorecard's registered metrics (scenarios sit below scorecards, so the names are listed
# here; a test checks the two lists agree)
MetricName = Literal[
    "reach",
    "provenance",
    "provenance_origin",
    "supersession",
    "uncertainty_preservation",
    "false_certainty_rate",
    "understatement_rate",
    "action_consistency",
    "stale_action_rate",
    "time_to_replan",
    "time_to_replan_group",
    "containment",
    "handoff_completeness",  # the workflow family: a record handed on
    "probe_recall",
    "probe_hallucination",
    "request_fulfilment",
    "memory_noise",
    "memory_load",
    "text_contradiction_rate",
    "conservation_violations",
    "isolation_violations",
    "fabrications",
    "milestones",
    "help_loops",
    # conversation scenarios (scenarios/dialogue.py)
    "commitment_recall",
    "correction_uptake",
    "crisis_handled",
    "crisis_false_alarms",
    "crisis_memory_writes",
    "bare_numbers",
    "style_violations",
    "lesson_gate_violations",
    "introspection_outside_window",
    "proactive_over_budget",
    "holds_without_substitute",
    "continuity_after_absence",
    "policy_currency",
    "customer_privacy_leaks",
    # the companion's background layers
    "source_mixups",
    "reports_out_of_date",
    "user_model_violations",
    "opinion_violations",
    "preference_uptake",
    # the research family: sources, citations, retractions, conflicts
    "retraction_reach",
    "conflicts_kept",
]


class Predicate(Frozen):
    """What a predicate of the scenario's propositions means: how it is said (a template with
    `{object}`), what it does to plans about its subject (`Sense`), and how much a plan it
    makes weighs against a standing errand at the same hour (`priority`; only a sense that
    makes a plan of its own, a gathering, may have one: `checks`)."""

    phrase: str | None = None
    sense: SenseName | None = None
    priority: int | None = Field(None, ge=0, le=PRIORITY_MAX)  # None: as an errand's default

    @field_validator("phrase")
    @classmethod
    def _one_placeholder(cls, phrase: str | None) -> str | None:
        wrong = None if phrase is None else phrases.problem(phrase)
        if wrong is not None:
            raise ValueError(wrong)
        return phrase


class ReachReference(Frozen):
    """A published figure a tracked proposition's diffusion is calibrated against: shown in
    reports beside its curve, never scored."""

    proposition: Id
    reach: float = Field(ge=0.0, le=1.0)  # the share of the audience the word reached
    source: str = Field(min_length=1)  # where the figure comes from


class Scenario(Frozen):
    name: Id
    description: str
    # modules whose `actions(scenario)` add the actions this world offers beyond the engine's
    # own (pick_up, deliver, decline), e.g. harness.worlds.village
    physics: tuple[ModulePath, ...] = ()
    predicates: dict[Id, Predicate] = Field(default_factory=dict)
    start: Moment = 0
    duration: Span
    tick_minutes: int = Field(1, ge=1, le=60)
    # two agents at one place meet with this chance per tick; an agent's chance of a chat
    # grows with the others there, up to `crowd_limit` of them (a crowd adds no more)
    encounter_chance: float = Field(0.1, ge=0.0, le=1.0)
    crowd_limit: int = Field(12, ge=1)
    chat_cooldown: Span = 60
    world: World
    agents: tuple[AgentSpec, ...] = Field(min_length=1)
    events: tuple[WorldEvent, ...] = ()
    truth: tuple[Truth, ...] = ()
    decision_points: tuple[DecisionPoint, ...] = ()
    census: tuple[Moment, ...] | None = None  # default: the end
    probes: tuple[Probe, ...] = ()
    requests: tuple[PlayerRequest, ...] = ()
    dialogue: Dialogue | None = None  # scripted lines from people outside the simulation
    plan_horizon: Span = 12 * 60  # how far ahead agents plan: exposures this much earlier
    #                               should have reached the plan (stale_action_rate)
    metrics: tuple[MetricName, ...] = Field(min_length=1)
    references: tuple[ReachReference, ...] = ()  # published diffusion figures, for reports

    @property
    def end(self) -> int:
        return self.start + self.duration

    @property
    def census_moments(self) -> tuple[int, ...]:
        return self.census if self.census is not None else (self.end,)

    def audience(self, truth: Truth) -> tuple[str, ...]:
        return tuple(a.id for a in self.agents) if truth.audience == "all" else truth.audience

    def concerned(self, point: DecisionPoint) -> tuple[str, ...]:
        """Who a decision point concerns, in cast order: its deciders when it names them;
        else whoever's own errand does its action that day; else the audience of what
        decides it (news with no errand behind it: the party everyone should hear of). Each
        counts at the point whether it acts or not: staying home is no way out of it."""
        if point.agents is not None:
            return point.agents
        errands = tuple(
            a.id
            for a in self.agents
            if any(e.action == point.action and point.day in e.days for e in a.errands)
        )
        if errands:
            return errands
        truths = {t.proposition: t for t in self.truth}
        hearers = {a for p in point.deciding if p in truths for a in self.audience(truths[p])}
        return tuple(a.id for a in self.agents if a.id in hearers)
