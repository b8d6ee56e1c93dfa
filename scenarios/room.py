"""A room as data: the project the world keeps track of, and what an agent living there on its
own knows of its room and its days (design §3, the room ecology).

The world's side (`Project`) is read by the scenario's physics plug-in; the agent's side
(`RoomKnowledge`) is the agent's own knowledge, handed to it in its spec. The two are kept apart
on purpose: what an agent knows of its room may differ from how the room works. A second room
with other furniture and another project is a new scenario file, not new engine code.
"""

from __future__ import annotations

from pydantic import Field

from ._types import Clock, Frozen, Id


class Stage(Frozen):
    """One stage of a project and the material it uses up (held in hand), if any."""

    id: Id
    uses: Id | None = None


class StagePlan(Stage):
    """A stage as the agent plans it: also how long a session of it takes."""

    minutes: int = Field(gt=0)


class Work(Frozen):
    """What a finished project leaves behind: one unit of `resource` at `holder`."""

    resource: Id
    holder: Id


class Project(Frozen):
    """A project the world tracks in the fact `project.stage`: the action that advances it,
    stages in order, each needing light and, if it says so, a material; the last leaves a
    lasting work (a declared source)."""

    action: Id
    stages: tuple[Stage, ...] = Field(min_length=1)
    makes: Work | None = None


class ProjectKnowledge(Frozen):
    """How the agent goes about its project: the action, the skill it trains, where it can be
    done (skill confidence picks), and the stages as the agent knows them."""

    action: Id
    skill: Id
    at: tuple[Id, ...] = Field(min_length=1)
    stages: tuple[StagePlan, ...] = Field(min_length=1)


class Meals(Frozen):
    """When meals are due (give or take an hour), what is eaten, where it is kept (in order),
    and what is left to throw away."""

    times: tuple[Clock, ...] = ()
    food: Id
    at: tuple[Id, ...] = Field(min_length=1)
    leaves: Id | None = None


class Fault(Frozen):
    """A fault an inspection can reveal: the words the report shows, and the repair."""

    fault: Id
    seen: str = Field(min_length=1)
    fix: Id


class Light(Frozen):
    """The light to work by after dark: the fixture (the subject news of it is about), where
    it is inspected and repaired, and its faults in the order they are checked."""

    fixture: Id
    at: Id
    faults: tuple[Fault, ...] = ()

    @property
    def repairs(self) -> tuple[str, ...]:
        return tuple(f.fix for f in self.faults)


class RoomKnowledge(Frozen):
    """What an agent on its own knows of its room and its days: where it sleeps, idles and
    throws things away, its night and morning, what the window shows, its meals, where
    materials are kept, where practices are done, its project and its light."""

    bed: Id
    floor: Id
    trash: Id
    night: tuple[Clock, Clock]  # bedtime, earliest natural waking
    morning: Clock  # the cue of morning practices
    window: tuple[Clock, Clock]  # daylight as the window shows it
    meals: Meals
    materials_at: tuple[Id, ...] = ()  # where materials are usually kept or arrive
    practice_places: dict[Id, Id] = Field(
        default_factory=dict
    )  # practice action → where it is done (else the floor)
    project: ProjectKnowledge
    light: Light

    def places(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Every place named here, with its path inside this block (for validation)."""
        out: list[tuple[tuple[str | int, ...], str]] = [
            (("bed",), self.bed),
            (("floor",), self.floor),
            (("trash",), self.trash),
            (("light", "at"), self.light.at),
        ]
        out += [(("meals", "at", i), p) for i, p in enumerate(self.meals.at)]
        out += [(("materials_at", i), p) for i, p in enumerate(self.materials_at)]
        out += [(("practice_places", k), p) for k, p in self.practice_places.items()]
        out += [(("project", "at", i), p) for i, p in enumerate(self.project.at)]
        return out
