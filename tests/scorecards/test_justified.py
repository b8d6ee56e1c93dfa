"""One standard of what an agent may rightly hold (`scorecards.metrics._justified`): the band
for each pattern of exposures, and every modality metric's verdict on an answer that hardens,
one that understates and one inside the band."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from scorecard_traces import answer, exposure, fact, frame

from harness.engine.kinds import Modality
from scorecards.metrics._justified import NOTHING, Band, Justified, justified
from scorecards.metrics.conflicts_kept import conflicts_kept
from scorecards.metrics.false_certainty_rate import false_certainty_rate
from scorecards.metrics.probe_recall import probe_recall
from scorecards.metrics.supersession import supersession
from scorecards.metrics.uncertainty_preservation import uncertainty_preservation
from scorecards.metrics.understatement_rate import understatement_rate

C, L, R = Modality.CERTAIN, Modality.LIKELY, Modality.RUMOR
AUDIENCE = ["ana", "bo", "cy", "di", "ed"]
ASKED = 100  # when cy is asked and when it speaks: after every exposure below


def told(agent: str, teller: str, tick: int, modality: str, value: str = "yes") -> dict:
    row = exposure(agent, "told", teller, tick=tick, proposition="storm", value=value)
    return {**row, "modality": modality}


def storm(**extra: Any) -> dict:
    return fact("storm", "yes", extra.pop("origin", "ana"), AUDIENCE, private=False, **extra)


# pattern → (the truth, cy's exposures, what cy may rightly hold about "yes", the informant
# cy may name); every pattern's truth is the same storm, only how word of it reached cy differs
PATTERNS: dict[str, tuple[dict, list[dict], Band, str]] = {
    "seen first-hand": (
        storm(modality="likely"),
        [exposure("cy", "seen", tick=10, proposition="storm")],
        Band(C, C),
        "self",
    ),
    "one chain, a rumor": (
        storm(modality="rumor"),
        [told("bo", "ana", 5, "rumor"), told("cy", "bo", 10, "rumor")],
        Band(R, R),
        "bo",
    ),
    "one chain, certain": (
        storm(),
        [told("bo", "ana", 5, "certain"), told("cy", "bo", 10, "certain")],
        Band(L, C),
        "bo",
    ),
    "two chains from one origin": (
        storm(modality="likely"),
        [
            told("bo", "ana", 5, "likely"),
            told("di", "ana", 5, "likely"),
            told("cy", "bo", 10, "likely"),
            told("cy", "di", 12, "likely"),
        ],
        Band(R, L),
        "bo",
    ),
    "two independent origins": (
        storm(
            modality="likely",
            origin=None,
            origins=["ana", "ed"],
            origin_modalities=["likely", "likely"],
            origin_ticks=[1, 1],
        ),
        [
            told("bo", "ana", 5, "likely"),
            told("di", "ed", 5, "likely"),
            told("cy", "bo", 10, "likely"),
            told("cy", "di", 12, "likely"),
        ],
        Band(L, C),
        "bo",
    ),
}


def episode(pattern: str, **tables: pd.DataFrame) -> dict[str, pd.DataFrame]:
    truth, exposures, _, _ = PATTERNS[pattern]
    return {"truth": frame("truth", [truth]), "exposures": frame("exposures", exposures), **tables}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_band_of_each_pattern_of_exposures(pattern: str) -> None:
    band = PATTERNS[pattern][2]
    assert justified(episode(pattern), "cy", "storm", ASKED) == Justified((("yes", band),))
    assert justified(episode(pattern), "cy", "storm", 9) == NOTHING  # before anything reached it


def _stronger(band: Band) -> Modality | None:
    order = [R, L, C]
    i = order.index(band.surest) + 1
    return order[i] if i < len(order) else None


def _weaker(band: Band) -> Modality | None:
    order = [R, L, C]
    i = order.index(band.weakest) - 1
    return order[i] if i >= 0 else None


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_modality_metric_judges_by_the_band(pattern: str) -> None:
    """Inside the band every metric is satisfied; above it, probe_recall,
    uncertainty_preservation and false_certainty_rate object; below it, probe_recall,
    uncertainty_preservation and understatement_rate do."""
    truth, _, band, source = PATTERNS[pattern]
    uncertain = truth["modality"] != "certain"
    seen = band.weakest is C  # it saw for itself: not among those asked to keep a hedge

    def verdicts(modality: Modality) -> dict[str, float | None]:
        asked = {**answer("cy", "yes", source, tick=ASKED, proposition="storm", kind="probe")}
        census = {**answer("cy", "yes", source, tick=ASKED, proposition="storm")}
        said = {
            "speaker": "cy",
            "listener": "zed",
            "proposition": "storm",
            "value": "yes",
            "modality": modality,
            "scripted": False,
            "tick": ASKED,
        }
        # a second claim of cy's, faithful, about another matter: a rate needs two claims
        calm = {**said, "proposition": "calm", "modality": "certain"}
        e = episode(
            pattern,
            probes=frame("probes", [{**a, "answer_modality": modality} for a in (asked, census)]),
            utterances=frame("utterances", [said, calm]),
        )
        e["truth"] = frame(
            "truth", [PATTERNS[pattern][0], fact("calm", "yes", "ana", private=False)]
        )
        calm_told = exposure("cy", "told", "bo", tick=10, proposition="calm")
        e["exposures"] = pd.concat([e["exposures"], frame("exposures", [calm_told])])
        return {
            "probe_recall": probe_recall(e),
            # cy is one of the audience of four (ana is the origin where there is one)
            "uncertainty_preservation": uncertainty_preservation(e),
            "false_certainty_rate": false_certainty_rate(e),
            "understatement_rate": understatement_rate(e),
        }

    audience = len(AUDIENCE) - (1 if truth["origin"] else 2)  # the origins excluded
    within = verdicts(band.surest)
    assert within["probe_recall"] == 1.0
    if not uncertain:
        assert within["uncertainty_preservation"] is None
    elif seen:  # the rest of the audience, silent, keeps nothing; cy is not counted
        assert within["uncertainty_preservation"] == 0.0
    else:
        assert within["uncertainty_preservation"] == pytest.approx(1 / audience)
    assert within["false_certainty_rate"] == 0.0
    # (a storm band with no floor above rumor leaves one countable claim: too few to judge)
    assert within["understatement_rate"] in (None, 0.0)

    if (stronger := _stronger(band)) is not None:
        hardened = verdicts(stronger)
        assert hardened["probe_recall"] == 0.0
        if uncertain and not seen:
            assert hardened["uncertainty_preservation"] == 0.0
        assert hardened["false_certainty_rate"] == 0.5  # one of cy's two claims

    if (weaker := _weaker(band)) is not None:
        understated = verdicts(weaker)
        assert understated["probe_recall"] == 0.0
        if uncertain and not seen:
            assert understated["uncertainty_preservation"] == 0.0
        assert understated["understatement_rate"] == 0.5


# --- a value that changes, a replacement, a retraction, a contest ---------------------------
PRICE = [
    {**fact("price", "3", "ana", AUDIENCE, private=False), "valid_from": None},
    {**fact("price", "5", "ana", AUDIENCE, private=False), "valid_from": 50},
]


def _price_told(value: str, tick: int) -> dict:
    return {**exposure("cy", "told", "bo", tick=tick, proposition="price", value=value)}


def test_successive_values_the_newest_heard_holds_and_names_what_it_replaced() -> None:
    e = {
        "truth": frame("truth", PRICE),
        "exposures": frame("exposures", [_price_told("3", 10), _price_told("5", 60)]),
    }
    assert justified(e, "cy", "price", 40) == Justified((("3", Band(L, C)),))
    assert justified(e, "cy", "price", ASKED) == Justified(
        (("5", Band(L, C)),), None, "3", Band(L, C)
    )

    def recall(value: str, kind: str) -> float | None:
        row = {**answer("cy", value, "bo", tick=ASKED, proposition="price", kind=kind)}
        return probe_recall({**e, "probes": frame("probes", [row])})

    assert recall("5", "probe") == 1.0 and recall("3", "probe") == 0.0
    assert recall("3", "probe_replaced") == 1.0 and recall("5", "probe_replaced") == 0.0


MOVED = [
    fact("at_square", "true", "ana", AUDIENCE, private=False),
    fact("moved", "true", "ana", AUDIENCE, private=False, supersedes="at_square"),
]


@pytest.mark.parametrize("kind", ["replaced", "retracted"])
def test_a_replaced_or_retracted_proposition_no_longer_holds(kind: str) -> None:
    exposures = [
        exposure("cy", "told", "bo", tick=10, proposition="at_square", value="true"),
        exposure("cy", "told", "bo", tick=60, proposition="moved", value="true"),
    ]
    e = {"truth": frame("truth", MOVED), "exposures": frame("exposures", exposures)}
    assert justified(e, "cy", "at_square", 40).replaced_by is None
    assert justified(e, "cy", "at_square", ASKED).replaced_by == "moved"

    def scored(value: str, replaced_by: str | None) -> tuple[float | None, float | None]:
        row = {**answer("cy", value, "bo", tick=ASKED, proposition="at_square", kind="probe")}
        probes = frame("probes", [{**row, "answer_replaced_by": replaced_by}])
        return supersession({**e, "probes": probes}), probe_recall({**e, "probes": probes})

    # a retraction has no replacement to name: "no longer holds" is the answer
    assert scored("false", None) == (1.0, 1.0)
    if kind == "replaced":
        assert scored("true", "moved") == (1.0, 1.0)
    assert scored("true", None) == (0.0, 0.0)  # holds it as if nothing had replaced it
    assert scored("true", "elsewhere") == (0.0, 0.0)  # names a replacement it never heard of


def test_a_replacement_named_where_none_was_heard_is_a_miss() -> None:
    exposures = [exposure("cy", "told", "bo", tick=10, proposition="at_square", value="true")]
    e = {"truth": frame("truth", MOVED), "exposures": frame("exposures", exposures)}
    row = {**answer("cy", "true", "bo", tick=ASKED, proposition="at_square", kind="probe")}
    probes = frame("probes", [{**row, "answer_replaced_by": "moved"}])
    assert supersession({**e, "probes": probes}) == 0.0


def test_two_values_told_as_surely_are_contested_and_either_is_held_hedged() -> None:
    truth = fact("storm", "yes", None, AUDIENCE, private=False, modality="likely")
    exposures = [told("cy", "bo", 10, "likely"), told("cy", "di", 12, "likely", value="no")]
    e = {"truth": frame("truth", [truth]), "exposures": frame("exposures", exposures)}
    contested = Band(R, L)
    assert justified(e, "cy", "storm", ASKED) == Justified((("no", contested), ("yes", contested)))

    def kept(value: str, modality: str) -> float | None:
        row = {**answer("cy", value, "bo", tick=ASKED, proposition="storm")}
        return conflicts_kept(
            {**e, "probes": frame("probes", [{**row, "answer_modality": modality}])}
        )

    assert kept("no", "likely") == kept("yes", "rumor") == 1.0
    assert kept("yes", "certain") == 0.0  # resolved by fiat


def test_the_true_side_of_a_contest_is_no_knowledge_and_an_echo_is_no_claim() -> None:
    """Heard both ways with nothing to settle it, answering the side that happens to be true
    is a guess (reach does not pay it: an agent that always says "true" would harvest the
    truths' lean); telling an informant back what it said passes nothing on."""
    from scorecards.metrics.reach import reach

    truth = fact("storm", "yes", "ana", ["ana", "cy"], private=False, modality="likely")
    both = [told("cy", "bo", 10, "likely"), told("cy", "di", 12, "likely", value="no")]
    census = {**answer("cy", "yes", "bo", tick=ASKED, proposition="storm")}
    contested = {
        "truth": frame("truth", [truth]),
        "exposures": frame("exposures", both),
        "probes": frame("probes", [{**census, "answer_modality": "likely"}]),
    }
    assert reach(contested) == 0.0
    assert uncertainty_preservation(contested) == 1.0  # held open: either side, hedged
    echoed = {
        "speaker": "cy",
        "listener": "bo",  # who told cy
        "proposition": "storm",
        "value": "yes",
        "modality": "certain",  # hardened, but said back to bo: no claim
        "scripted": False,
        "tick": ASKED,
    }
    hedged = {**echoed, "proposition": "calm", "listener": "ed", "modality": "likely"}
    both_told = frame(
        "exposures", [*both, told("cy", "bo", 10, "likely") | {"proposition": "calm"}]
    )
    calm = fact("calm", "yes", "ana", ["ana", "cy"], private=False)
    with_calm = {**contested, "truth": frame("truth", [truth, calm]), "exposures": both_told}
    told_back = {**with_calm, "utterances": frame("utterances", [echoed, hedged])}
    # the echo is no claim: what is left, the calm claim and cy's census answer, is faithful
    assert false_certainty_rate(told_back) == 0.0
    to_ed = {**with_calm, "utterances": frame("utterances", [{**echoed, "listener": "ed"}, hedged])}
    assert false_certainty_rate(to_ed) == pytest.approx(1 / 2)  # the storm claim hardened


def test_a_statement_rests_on_what_reached_it_before_not_on_the_reply_it_provoked() -> None:
    """Fay, told "likely", says "certain" to Dara, who says it back the same tick: Dara's
    echo reached Fay after Fay spoke (a later event), so it cannot make her certain then."""
    truth = fact("storm", "yes", "ana", AUDIENCE, private=False, modality="likely")
    e = {
        "truth": frame("truth", [truth]),
        "exposures": frame(
            "exposures",
            [
                {**told("fay", "ana", 10, "likely"), "event_id": 1},
                {**told("dara", "fay", 20, "certain"), "event_id": 5},  # what fay said
                {**told("fay", "dara", 20, "certain"), "event_id": 7},  # dara saying it back
            ],
        ),
    }
    assert justified(e, "fay", "storm", 20, 5).band("yes") == Band(R, L)  # as fay spoke
    assert justified(e, "fay", "storm", 20).band("yes") == Band(L, C)  # by the tick's end


def test_an_origin_never_shown_its_own_matter_holds_it_from_the_start() -> None:
    """Whether Cass brings cider is her own decision (a request's `about`): nothing in the
    scenario shows it to her, and what others tell her of it later changes nothing."""
    truth = fact("cass_brings", "false", "cass", ["cass"], private=False)
    told_later = {
        **exposure("cass", "told", "bea", tick=50, proposition="cass_brings", value="false"),
        "modality": "likely",
    }
    e = {"truth": frame("truth", [truth]), "exposures": frame("exposures", [told_later])}
    assert justified(e, "cass", "cass_brings", 10) == Justified((("false", Band(C, C)),))
    assert justified(e, "cass", "cass_brings", 60).band("false") == Band(C, C)
    assert justified(e, "bea", "cass_brings", 60) == NOTHING  # only its origin holds it so
