"""Trust per pair and per domain, apart from familiarity (design §2, relationships).

Trust moves only when a claim's outcome is observed independently — seeing for oneself whether
what X said was so — and each (informant, proposition) is judged once: hearing the same
sentence again is not evidence. Familiarity counts contact and never moves trust.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DOMAINS = ("reports_facts", "keeps_secrets", "returns_things")


@dataclass
class Relations:
    trust: dict[str, float] = field(default_factory=dict)  # "other|domain" → 0..1
    familiarity: dict[str, int] = field(default_factory=dict)  # other → contacts
    judged: list[str] = field(default_factory=list)  # "other|proposition" already judged

    def to_json(self) -> dict[str, Any]:
        return {
            "trust": dict(self.trust),
            "familiarity": dict(self.familiarity),
            "judged": list(self.judged),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Relations:
        return cls(dict(data["trust"]), dict(data["familiarity"]), list(data["judged"]))


def trust_in(rel: Relations, other: str | None, domain: str, prior: float) -> float:
    if other is None:
        return prior
    return rel.trust.get(f"{other}|{domain}", prior)


def met(rel: Relations, other: str) -> None:
    rel.familiarity[other] = rel.familiarity.get(other, 0) + 1


def judge(
    rel: Relations, other: str, topic: str, domain: str, kept_word: bool, prior: float, rate: float
) -> float | None:
    """An independently observed outcome of what `other` said about `topic`.

    Moves trust toward 1 (kept word) or 0 by `rate`; returns the new value, or None when this
    (other, topic) was judged before.
    """
    key = f"{other}|{topic}"
    if key in rel.judged:
        return None
    rel.judged.append(key)
    old = trust_in(rel, other, domain, prior)
    new = round(old + rate * ((1.0 if kept_word else 0.0) - old), 6)
    rel.trust[f"{other}|{domain}"] = new
    return new
