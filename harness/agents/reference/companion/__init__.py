"""The reference companion character: the seven layers of a character that keeps its word —
persona (data: `scenarios.dialogue.CompanionPersona`), state (`state`), memory (`recall`),
time (every update takes timestamps), motivation (the reference life core's budget and hold),
expression (`words`), observation (diagnostic rows; probes are reads) — with the safety layer
(`safety`), lessons (`lessons`) and introspection, composed in `character`."""

from .character import Character

__all__ = ["Character"]
