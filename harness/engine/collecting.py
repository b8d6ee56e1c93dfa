"""Python's cycle collector, run rarely while an episode ticks.

An episode allocates millions of short-lived objects (observations, rows, states) and keeps
a growing heap of long-lived ones (memories, beliefs), so at the default threshold (a young
collection every 700 allocations, a full one whenever the old heap has grown by a quarter)
the collector spends ~5 % of a 1,000-agent day walking objects that reference counting
frees anyway: the reference agent makes no cycles while it runs. Cycles an agent does make
are still collected, only less often; the thresholds are restored when the episode returns.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 100_000  # allocations between young collections while an episode runs


@contextmanager
def rare_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], YOUNG), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def heap_frozen() -> Iterator[None]:
    """What exists now (the imported stack, the study, the stores) outlives the block: swept
    once, then left out of every collection until the block ends (`gc.freeze`). A search
    driver's full collections otherwise walk MLflow's, SQLAlchemy's and pandas' hundreds of
    thousands of objects, ~90 ms each, every few trials."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
