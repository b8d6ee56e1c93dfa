"""The village's actions: buying bread at an open shop that has some, and meeting at a place
one can get into."""

from __future__ import annotations

from typing import Any

from harness.engine.actions import Action


def actions(scenario: Any) -> list[Action]:
    return [
        Action(
            "buy_bread",
            lambda w, actor, target, item: w.is_open(target) and w.count(target, "bread") > 0,
            "the door did not open",
            lambda w, actor, target, item: w.transfer("bread", target, actor),
        ),
        Action("meet", lambda w, actor, target, item: w.is_open(target), "nobody could get in"),
    ]
