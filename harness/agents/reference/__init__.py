"""The reference cognitive agent (DESIGN §2) as components, one concern per file — memory,
beliefs, trust, conversation, planning, life, and either a routine or autonomy — composed two
ways: a routine villager, and an agent on its own in a room (`autonomy: needs`).

Each component owns its state (`get_state`/`set_state`); an agent's state is the map of its
components' states. The pure models they use are in `model/`.
"""

from __future__ import annotations

from harness.engine.contract import AgentSetup

from .autonomous import AutonomousAgent
from .villager import Villager


def reference_agent(setup: AgentSetup) -> Villager | AutonomousAgent:
    """The reference agent for one agent of a scenario: its composition follows its spec."""
    return AutonomousAgent(setup) if setup.spec.autonomy == "needs" else Villager(setup)


# what a search may change for it (every family but the LLM agent's prompts and sampling);
# tests/test_policy_surface.py checks it against what a run of the suite reads
reference_agent.policy_surface = (  # type: ignore[attr-defined]
    "belief",
    "hedging",
    "memory",
    "motivation",
    "replan",
    "retrieval",
    "sharing",
    "trust",
)


__all__ = ["AutonomousAgent", "Villager", "reference_agent"]
