"""The MLflow record: the client and a scorecard as metrics (`records`), a search's runs
(`search_runs`), the one-off commands' runs (`command_runs`), how a study looks in the UI
(`study_view`), and `villagelab ui` (`ui`)."""
