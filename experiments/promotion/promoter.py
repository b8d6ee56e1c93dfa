"""The champion's side of a search: who holds the title, the study's anchor, and a promotion
attempt — confirmed on fresh seeds and registered under the promotion lock (design §7).

The rules themselves are in `promotion`; this module runs what they need (the champion's and
the anchor's scorecards, the fresh confirmation episodes) and records the outcome (the
registry version with its evidence, the champion's report and traces, the anchor).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import optuna

from experiments.evaluation.evaluate import Instrument, collect
from experiments.promotion import rules as promotion
from experiments.promotion.champion import Registry
from experiments.search.config import SearchConfig
from experiments.search.study import Decision
from experiments.search.trials import Evaluator
from experiments.stores.runs_folder import RunsDir
from experiments.tracking import study_view
from experiments.tracking.search_runs import Tracker
from harness import read_traces, write_episode
from policies import Policy, baseline_path
from scorecards import Scorecard, ScorecardDefinition
from scorecards.report import write_reports


@dataclass(frozen=True)
class Standing:
    """The champion and the study's anchor, each with its scorecard on the selection seeds.

    The anchor is the policy every promotion is also held to (no metric beyond tolerance):
    the champion when the study began, or — when that broke a guardrail — the first feasible
    champion. It lives in the Optuna study's user attributes, shared by every driver."""

    version: int | None
    champion: Policy
    card: Scorecard
    anchor: Policy
    anchor_card: Scorecard
    anchor_version: int | None

    @property
    def anchor_apart(self) -> Scorecard | None:
        """The anchor's scorecard when the anchor is not the champion itself."""
        return None if self.anchor.hash == self.champion.hash else self.anchor_card

    def feasible(self, definition: ScorecardDefinition) -> bool:
        """Whether the champion holds every guardrail."""
        return not promotion.violation(self.card, definition)


@dataclass(frozen=True)
class Attempt:
    """A trial that passed on the selection seeds, ready to be confirmed."""

    run_id: str
    study_name: str  # the Optuna (sub-)study it belongs to
    number: int
    policy: Policy
    card: Scorecard
    records: list[Any]
    judged: promotion.Judgement


class Promoter:
    def __init__(
        self,
        name: str,
        config: SearchConfig,
        instrument: Instrument,
        start_policy: Policy,
        evaluator: Evaluator,
        tracker: Tracker,
        registry: Registry,
        runs: RunsDir,
        storage_url: str | None,
        main: optuna.Study,
    ) -> None:
        self.name, self.config, self.instrument = name, config, instrument
        self.definition = instrument.definition
        self.start_policy, self.evaluator = start_policy, evaluator
        self.tracker, self.registry, self.runs = tracker, registry, runs
        self.storage_url, self.main = storage_url, main
        self.folder = runs.study_dir(name)

    def standing(self, parent: str) -> Standing:
        """The registry's champion (registering the start policy if there is none yet) and
        the study's anchor (set once: the champion when the study began)."""
        with promotion.promotion_lock(self.storage_url, self.runs.root):
            version = self.registry.current_version()  # another driver may have just begun
            if version is None:
                card, records = self.evaluator.whole(self.start_policy, self.config.seeds)
                evidence = promotion.start_evidence(
                    self.name,
                    self.config.start_policy or str(baseline_path()),
                    card,
                    self.definition,
                )
                version = self.register(
                    parent, "start", self.start_policy, card, records, evidence=evidence
                )
                champion: Policy = self.start_policy
            else:
                version, champion = self._registered(version)
            if self.main.user_attrs.get("anchor") is None:
                self.main.set_user_attr(
                    "anchor",
                    {
                        "version": version,
                        "policy": dict(champion),
                        "why": "the champion when the study began",
                    },
                )
                # what the study measures on, for the morning report to measure others alike
                self.main.set_user_attr("scenarios", list(self.config.scenarios))
                self.main.set_user_attr("seeds", list(self.config.seeds))
        return self.read(version, champion)

    def infeasible(self, standing: Standing) -> str | None:
        """What to say at the start when the champion breaks a guardrail."""
        if not promotion.violation(standing.card, self.definition):
            return None
        return (
            f"the champion (version {standing.version}) breaks a guardrail: "
            f"{promotion.breaks(standing.card)}. Feasibility comes first: the first candidate "
            "that holds every guardrail and confirms on fresh seeds replaces it, and becomes "
            "the anchor later promotions are held to."
        )

    def read(self, version: int | None, champion: Policy) -> Standing:
        anchor = self.main.user_attrs["anchor"]
        anchor_policy = champion.with_values(anchor["policy"])  # on the champion's surface
        seeds = self.config.seeds
        card = self.evaluator.card(champion, seeds)
        anchor_card = (
            card
            if anchor_policy.hash == champion.hash
            else self.evaluator.card(anchor_policy, seeds)
        )
        return Standing(version, champion, card, anchor_policy, anchor_card, anchor["version"])

    def register(
        self,
        run_id: str,
        trial: str,
        policy: Policy,
        card: Scorecard,
        records: list[Any],
        comparison: Any = None,
        evidence: str = "",
    ) -> int:
        """Its traces and report in a folder of the study (studies/S/champions/<trial>-<hash>),
        its artifacts in MLflow, a registry version, and the alias moved."""
        folder = self.folder / "champions" / f"{trial}-{policy.hash}"
        stored = {r.stored_at for r in records} - {None}
        if stored:  # the workers wrote the trial's traces to the shared URI: read them back
            (location,) = stored
            traces = read_traces(location)
        else:  # the traces came back to the driver; they are written here only
            for r in records:
                write_episode(folder, r.scenario, r.seed, r.tables)
            traces = collect(records)
        reports = write_reports(
            card,
            traces,
            folder,
            comparison=comparison,
            title=f"{self.name}: champion from trial {trial}",
        )
        source = self.tracker.log_champion(run_id, policy, card, reports)
        self.evaluator.keep(card, self.config.seeds)
        return self.registry.promote(
            run_id, source, policy, card.objective, self.name, trial, description=evidence
        )

    def _registered(self, version: int | None) -> tuple[int, Policy]:
        """A registered version's policy on this study's surface (the agent's own
        parameters at their defaults if the version has none)."""
        number, policy = self.registry.policy(version)
        return number, policy.on(self.start_policy.surface)

    def attempt(self, trial: Attempt, standing: Standing) -> tuple[Decision, str, Standing | None]:
        """Confirm on fresh seeds and register — under the lock, against the champion and
        anchor of that moment (another driver may have promoted meanwhile). Returns the
        decision, its reason and, if promoted, the new standing."""
        study_name, number, card = trial.study_name, trial.number, trial.card
        judged = trial.judged
        with promotion.promotion_lock(self.storage_url, self.runs.root):
            current = self.registry.current_version()
            if current != standing.version:
                standing = self.read(*self._registered(current))
                judged = promotion.on_selection(
                    card, standing.card, self.definition, self.config.margin, standing.anchor_apart
                )
                if not judged.promote:
                    return (
                        Decision.ROLLED_BACK,
                        f"after a concurrent promotion: {judged.reason}",
                        None,
                    )
            # fresh per (sub-)study and trial: local mode's sub-studies restart their numbering
            seeds = promotion.confirmation_seeds(
                load_confirmation_start(self.config.suite),
                study_name,
                number,
                self.config.confirmation_seeds,
            )
            names = [s.name for s in self.instrument.scenarios]
            self.tracker.confirmation(trial.run_id, names, seeds)
            fresh, _ = self.evaluator.whole(trial.policy, seeds)
            incumbent = self.evaluator.card(standing.champion, seeds)
            anchor = None
            if standing.anchor_apart is not None and not promotion.violation(
                standing.anchor_card, self.definition
            ):
                anchor = self.evaluator.card(standing.anchor, seeds)
            confirmed = promotion.on_confirmation(
                fresh,
                incumbent,
                self.definition,
                self.config.margin,
                anchor,
                held_on_selection=not promotion.violation(trial.card, self.definition),
            )
            if not confirmed.promote:
                return Decision.ROLLED_BACK, f"{judged.reason}; {confirmed.reason}", None
            label = str(number) if study_name == self.name else f"{study_name}#{number}"
            links = {
                "trial": study_view.run_path(self.tracker.experiment_id, trial.run_id),
                "search": study_view.run_path(
                    self.tracker.experiment_id, self.tracker.parent_of(trial.run_id) or ""
                ),
            }
            evidence = promotion.evidence(
                judged,
                confirmed,
                study=self.name,
                trial=label,
                seeds=self.config.seeds,
                fresh=seeds,
                replaced=standing.version,
                links=links,
            )
            version = self.register(
                trial.run_id, label, trial.policy, card, trial.records, judged.comparison, evidence
            )
            new = replace(standing, version=version, champion=trial.policy, card=card)
            if promotion.violation(
                standing.anchor_card, self.definition
            ) > 0 and not promotion.violation(card, self.definition):
                self.main.set_user_attr(
                    "anchor",
                    {
                        "version": version,
                        "policy": dict(trial.policy),
                        "why": "the first feasible champion (the start broke a guardrail)",
                    },
                )
                new = replace(new, anchor=trial.policy, anchor_card=card, anchor_version=version)
        return Decision.PROMOTED, f"{judged.reason}; {confirmed.reason}", new


def load_confirmation_start(suite: str | None = None) -> int:
    from scenarios import load_suite

    return load_suite(suite).seeds.confirmation_start
