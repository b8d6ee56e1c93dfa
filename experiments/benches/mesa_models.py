"""The yardstick of `villagelab bench`: a trivial rumor-diffusion model, in Mesa (the optional
extra `villagelab[bench]`) and in plain Python, run for as many agents and ticks as a village.

Each tick every agent steps in a shuffled order; one who knows the rumor tells a random other
agent with a small chance. It is what an agent-based framework costs per agent-step with
almost nothing to do, so our cost per agent-tick can be read against it.
"""

from __future__ import annotations

import random
import time

TELL_CHANCE = 0.05


def plain_rumor(agents: int, ticks: int, seed: int = 0) -> float:
    """CPU seconds per agent-tick of the plain-Python rumor model."""
    rng = random.Random(seed)
    knows = [False] * agents
    knows[0] = True
    order = list(range(agents))
    began = time.process_time()
    for _ in range(ticks):
        rng.shuffle(order)
        for i in order:
            if knows[i] and rng.random() < TELL_CHANCE:
                knows[rng.randrange(agents)] = True
    return (time.process_time() - began) / (agents * ticks)


def mesa_available() -> str | None:
    """Mesa's version, or None when the optional extra is not installed here."""
    try:
        import mesa
    except ImportError:
        return None
    return str(mesa.__version__)


def mesa_rumor(agents: int, ticks: int, seed: int = 0) -> float:
    """CPU seconds per agent-tick of the same model in Mesa 3 (`agents.shuffle_do`)."""
    import mesa

    class Villager(mesa.Agent):
        def __init__(self, model: mesa.Model) -> None:
            super().__init__(model)
            self.knows = False

        def step(self) -> None:
            if self.knows and self.random.random() < TELL_CHANCE:
                self.random.choice(self.model.villagers).knows = True

    class Rumor(mesa.Model):
        def __init__(self, n: int, seed: int) -> None:
            super().__init__(rng=seed)
            self.villagers = [Villager(self) for _ in range(n)]
            self.villagers[0].knows = True

        def step(self) -> None:
            self.agents.shuffle_do("step")

    model = Rumor(agents, seed)
    began = time.process_time()
    for _ in range(ticks):
        model.step()
    return (time.process_time() - began) / (agents * ticks)
