"""The outer loop (design §7): the Optuna study and its storage (`study`), the search's
configuration (`config`) and what it samples (`surface`), the loop (`loop`) and one trial's
steps (`trial_run`), how a trial is measured (`trials`, `pruning`, `repeats`), who owns a trial
(`drivers`), and the proposals beyond the sampler's (`diagnosis`, `repair`, `model_proposal`)."""
