"""How a study looks in the MLflow UI: its description, the shared runs view `villagelab ui`
opens on (the trials, best first, with the columns that explain each decision), and the UI
routes to a study and to a run."""

from __future__ import annotations

import json

SHARED_VIEW = "villagelab"  # the key of the study's shared runs view (see `shared_view`)

DESCRIPTION = """\
A villagelab search study: one **parent run** per invocation of `villagelab search`
(named `<study> <date time>`, the settings as params, the champion's objective per step) and
one **child run** per trial: the policy as params; tags `villagelab.decision`
(promoted / rolled_back / pruned / failed) and `villagelab.reason`.

Metrics of a trial, on the selection seeds: `objective` and each metric `m` overall and
`scenario/m` per scenario, as the mean over seeds with its 95% interval (`.ci_low`,
`.ci_high`); beside each, the champion's value on the same seeds (`.champion`, with its
interval) and, per scenario, the paired difference (`.vs_champion`). `optuna_value` is what
Optuna ranks by: the objective when every guardrail holds, else minus the total
`violation`. `instance_objective` (by step) is what the pruner saw. Values are rounded to 4
decimals; the exact numbers are in each run's `scorecard.json`.

The champion is the registered model `villagelab-policy` with the alias `champion`: each
version's description holds its promotion evidence. `villagelab ui` opens the trials sorted
by `optuna_value` (a shared view; "Exit shared view" shows every run)."""

COLUMNS = [  # the shared view's columns, in order: decision first, then what it rests on
    "attributes.`Dataset`",
    "tags.`villagelab.decision`",
    "metrics.`optuna_value`",
    "metrics.`objective`",
    "metrics.`objective.ci_low`",
    "metrics.`objective.ci_high`",
    "metrics.`objective.champion`",
    "metrics.`objective.vs_champion`",
    "metrics.`violation`",
    "metrics.`containment`",
    "metrics.`reach`",
    "metrics.`provenance`",
    "metrics.`action_consistency`",
    "metrics.`false_certainty_rate`",
    "tags.`villagelab.reason`",
]


def shared_view() -> str:
    """The runs table a user should land on: the trials, best first, with the columns that
    explain each decision (MLflow's "shared view" state, stored as an experiment tag)."""
    return json.dumps(
        {
            "searchFilter": "tags.`villagelab.kind` = 'trial'",
            "orderByKey": "metrics.`optuna_value`",
            "orderByAsc": False,
            "selectedColumns": COLUMNS,
            "columnOrder": COLUMNS,
            "runsHiddenMode": "SHOW_ALL",
            "columnWidths": {"tags.`villagelab.decision`": 120, "tags.`villagelab.reason`": 600},
        }
    )


def runs_view_path(experiment_id: str) -> str:
    """The UI route of a study's runs view (MLflow 3 otherwise opens on GenAI traces)."""
    return (
        f"#/experiments/{experiment_id}/runs?workflowType=machine_learning"
        f"&viewStateShareKey={SHARED_VIEW}"
    )


def run_path(experiment_id: str, run_id: str) -> str:
    return f"#/experiments/{experiment_id}/runs/{run_id}"
