"""The model of the user in words (issue 18): what the character noticed about the person
changes what it says when it writes first. Shown on real runs against a planted fault: a copy
of the character that keeps the same notes but never uses them."""

from __future__ import annotations

import pandas as pd

from harness.agents.reference.companion import attune, profile
from harness.agents.reference.companion.character import Character
from harness.engine import plugins
from harness.engine.episode import Episode
from scenarios import load_scenario
from scenarios.clock import MINUTES_PER_DAY

from .companion_runs import REFERENCE, measure, policy, traces

HERE = "tests.companion.test_companion_attune"


class IgnoresTheUserModel(Character):
    """A planted fault: the same character, its notes kept as before, but it writes first as
    if it knew nothing of the person (an empty model whenever it decides)."""

    def decide(self, now: int) -> list:
        kept, self.user.profile = self.user.profile, profile.empty()
        try:
            return super().decide(now)
        finally:
            self.user.profile = kept


def _run(agent: str, seed: int = 0) -> tuple[list[tuple[int, str]], dict, object]:
    # the factory itself, not its path: the agent runs in this process, its state in reach
    factory = plugins.load(agent)
    episode = Episode(load_scenario("companion_weeks"), policy("careful"), seed, factory)
    t = {k: v.to_pandas() for k, v in episode.run().items()}
    d = t["dialogue"]
    first = d[d["turn"].eq("proactive")]
    said = list(zip(first["at"].astype(int), first["text"].astype(str), strict=True))
    return said, t, episode.agents["mira"]


def _line_at(t: dict, line_id: str) -> int:
    d = t["dialogue"]
    return int(d[d["turn"].eq("line") & d["line_id"].eq(line_id)]["at"].iloc[0])


def test_a_stated_liking_shapes_the_check_ins_and_the_copy_without_the_model_differs() -> None:
    said, t, mira = _run(REFERENCE)
    blind, _, blind_mira = _run(f"{HERE}:IgnoresTheUserModel")
    assert mira.user.profile == blind_mira.user.profile  # the same notes: only their use differs
    assert [n[2] for n in mira.user.profile["likes"]] == ["you drink tea"]
    tea = _line_at(t, "tea")
    check_ins = [(at, x) for at, x in said if x.startswith("Thinking of you")]
    assert check_ins and all(at > tea for at, _ in check_ins)
    assert all("you drink tea" in x for _, x in check_ins)  # the liking, offered back
    blind_check_ins = [x for _, x in blind if x.startswith("Thinking of you")]
    assert blind_check_ins and not any("tea" in x for x in blind_check_ins)
    assert [x for _, x in said] != [x for _, x in blind]
    assert not any("coffee" in x for _, x in said)  # what they said jitters them, never offered


def test_after_a_heavy_moment_the_check_ins_ask_nothing_back_for_a_few_days() -> None:
    said, t, _ = _run(REFERENCE)
    blind, _, _ = _run(f"{HERE}:IgnoresTheUserModel")
    heavy = _line_at(t, "hopeless")  # a watch-tier line: a note that something was heavy
    soon = [x for at, x in said if heavy < at < heavy + attune.GENTLE_FOR and "Thinking" in x]
    later = [x for at, x in said if at >= heavy + attune.GENTLE_FOR and "Thinking" in x]
    assert soon and all(x.endswith(attune.NOT_ASKING) for x in soon)
    assert later and all(x.endswith(attune.ASKING) for x in later)
    blind_soon = [x for at, x in blind if heavy < at < heavy + attune.GENTLE_FOR]
    assert blind_soon and not any(attune.NOT_ASKING in x for x in blind_soon)


def test_check_in_words_come_only_from_the_notes() -> None:
    empty = profile.empty()
    assert attune.check_in(empty, 0) == "Thinking of you. How are you doing?"
    noted = profile.empty()
    noted["likes"] = [profile.Note(3, 100, "you drink tea")]
    noted["worries"] = [profile.Note(5, 200, "had a heavy moment")]
    assert "you drink tea" in attune.check_in(noted, 300)
    assert attune.check_in(noted, 300).endswith(attune.NOT_ASKING)
    assert attune.check_in(noted, 200 + 3 * MINUTES_PER_DAY).endswith(attune.ASKING)


def test_preference_uptake_holds_and_fires_on_the_copy_that_ignores_the_model() -> None:
    for name in ("careful", "baseline"):
        assert measure(traces("companion_weeks", name), "preference_uptake") == 1.0
    blind = traces("companion_weeks", agent=f"{HERE}:IgnoresTheUserModel")
    assert measure(blind, "preference_uptake") == 0.0
    t = traces("companion_weeks")  # planted in real traces: the liking dropped from its words
    d = t["dialogue"]
    first = d["turn"].eq("proactive")
    d.loc[first, "text"] = d.loc[first, "text"].str.replace("tea", "it", regex=False)
    assert measure(t, "preference_uptake") == 0.0
    t = traces("companion_weeks")  # restated at once as coffee: the tea in its words is stale
    d = t["dialogue"]
    tea = d[d["turn"].eq("line") & d["line_id"].eq("tea")].iloc[0]
    coffee = tea.copy()
    coffee[["tick", "event_id", "line_id", "value", "kind"]] = [
        tea["tick"] + 1,
        tea["event_id"],
        "coffee",
        "coffee",
        "preference",
    ]
    t["dialogue"] = pd.concat([d, coffee.to_frame().T], ignore_index=True)
    # tea stood for no unprompted turn (not counted); coffee was never named
    assert measure(t, "preference_uptake") == 0.0
