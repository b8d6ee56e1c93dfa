"""The subcommands of `villagelab`, by concern; `experiments.cli` composes them. Each imports
what it runs inside its body, so that the command line starts without the heavy libraries
(experiments/cli.py says why)."""
