"""The policy surface: every parameter a search may change, typed, ranged, defaulted, explained.

Each family costs something elsewhere (DESIGN §6): the search must trade, not flip switches.
Anything not declared here cannot be set by a policy file or a search.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

Kind = Literal["bool", "int", "float", "categorical"]


class Role(Enum):
    """Whom a parameter acts for: a search of a suite samples only the parameters that act
    for an agent its scenarios hold (a companion knob moves nothing in a village)."""

    VILLAGER = "villager"  # an agent among agents: the village, the room
    CHARACTER = "character"  # a character who talks with a person outside the simulation


class Shortfall(Enum):
    """A failure mode a parameter family is meant to fix, and the scorecard metrics that show
    it (a diagnosis-driven proposal moves the parameters declared against the worst one)."""

    SOURCES_LOST = "source attribution lost"
    RUMORS_HARDEN = "rumors harden"
    STAYS_LOCAL = "public facts stay local"
    STALE_PLANS = "stale plans"
    LEAKS = "leaks"
    NOISY_RECALL = "noisy recall"

    @property
    def metrics(self) -> tuple[str, ...]:
        return SHORTFALL_METRICS[self]


SHORTFALL_METRICS: dict[Shortfall, tuple[str, ...]] = {
    Shortfall.SOURCES_LOST: ("provenance", "provenance_origin"),
    Shortfall.RUMORS_HARDEN: ("uncertainty_preservation", "false_certainty_rate"),
    Shortfall.STAYS_LOCAL: ("reach",),
    Shortfall.STALE_PLANS: ("action_consistency", "stale_action_rate"),
    Shortfall.LEAKS: ("containment",),
    Shortfall.NOISY_RECALL: ("probe_recall", "supersession"),
}

RAISE, LOWER = True, False  # which way a parameter moves to fix a shortfall (a bool: on, off)

VILLAGE = frozenset({Role.VILLAGER})
CONVERSATION = frozenset({Role.CHARACTER})
EVERYONE = VILLAGE | CONVERSATION


@dataclass(frozen=True)
class Param:
    name: str  # dotted: family.parameter
    kind: Kind
    default: bool | int | float | str
    meaning: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    acts_for: frozenset[Role] = VILLAGE
    # the bool switch this parameter acts under: sampled only while the switch is on
    requires: str | None = None
    # the failure modes it is meant to fix, each with the way it moves to fix it
    fixes: tuple[tuple[Shortfall, bool], ...] = ()

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "categorical":
            return "one of " + ", ".join(self.choices)
        return f"a{'n integer' if self.kind == 'int' else ' number'} from {self.low:g} to {self.high:g}"


WHITELIST: tuple[Param, ...] = (
    # memory write — keeping sources costs capacity and nothing else here; small memories forget
    Param(
        "memory.keep_source",
        "bool",
        True,
        "store who told you (and the stated origin) with each experience",
        fixes=((Shortfall.SOURCES_LOST, RAISE),),
    ),
    Param(
        "memory.capacity",
        "int",
        500,
        "experiences kept per agent before the least important, least retained are evicted",
        low=20,
        high=2000,
        acts_for=EVERYONE,
    ),
    Param(
        "memory.importance_threshold",
        "float",
        0.6,
        "importance above which an experience also enters the salient cache recalled first",
        low=0.0,
        high=1.0,
    ),
    Param(
        "memory.keep_source_on_summary",
        "bool",
        True,
        "keep informants and stated origins when old experiences are summarised at night",
        fixes=((Shortfall.SOURCES_LOST, RAISE),),
    ),
    # retrieval — more and more relevant retrieval plans better but returns more noise
    Param(
        "retrieval.top_k",
        "int",
        5,
        "experiences a retrieval returns at most (planning sees only these)",
        low=1,
        high=20,
    ),
    Param(
        "retrieval.relevance_weight",
        "float",
        1.0,
        "weight of relevance to the query in a memory's activation",
        low=0.0,
        high=3.0,
        fixes=((Shortfall.NOISY_RECALL, RAISE),),
    ),
    Param(
        "retrieval.recency_weight",
        "float",
        1.0,
        "weight of retention (recency) in a memory's activation",
        low=0.0,
        high=3.0,
    ),
    Param(
        "retrieval.plan_context",
        "categorical",
        "target",
        "what a plan's retrieval asks about: the errand's target, or its whole route too",
        choices=("target", "route"),
    ),
    # belief — credulity spreads truth and falsehood alike
    Param(
        "belief.second_hand_cap",
        "float",
        0.8,
        "highest confidence a belief may reach from hearsay alone",
        low=0.1,
        high=1.0,
        acts_for=EVERYONE,
        fixes=((Shortfall.RUMORS_HARDEN, LOWER),),
    ),
    Param(
        "belief.independent_origins",
        "bool",
        True,
        "corroboration counts distinct stated origins, not every repetition",
    ),
    # hedging — hedged claims are acted on more slowly by listeners
    Param(
        "hedging.mark_second_hand",
        "bool",
        True,
        'speak second-hand claims as hearsay ("Ana told me") rather than as one\'s own',
        fixes=((Shortfall.SOURCES_LOST, RAISE), (Shortfall.RUMORS_HARDEN, RAISE)),
    ),
    Param(
        "hedging.qualifier_threshold",
        "float",
        0.7,
        "confidence below which a claim is spoken as 'likely' or 'rumor', not 'certain'",
        low=0.0,
        high=1.0,
        fixes=((Shortfall.RUMORS_HARDEN, RAISE),),
    ),
    # sharing — sharing more raises reach and lowers containment
    Param(
        "sharing.proactive",
        "float",
        0.5,
        "chance of bringing up news in a chat with a co-located agent",
        low=0.0,
        high=1.0,
        fixes=((Shortfall.STAYS_LOCAL, RAISE),),
    ),
    Param(
        "sharing.claims_per_chat",
        "int",
        2,
        "claims one agent passes on in one chat at most",
        low=1,
        high=5,
        fixes=((Shortfall.STAYS_LOCAL, RAISE),),
    ),
    Param(
        "sharing.respect_privacy",
        "bool",
        True,
        "weigh whether a matter is private (from cues) before passing it on outside those "
        "known to be in on it",
        acts_for=EVERYONE,
        fixes=((Shortfall.LEAKS, RAISE),),
    ),
    Param(
        "sharing.privacy_threshold",
        "float",
        0.5,
        "how private a matter must seem (cues: said privately, about the listener or someone "
        "known, hearsay) before it is held back; low withholds public news, high leaks",
        low=0.05,
        high=1.0,
        requires="sharing.respect_privacy",
        fixes=((Shortfall.LEAKS, LOWER),),
    ),
    Param(
        "sharing.usefulness_threshold",
        "float",
        0.0,
        "how useful news must seem to the listener (cues from memory: seen them at the place it "
        "is about, they talked about it, one's own plans use it) before it is told unasked; "
        "high keeps public facts local, low spreads them and rumors alike",
        low=0.0,
        high=1.0,
        fixes=((Shortfall.STAYS_LOCAL, LOWER),),
    ),
    # trust — high trust spreads truth and lies alike
    Param(
        "trust.prior",
        "float",
        0.6,
        "trust in a stranger's reports of facts before any outcome was observed",
        low=0.0,
        high=1.0,
    ),
    Param(
        "trust.learning_rate",
        "float",
        0.3,
        "how far one independently observed outcome moves trust",
        low=0.0,
        high=1.0,
    ),
    # replanning — a low trigger reacts fast to blockages and wastes trips on false rumors
    Param(
        "replan.trigger_confidence",
        "float",
        0.5,
        "belief confidence at which a conflicting belief changes a plan",
        low=0.0,
        high=1.0,
        fixes=((Shortfall.STALE_PLANS, LOWER),),
    ),
    Param(
        "replan.notify_group",
        "bool",
        True,
        "after a replan, tell the plan's group at the next meeting",
        fixes=((Shortfall.STALE_PLANS, RAISE),),
    ),
    # motivation — talking more spreads news and uses the day's budget on chatter too
    Param(
        "motivation.talk_budget",
        "int",
        12,
        "claims an agent passes on in one day at most",
        low=1,
        high=60,
        fixes=((Shortfall.STAYS_LOCAL, RAISE),),
    ),
)

# --- the LLM-backed agent's surface (harness/agents/llm) ---------------------------------
# The LLM-backed agent's policy surface, kept apart until it joins `WHITELIST`.
#
# Prompt families are categorical: a search chooses among the frozen files in
# `policies/prompts/<family>/`, never edits them (a test checks that the choices here are exactly
# the files there). The numeric knobs the reference agent already has — `retrieval.top_k` and
# `memory.capacity` — apply to the LLM agent's memory too; only what is new is declared here.
# Each choice costs something: explicit sources and dated memories raise provenance and token
# cost; discreet sharing lowers reach and leaks; responsive replanning avoids stale trips and
# chases false rumors; a higher temperature varies words and choices; a larger context budget
# recalls more and pays more per call.
LLM_PARAMS: tuple[Param, ...] = (
    Param(
        "prompt.importance",
        "categorical",
        "plain",
        "how the model is asked to rate a new memory: bare, or after an appraisal in words",
        choices=("appraisal", "plain"),
        acts_for=EVERYONE,
    ),
    Param(
        "prompt.retrieval",
        "categorical",
        "ranked",
        "how recalled memories are framed for the model: most present first, or with when",
        choices=("dated", "ranked"),
        acts_for=EVERYONE,
    ),
    Param(
        "prompt.sources",
        "categorical",
        "explicit",
        "whether each recalled memory states its source and how sure it is, in words",
        choices=("bare", "explicit"),
        acts_for=EVERYONE,
    ),
    Param(
        "prompt.share",
        "categorical",
        "eager",
        "the chat instruction: pass on news freely, or only what matters, with sources",
        choices=("discreet", "eager"),
        acts_for=EVERYONE,
    ),
    Param(
        "prompt.act",
        "categorical",
        "steady",
        "the planning instruction: keep to the plan, or weigh memories against it first",
        choices=("responsive", "steady"),
        acts_for=EVERYONE,
    ),
    Param(
        "prompt.trust",
        "categorical",
        "forgiving",
        "how an observed outcome is framed: mistakes forgiven, or being wrong costs trust",
        choices=("forgiving", "strict"),
        acts_for=EVERYONE,
    ),
    Param(
        "prompt.answer",
        "categorical",
        "direct",
        "the interview instruction: answer from memory, or only with kept uncertainty",
        choices=("careful", "direct"),
        acts_for=EVERYONE,
    ),
    Param(
        "prompt.reply",
        "categorical",
        "plain",
        "a character's instruction for the lines it answers: plain, or caring (a crisis "
        "judged first, sources said, absences noticed; a longer prompt, and a model told to "
        "look for danger may see it in a joke)",
        choices=("caring", "plain"),
        acts_for=EVERYONE,
    ),
    Param(
        "llm.temperature",
        "float",
        0.2,
        "sampling temperature of every model call (0 = the most likely words)",
        low=0.0,
        high=1.2,
        acts_for=EVERYONE,
    ),
    Param(
        "llm.context_tokens",
        "int",
        800,
        "recalled memories put into one prompt at most, counted in tokens (about 4 characters)",
        low=200,
        high=4000,
        acts_for=EVERYONE,
    ),
)

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
        acts_for=CONVERSATION,
    ),
    Param(
        "companion.recall_threshold",
        "float",
        0.6,
        "activation a memory needs to come to mind (high: old promises are forgotten)",
        low=0.0,
        high=2.0,
        acts_for=CONVERSATION,
    ),
    Param(
        "companion.hold_strength",
        "float",
        0.5,
        "how strong an urge to speak first must be to pass the hold (else a quiet substitute)",
        low=0.0,
        high=1.0,
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

WHITELIST = WHITELIST + LLM_PARAMS + COMPANION_PARAMS
BY_NAME: dict[str, Param] = {p.name: p for p in WHITELIST}


def acting_for(roles: frozenset[Role] | set[Role]) -> tuple[str, ...]:
    """The parameters, in whitelist order, that act for an agent in one of `roles`."""
    return tuple(p.name for p in WHITELIST if p.acts_for & roles)
