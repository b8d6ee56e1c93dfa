"""The LLM-backed agent's policy surface, kept apart until it joins `WHITELIST`.

Prompt families are categorical: a search chooses among the frozen files in
`policies/prompts/<family>/`, never edits them (a test checks that the choices here are exactly
the files there). The numeric knobs the reference agent already has — `retrieval.top_k` and
`memory.capacity` — apply to the LLM agent's memory too; only what is new is declared here.
Each choice costs something: explicit sources and dated memories raise provenance and token
cost; discreet sharing lowers reach and leaks; responsive replanning avoids stale trips and
chases false rumors; a higher temperature varies words and choices; a larger context budget
recalls more and pays more per call.
"""

from __future__ import annotations

from .whitelist import Param

LLM_PARAMS: tuple[Param, ...] = (
    Param(
        "prompt.importance",
        "categorical",
        "plain",
        "how the model is asked to rate a new memory: bare, or after an appraisal in words",
        choices=("appraisal", "plain"),
    ),
    Param(
        "prompt.retrieval",
        "categorical",
        "ranked",
        "how recalled memories are framed for the model: most present first, or with when",
        choices=("dated", "ranked"),
    ),
    Param(
        "prompt.sources",
        "categorical",
        "explicit",
        "whether each recalled memory states its source and how sure it is, in words",
        choices=("bare", "explicit"),
    ),
    Param(
        "prompt.share",
        "categorical",
        "eager",
        "the chat instruction: pass on news freely, or only what matters, with sources",
        choices=("discreet", "eager"),
    ),
    Param(
        "prompt.act",
        "categorical",
        "steady",
        "the planning instruction: keep to the plan, or weigh memories against it first",
        choices=("responsive", "steady"),
    ),
    Param(
        "prompt.trust",
        "categorical",
        "forgiving",
        "how an observed outcome is framed: mistakes forgiven, or being wrong costs trust",
        choices=("forgiving", "strict"),
    ),
    Param(
        "prompt.answer",
        "categorical",
        "direct",
        "the interview instruction: answer from memory, or only with kept uncertainty",
        choices=("careful", "direct"),
    ),
    Param(
        "llm.temperature",
        "float",
        0.2,
        "sampling temperature of every model call (0 = the most likely words)",
        low=0.0,
        high=1.2,
    ),
    Param(
        "llm.context_tokens",
        "int",
        800,
        "recalled memories put into one prompt at most, counted in tokens (about 4 characters)",
        low=200,
        high=4000,
    ),
)
