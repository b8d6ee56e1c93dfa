"""The reference cognitive agent (DESIGN §2) as components, one concern per file — memory,
beliefs, trust, conversation, planning, life, and either a routine or autonomy — composed two
ways: a routine villager, and an agent on its own in a room (`autonomy: needs`).

Each component owns its state (`get_state`/`set_state`); an agent's state is the map of its
components' states. The pure models they use are in `model/`.
"""

from __future__ import annotations

from typing import Any

from scenarios import AgentSpec

from .autonomous import AutonomousAgent
from .context import Context
from .villager import Villager


def reference_agent(
    spec: AgentSpec, policy: Any, draws: Any, start: int, end: int, tick_minutes: int
) -> Villager | AutonomousAgent:
    """The reference agent for one agent of a scenario: its composition follows its spec."""
    ctx = Context(spec.id, spec, policy, draws, start, end, tick_minutes)
    return AutonomousAgent(ctx) if spec.autonomy == "needs" else Villager(ctx)


__all__ = ["AutonomousAgent", "Context", "Villager", "reference_agent"]
