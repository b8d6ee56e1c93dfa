"""The reference companion character: the seven layers of a character that keeps its word —
persona (data: `scenarios.dialogue.CompanionPersona`), state (`state`), memory (`recall`),
time (every update takes timestamps), motivation (`initiative`, over the reference life core's
budget and hold, and `urges`), expression (`words`, `vocabulary`), observation (diagnostic
rows; probes are reads) — with the safety layer (`safety`), lessons (`lessons`) and
introspection (`introspection`). The components (`talk`, `promises`, `practices`,
`initiative`, `introspection`, `profile`'s user model, `opinions`, `vocabulary`, `lines`) are
composed in `character`."""

from .character import Character

__all__ = ["Character"]
