"""Cheating and dumb agents written by a new user against the documentation alone, each with its
honest twin (the same agent with the cheat switched off), so that a test can assert a cheat
gains nothing over its twin. `tests/cheats/pairs.py` lists the pairs and measures them:

    nice -n 10 .venv/bin/python -m tests.cheats.pairs --seeds 0-4 --out /tmp/cheats

Modules: `companion` (the companion suite), `self_report` (diagnostic rows withheld),
`village` (the main, research and workflow suites).
"""
