"""Reports read from what a search or a run left: the morning summary of a study (`morning`)
and one agent at one tick, reconstructed from its traces (`inspect`)."""
