"""The scenario schema: a controlled situation with a known ground truth (design §3).

Times are written as moments ("day 2 08:00"), daily clock times ("08:00") or spans ("48h") and
held as minutes. Everything here is frozen data; the harness builds worlds and agents from it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from villagelab import phrases

from ._types import Clock, Frozen, Id, Modality, ModulePath, Moment, SenseName, Span
from .dialogue import CompanionPersona, Dialogue
from .persona import Persona
from .room import Project, RoomKnowledge


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


class Truth(Frozen):
    """A tracked proposition: what is true, where it starts and who should or may know it."""

    proposition: Id
    subject: str
    predicate: str
    object: str
    value: str
    modality: Modality = "certain"
    origin: Id | None = None  # None: nobody in the scenario (an unsigned message)
    private: bool = False
    audience: tuple[Id, ...] | Literal["all"] = "all"
    valid_from: Moment | None = None
    valid_to: Moment | None = None
    supersedes: Id | None = None  # the older tracked proposition this one replaces


class DecisionPoint(Frozen):
    """An action the tracked proposition makes right or wrong: `right` lists the in-line targets."""

    id: Id
    proposition: Id
    action: Id
    day: int = Field(ge=1)
    right: tuple[Id, ...] = Field(min_length=1)


class Probe(Frozen):
    id: Id
    at: Moment
    agent: Id
    proposition: Id


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
    `{object}`) and what it does to plans about its subject (`Sense`)."""

    phrase: str | None = None
    sense: SenseName | None = None

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
