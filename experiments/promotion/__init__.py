"""When a trial replaces the champion (`rules`), the attempt itself, confirmed on fresh seeds
(`promoter`), and the champion in the MLflow model registry (`champion`)."""
