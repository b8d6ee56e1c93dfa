"""Evaluating a policy: where its episodes run (`dispatch`), running and scoring them
(`evaluate`), the run folder `villagelab run --out` writes and reads back (`run_folder`,
`manifest`), and the two checks built on them: the CI gate (`gate`) and one-parameter sweeps
(`sweep`)."""
