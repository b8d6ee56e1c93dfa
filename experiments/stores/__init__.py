"""Where a search keeps things: the runs folder (`runs_folder`), the Optuna journal
(`journal`), the MLflow SQLite store (`mlflow_sqlite`), get-or-create for what several drivers
start at once (`creation`), and the names that become folder names (`names`)."""
