"""The metric registry: one module per metric, each registering itself on import."""

from __future__ import annotations

from . import action_consistency, provenance, reach
from ._base import METRICS, Direction, Episode, Metric, register

__all__ = [
    "METRICS",
    "Direction",
    "Episode",
    "Metric",
    "action_consistency",
    "provenance",
    "reach",
    "register",
]
