"""The metric registry: one module per metric, each registering itself on import."""

from __future__ import annotations

from . import (
    action_consistency,
    conservation_violations,
    containment,
    false_certainty_rate,
    help_loops,
    isolation_violations,
    memory_load,
    memory_noise,
    milestones,
    probe_hallucination,
    probe_recall,
    provenance,
    reach,
    request_fulfilment,
    stale_action_rate,
    text_contradiction_rate,
    time_to_replan,
    time_to_replan_group,
    uncertainty_preservation,
)
from ._base import METRICS, Direction, Episode, Metric, register

__all__ = [
    "METRICS",
    "Direction",
    "Episode",
    "Metric",
    "action_consistency",
    "conservation_violations",
    "containment",
    "false_certainty_rate",
    "help_loops",
    "isolation_violations",
    "memory_load",
    "memory_noise",
    "milestones",
    "probe_hallucination",
    "probe_recall",
    "provenance",
    "reach",
    "register",
    "request_fulfilment",
    "stale_action_rate",
    "text_contradiction_rate",
    "time_to_replan",
    "time_to_replan_group",
    "uncertainty_preservation",
]
