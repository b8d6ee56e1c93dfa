"""`bench --instrument`'s parts: random contenders drawn in range from a fixed stream, and the
flag for a weighted metric no contender moves (issue 14)."""

from __future__ import annotations

from experiments.benches.instrument import Spread, random_policy
from policies import WHITELIST, load_policy

from .conftest import ROOT


def test_random_policies_are_fixed_draws_within_the_whitelist():
    careful = load_policy(ROOT / "policies" / "careful.yaml")
    one, again, two = (random_policy(careful, s) for s in (1, 1, 2))
    assert one.hash == again.hash and one.hash != two.hash != careful.hash
    for p in WHITELIST:
        if p.kind in ("int", "float"):
            assert p.low <= one[p.name] <= p.high, p.name


def test_a_weighted_metric_that_nothing_moves_is_flagged():
    assert Spread("m", 1.0, {"a": 0.5, "b": 0.5, "c": None}).idle_weight
    assert not Spread("m", 0.0, {"a": 0.5, "b": 0.5}).idle_weight  # reported only
    assert not Spread("m", 1.0, {"a": 0.5, "b": 0.7}).idle_weight
    # declared by no scenario of this suite (the companion suite's metrics): not measured here
    assert not Spread("m", 1.0, {"a": None, "b": None}).idle_weight
