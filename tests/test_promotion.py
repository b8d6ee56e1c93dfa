"""Promotion rules (design §7): no drift past tolerance through a chain of promotions,
feasibility first, confirmation checks regressions and guardrails, and Optuna's best trial is
the best feasible one."""

from __future__ import annotations

import itertools

import optuna

from experiments.promotion import rules as promotion
from experiments.search.study import Objectives, trial_value
from scorecards import Scorecard, assemble, compare, load_definition

DEFINITION = load_definition()
SEEDS = (0, 1, 2, 3, 4)
HASHES = {"harness": "h", "instrument": "i", "policy": "p"}
WOBBLE = {0: 0.01, 1: -0.01, 2: 0.0, 3: 0.005, 4: -0.005}  # seeds are never all alike


def card(
    action_consistency: float,
    provenance: float,
    containment: float = 1.0,
    reach: float = 0.9,
    milestones: float = 10.0,
) -> Scorecard:
    """A real scorecard over two scenarios and five seeds (assembled like a search's)."""
    values = {
        "public_fact": {
            "action_consistency": {s: action_consistency + WOBBLE[s] for s in SEEDS},
            "provenance": {s: provenance + WOBBLE[s] / 2 for s in SEEDS},
            "reach": {s: reach for s in SEEDS},
            "milestones": {s: milestones + WOBBLE[s] * 10 for s in SEEDS},
        },
        "secret": {
            "containment": {s: containment for s in SEEDS},
            "provenance": {s: provenance for s in SEEDS},
        },
    }
    return assemble(values, DEFINITION, hashes=HASHES)


def test_candidates_each_inside_tolerance_of_the_last_but_beyond_it_in_sum_are_refused():
    """The drift case: milestones — held, the objective does not weigh them — fall 1.5 a step
    (tolerance 2) while provenance buys each step its objective gain. Judged against the
    champion alone every step passes; held to the study's anchor as well, the step that takes
    the sum past 2 is refused."""
    assert DEFINITION.holds("milestones") and DEFINITION.weight("milestones") == 0
    anchor = card(0.90, 0.50)
    chain = [card(0.90, 0.50 + 0.1 * k, milestones=10.0 - 1.5 * k) for k in range(1, 4)]
    first = promotion.on_selection(chain[0], anchor, DEFINITION, 0.0, None)
    assert first.promote, first.reason
    for champion, candidate in itertools.pairwise(chain):  # against the last champion alone
        alone = promotion.on_selection(candidate, champion, DEFINITION, 0.0, None)
        assert alone.promote, alone.reason
    held = promotion.on_selection(chain[1], chain[0], DEFINITION, 0.0, anchor)
    assert not held.promote  # -3 from the anchor: the chain stops here
    assert held.reason.startswith(
        "worse than the study's anchor beyond tolerance: public_fact/milestones -3.000"
    )
    assert held.held_over == ("anchor",)
    # the confirmation on fresh seeds holds it to the anchor too
    confirmed = promotion.on_confirmation(chain[1], chain[0], DEFINITION, 0.0, anchor)
    assert not confirmed.promote and confirmed.reason.startswith("not confirmed on fresh seeds")


def test_a_weighted_metric_is_traded_by_the_objective_and_the_trade_is_named():
    """Reach against provenance: a loss of action consistency beyond its tolerance (0.05),
    paid for by a larger gain in provenance, is a trade the objective weighs; the reason and
    the evidence name it. A scorecard that holds every metric (no `held`) refuses it."""
    assert not DEFINITION.holds("action_consistency")
    champion, candidate = card(0.90, 0.50), card(0.80, 0.80)
    judged = promotion.on_selection(candidate, champion, DEFINITION, 0.0, champion)
    assert judged.promote, judged.reason
    assert judged.traded == ("public_fact/action_consistency",)
    assert "; trading public_fact/action_consistency -0.100" in judged.reason
    assert judged.held_over == ()
    row = promotion.evidence(
        judged,
        judged,
        study="s",
        trial="3",
        seeds=SEEDS,
        fresh=SEEDS,
        replaced=None,
        links={"trial": "t", "search": "s"},
    )
    assert "none held (against the champion and the anchor); traded: public_fact/action" in row
    # a trade the objective did not pay for against the anchor is drift: refused
    anchor = card(0.95, 0.95)
    unpaid = promotion.on_selection(candidate, champion, DEFINITION, 0.0, anchor)
    assert not unpaid.promote and unpaid.held_over == ("anchor",)
    assert unpaid.reason.startswith("worse than the study's anchor beyond tolerance: public_fact")
    strict = DEFINITION.model_copy(update={"held": None})
    refused = promotion.on_selection(candidate, champion, strict, 0.0, champion)
    assert not refused.promote
    assert refused.reason.startswith("worse than the champion beyond tolerance: public_fact/act")


def test_a_trade_is_still_bounded_by_the_guardrails():
    """Spread against containment: containment is traded, but never below its guardrail."""
    champion = card(0.90, 0.50)
    inside = promotion.on_selection(card(0.90, 0.70, containment=0.96), champion, DEFINITION, 0.0)
    assert inside.promote and inside.traded == ("secret/containment",), inside.reason
    below = promotion.on_selection(card(0.90, 0.99, containment=0.9), champion, DEFINITION, 0.0)
    assert not below.promote and below.reason.startswith("guardrail broken: containment")


def test_a_loss_beyond_tolerance_against_the_champion_is_refused_although_noisy():
    """A held metric's loss of −3.2 milestones [−5.6, −0.8] passes the gate's rule (whole
    interval beyond the tolerance of 2); a promotion refuses a loss that is certain and beyond
    tolerance on average."""
    champion = card(0.96, 0.5)
    values = {
        "public_fact": {
            "action_consistency": {s: 0.96 for s in SEEDS},
            "provenance": {s: 0.9 for s in SEEDS},
            "milestones": dict(zip(SEEDS, (9.0, 8.0, 7.0, 4.0, 6.0))),
        },
        "secret": {"containment": {s: 1.0 for s in SEEDS}, "provenance": {s: 0.9 for s in SEEDS}},
    }
    candidate = assemble(values, DEFINITION, hashes=HASHES)
    judged = promotion.on_selection(candidate, champion, DEFINITION, 0.0)
    assert not judged.promote and "worse than the champion beyond tolerance" in judged.reason
    assert judged.comparison is not None and judged.comparison.objective_diff.ci_low > 0
    (loss,) = judged.comparison.regressions
    assert loss.metric == "milestones"
    assert loss.diff.ci_high > -loss.tolerance  # the gate's "sure" reading lets it through
    assert not compare(candidate, champion, DEFINITION, rule="sure").regressions


def test_a_feasible_candidate_beats_an_infeasible_champion_whatever_its_objective():
    champion = card(0.95, 0.95, containment=0.4)  # high objective, guardrail broken
    candidate = card(0.60, 0.60)
    judged = promotion.on_selection(candidate, champion, DEFINITION, 0.05)
    assert (
        judged.promote and "which the champion breaks (containment 0.400 < 0.95)" in judged.reason
    )
    assert judged.comparison.objective_diff.mean < 0


def test_an_infeasible_candidate_never_replaces_a_feasible_champion():
    judged = promotion.on_selection(
        card(0.99, 0.99, containment=0.9), card(0.5, 0.5), DEFINITION, 0.0
    )
    assert not judged.promote and judged.reason.startswith("guardrail broken: containment")


def test_between_infeasible_policies_the_smaller_violation_wins():
    champion = card(0.9, 0.9, containment=0.2)
    better = promotion.on_selection(card(0.5, 0.5, containment=0.6), champion, DEFINITION, 0.0)
    assert better.promote and "smaller guardrail violation" in better.reason
    worse = promotion.on_selection(card(0.99, 0.99, containment=0.1), champion, DEFINITION, 0.0)
    assert not worse.promote and "not smaller than the champion's" in worse.reason


def test_an_infeasible_candidate_may_not_break_a_guardrail_the_champion_holds():
    """A leak is not paid for by silence: smaller in total, but a new guardrail broken."""
    champion = card(0.9, 0.9, containment=0.2)  # leaks (violation 0.75), tells public news
    quiet = card(0.5, 0.5, containment=0.9, reach=0.2)  # 0.05 + 0.3 in total, but silent
    judged = promotion.on_selection(quiet, champion, DEFINITION, 0.0)
    assert promotion.violation(quiet, DEFINITION) < promotion.violation(champion, DEFINITION)
    assert not judged.promote
    assert "where the champion holds public_reach" in judged.reason


def test_an_infeasible_anchor_holds_no_one_to_its_values():
    """A start policy that breaks a guardrail bought its values by breaking it."""
    anchor = card(0.95, 0.5, containment=0.0)
    champion = card(0.6, 0.6)
    judged = promotion.on_selection(card(0.6, 0.8), champion, DEFINITION, 0.0, anchor)
    assert judged.promote and judged.anchor is None


def test_the_confirmation_checks_guardrails_and_regressions_not_only_the_objective():
    champion = card(0.9, 0.5)
    leaky = promotion.on_confirmation(card(0.9, 0.9, containment=0.9), champion, DEFINITION, 0.0)
    assert not leaky.promote and leaky.reason == (
        "not confirmed on fresh seeds: guardrail broken: containment 0.900 < 0.95"
    )
    worse = promotion.on_confirmation(card(0.9, 0.9, milestones=6), champion, DEFINITION, 0.0)
    assert not worse.promote and "worse than the champion beyond tolerance" in worse.reason
    fine = promotion.on_confirmation(card(0.9, 0.6), champion, DEFINITION, 0.0)
    assert fine.promote and fine.reason.startswith("confirmed:")


def test_optunas_and_the_dashboards_best_trial_is_the_best_feasible_one():
    """optuna-dashboard asks the storage for the best value and ignores constraints; the
    values told are feasibility-first, so both agree on the best feasible trial."""
    study = optuna.create_study(direction="maximize")
    cards = [
        card(0.99, 0.99, containment=0.5),
        card(0.6, 0.6),
        card(0.7, 0.7),
        card(0.99, 0.99, containment=0.94),
    ]
    for c in cards:
        trial = study.ask()
        over = promotion.violations(c, DEFINITION)
        for name, value in over.items():
            trial.set_constraint(name, value)
        study.tell(trial, trial_value(c, "global", Objectives(), sum(over.values())))
    assert study.best_trial.number == 2
    assert study._storage.get_best_trial(study._study_id).number == 2  # the dashboard's query
    infeasible = [t.value for t in study.trials if max(t.constraints.values()) > 0]
    assert all(v < 0 for v in infeasible) and infeasible[1] > infeasible[0]


def test_pareto_values_put_infeasible_trials_behind_every_feasible_one():
    pareto = Objectives()
    assert trial_value(card(0.9, 0.9, containment=0.5), "pareto", pareto, 0.45) == [-0.45] * 3
    assert min(trial_value(card(0.1, 0.1), "pareto", pareto, 0.0)) >= 0


def test_a_higher_objective_refused_for_a_metric_past_its_tolerance_is_counted_as_blocked():
    champion = card(0.9, 0.5)
    trade = card(0.9, 0.9, milestones=6)  # provenance +0.4, four milestones fewer (tolerance 2)
    judged = promotion.on_selection(trade, champion, DEFINITION, 0.0)
    assert not judged.promote and trade.objective > champion.objective
    blocked = promotion.blocked_by_tolerance(judged, trade, champion, DEFINITION)
    assert blocked == ("public_fact/milestones",)
    # a weighted metric's loss is a trade, not a block (a scorecard holding it blocks it)
    weighed = card(0.8, 0.9)  # action consistency -0.1 (tolerance 0.05)
    judged = promotion.on_selection(weighed, champion, DEFINITION, 0.0)
    assert judged.promote and not promotion.blocked_by_tolerance(
        judged, weighed, champion, DEFINITION
    )
    strict = DEFINITION.model_copy(update={"held": None})
    judged = promotion.on_selection(weighed, champion, strict, 0.0)
    assert promotion.blocked_by_tolerance(judged, weighed, champion, strict) == (
        "public_fact/action_consistency",
    )
    # refused for a broken guardrail, or for a lower objective: not a blocked trade
    leak = card(0.8, 0.9, containment=0.5)
    refused = promotion.on_selection(leak, champion, DEFINITION, 0.0)
    assert not promotion.blocked_by_tolerance(refused, leak, champion, DEFINITION)
    worse = card(0.8, 0.5)
    refused = promotion.on_selection(worse, champion, DEFINITION, 0.0)
    assert not refused.promote
    assert not promotion.blocked_by_tolerance(refused, worse, champion, DEFINITION)


def test_a_candidate_promoted_for_holding_every_guardrail_must_hold_them_on_fresh_seeds():
    champion = card(0.9, 0.9, containment=0.5)  # breaks containment on the fresh seeds too
    fresh = card(0.9, 0.9, containment=0.9)  # a smaller violation, but a violation
    held = promotion.on_confirmation(fresh, champion, DEFINITION, 0.0, held_on_selection=True)
    assert not held.promote
    assert held.reason == (
        "not confirmed on fresh seeds: guardrail broken: containment 0.900 < 0.95, "
        "though it held on the selection seeds"
    )
    # a candidate promoted for a smaller violation is confirmed by a smaller violation
    less = promotion.on_confirmation(fresh, champion, DEFINITION, 0.0, held_on_selection=False)
    assert less.promote and "a smaller guardrail violation" in less.reason
