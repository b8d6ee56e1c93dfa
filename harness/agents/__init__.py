"""The built-in agents — `reference` (the cognitive agent, as components) and `simple` — and the
registry that names agents for the command line (built-in names, the `villagelab.agents`
entry-point group, or an import path `module:Factory`). Each is reached by the engine only
through the contract."""

from __future__ import annotations

from .registry import BUILTIN, GROUP, AgentChoice, agent_hash, registered, resolve

AGENT_KINDS = BUILTIN  # name → import path of the built-in agents


def agent_path(name_or_path: str) -> str:
    """The import path of a registered agent's name; an import path is returned as given."""
    return registered().get(name_or_path, name_or_path)


__all__ = [
    "AGENT_KINDS",
    "BUILTIN",
    "GROUP",
    "AgentChoice",
    "agent_hash",
    "agent_path",
    "registered",
    "resolve",
]
