"""The subcommands of `villagelab`, by concern; `experiments.cli` composes them."""
