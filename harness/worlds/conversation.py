"""A conversation world (`physics: [harness.worlds.conversation]`): a character at home who
talks with people outside the simulation (the player, customers) through the scenario's
`dialogue`, and the quiet things it can do instead of talking — writing in its journal,
tidying, reading, taking a note for later. None of them moves a resource: what matters here is
that a held-back urge to talk is observably replaced by something else."""

from __future__ import annotations

from typing import Any

from harness.engine.actions import Action

QUIET = ("journal", "tidy", "read", "note")  # things to do instead of talking


def actions(scenario: Any) -> list[Action]:
    return [Action(name, lambda w, a, t, i: True, "", minutes=10) for name in QUIET]
