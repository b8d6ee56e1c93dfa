"""The reference cognitive agent (design §2) as components, one concern per file — memory,
beliefs, trust, conversation, planning, life, and either a routine or autonomy — composed three
ways: a routine villager, an agent on its own in a room (`autonomy: needs`), and a
character who talks with people outside the simulation (`companion:`, see `companion/`).

Each component owns its state (`get_state`/`set_state`); an agent's state is the map of its
components' states. The pure models they use are in `model/`.
"""

from __future__ import annotations

from harness.engine.contract import AgentSetup

from .autonomous import AutonomousAgent
from .companion import Character
from .villager import Villager


def reference_agent(setup: AgentSetup) -> Villager | AutonomousAgent | Character:
    """The reference agent for one agent of a scenario: its composition follows its spec."""
    if setup.spec.companion is not None:
        return Character(setup)  # a character who talks with people outside the simulation
    return AutonomousAgent(setup) if setup.spec.autonomy == "needs" else Villager(setup)


# what a search may change for it (every family but the LLM agent's prompts and sampling;
# a character also reads the safety, companion and lessons families);
# tests/test_policy_surface.py checks it against what a run of the suite reads
reference_agent.policy_surface = (  # type: ignore[attr-defined]
    "belief",
    "companion",
    "hedging",
    "lessons",
    "memory",
    "motivation",
    "replan",
    "retrieval",
    "safety",
    "sharing",
    "trust",
)
# the table of its own it records: a character's lessons (a villager draws none)
reference_agent.row_types = Character.row_types  # type: ignore[attr-defined]


__all__ = ["AutonomousAgent", "Character", "Villager", "reference_agent"]
