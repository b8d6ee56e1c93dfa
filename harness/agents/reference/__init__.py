"""The reference cognitive agent (DESIGN §2): memory, beliefs, trust, conversation, plans, life
and autonomy."""

from .agent import ReferenceAgent

__all__ = ["ReferenceAgent"]
