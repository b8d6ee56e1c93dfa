"""The policy surface: every parameter a search may change, typed, ranged, defaulted, explained.

Each family costs something elsewhere (design §6): the search must trade, not flip switches.
Anything not declared here cannot be set by a policy file or a search.
"""

from __future__ import annotations

from .companion_surface import COMPANION_PARAMS
from .param import Param
from .purposes import EVERYONE, LOWER, RAISE, Shortfall

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
        grid=0.05,
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
        grid=0.1,
        fixes=((Shortfall.NOISY_RECALL, RAISE),),
    ),
    Param(
        "retrieval.recency_weight",
        "float",
        1.0,
        "weight of retention (recency) in a memory's activation",
        low=0.0,
        high=3.0,
        grid=0.1,
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
        grid=0.05,
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
        grid=0.05,
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
        grid=0.05,
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
        grid=0.05,
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
        grid=0.05,
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
        grid=0.05,
    ),
    Param(
        "trust.learning_rate",
        "float",
        0.3,
        "how far one independently observed outcome moves trust",
        low=0.0,
        high=1.0,
        grid=0.05,
    ),
    # replanning — a low trigger reacts fast to blockages and wastes trips on false rumors
    Param(
        "replan.trigger_confidence",
        "float",
        0.5,
        "belief confidence at which a conflicting belief changes a plan",
        low=0.0,
        high=1.0,
        grid=0.05,
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
        grid=0.05,
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

WHITELIST = WHITELIST + LLM_PARAMS + COMPANION_PARAMS
BY_NAME: dict[str, Param] = {p.name: p for p in WHITELIST}
