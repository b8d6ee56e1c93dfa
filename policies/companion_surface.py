"""The policy surface of a character who talks with people outside the simulation (the
companion and support-desk scenarios): part of the whitelist (`policies.whitelist`)."""

from __future__ import annotations

from .param import Param
from .purposes import CONVERSATION

# --- a character who talks with people outside the simulation (companion, support desk) ----
# Each buys something and costs something (docs/companion.md shows the sweeps): a sensitive
# crisis filter misses no crisis and raises false alarms on jokes; a high recall threshold
# takes no joke at its word and forgets old promises; a weak hold and a large budget keep
# promises and check in often, past what the persona allows a day; low lesson thresholds
# keep lessons sooner, on too little evidence.
COMPANION_PARAMS: tuple[Param, ...] = (
    Param(
        "safety.crisis_sensitivity",
        "float",
        0.5,
        "how veiled a line may be and still get the safety script (high: jokes raise alarms)",
        low=0.0,
        high=1.0,
        grid=0.05,
        acts_for=CONVERSATION,
    ),
    Param(
        "companion.recall_threshold",
        "float",
        0.6,
        "activation a memory needs to come to mind (high: old promises are forgotten)",
        low=0.0,
        high=2.0,
        grid=0.1,
        acts_for=CONVERSATION,
    ),
    Param(
        "companion.hold_strength",
        "float",
        0.5,
        "how strong an urge to speak first must be to pass the hold (else a quiet substitute)",
        low=0.0,
        high=1.0,
        grid=0.05,
        acts_for=CONVERSATION,
    ),
    Param(
        "companion.talk_budget",
        "int",
        3,
        "messages a character sends unprompted in one day at most",
        low=0,
        high=12,
        acts_for=CONVERSATION,
    ),
    Param(
        "lessons.min_evidence",
        "int",
        2,
        "pieces of evidence a lesson needs before it is kept",
        low=1,
        high=6,
        acts_for=CONVERSATION,
    ),
    Param(
        "lessons.min_counter",
        "int",
        1,
        "counter-examples a lesson needs before it is kept",
        low=0,
        high=3,
        acts_for=CONVERSATION,
    ),
)
