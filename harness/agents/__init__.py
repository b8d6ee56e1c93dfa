"""The built-in agents, each reached by the engine only through the contract.

Agents are named by import path (`module:Factory`); the built-in ones also by a short name.
"""

from __future__ import annotations

AGENT_KINDS: dict[str, str] = {
    "reference": "harness.agents.reference:reference_agent",
    "simple": "harness.agents.simple:SimpleAgent",
}


def agent_path(name_or_path: str) -> str:
    """The import path of a built-in agent's name; an import path is returned as given."""
    return AGENT_KINDS.get(name_or_path, name_or_path)


__all__ = ["AGENT_KINDS", "agent_path"]
