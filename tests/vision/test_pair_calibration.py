"""The generic pair's threshold is set on held-out designs, by a bound on its wrong answers.

`vision.build.learned_combined.calibrated_rule` takes the lowest threshold at which the share
of calibration cards (synthetic decks in typeface families never trained on) answered wrong
stays under the budget with 95% confidence (`wilson_upper`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest

import vision.build.learned_combined as learned_combined
from vision.build.generic import GenericBuildOptions, same_fingerprint
from vision.build.learned_combined import (
    calibrated_rule,
    combined_profile,
    perceptron_half,
    wilson_upper,
)
from vision.build.learned_data import GlyphSet, synthetic_glyphs
from vision.build.typefaces import (
    CALIBRATION_FAMILIES,
    HELD_OUT_FAMILIES,
    ORIGINAL_HELD_OUT,
    TRAINING_FAMILIES,
    UNTUNED_FAMILIES,
    faces_of,
)
from vision.learned import load_learned
from vision.profile import DeckProfile, PairRule, load_generic_profile

GRID = np.linspace(0.5, 0.999, 200)
"""The thresholds `calibrated_rule` tries, from the default floor up."""


def test_the_bound_is_wilson_s_one_sided_95_percent_score_bound() -> None:
    z2 = 1.6449 ** 2
    assert wilson_upper(0, 1000) == pytest.approx(z2 / (1000 + z2))
    assert wilson_upper(19, 5790) == pytest.approx(0.0047711, abs=1e-6)
    assert wilson_upper(0, 0) == 1.0
    assert wilson_upper(5, 100) > 5 / 100
    assert wilson_upper(2, 1000) > wilson_upper(1, 1000) > wilson_upper(0, 1000)
    assert wilson_upper(10, 10000) < wilson_upper(1, 1000)


def _answers_of(confidences: list[float], right: list[bool]):  # type: ignore[no-untyped-def]
    def answers(profile: DeckProfile, samples: object
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        return np.array(confidences, np.float64), np.array(right, np.bool_)
    return answers


@pytest.fixture
def thousand_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """994 cards answered right at 0.99, six wrong at 0.55 to 0.80, one unsure by a check."""
    wrong = [0.55, 0.60, 0.65, 0.70, 0.75, 0.80]
    monkeypatch.setattr(learned_combined, "answers", _answers_of(
        [0.99] * 993 + [-1.0] + wrong, [True] * 994 + [False] * len(wrong)))
    monkeypatch.setattr(learned_combined, "combined_samples", lambda glyphs: [])


def _either_card() -> DeckProfile:
    return replace(load_generic_profile(), pair=PairRule("either-card", (0.95, 0.95)))


@pytest.mark.usefixtures("thousand_cards")
def test_the_threshold_is_the_lowest_keeping_the_bound_under_the_budget() -> None:
    rule, figures = calibrated_rule(_either_card(), _no_glyphs(), GenericBuildOptions())
    threshold = rule.unsure_below[0]
    # one wrong answer of 1000 is bounded by 0.45%, two by 0.60%: only the 0.80 one may stay
    assert wilson_upper(1, 1000) <= 0.005 < wilson_upper(2, 1000)
    assert threshold == min(t for t in GRID if t > 0.75)
    assert rule == PairRule("either-card", (threshold, threshold))
    assert figures["wrong"] == pytest.approx(1 / 1000)
    assert figures["right"] == pytest.approx(993 / 1000)
    assert figures["answered"] == pytest.approx(994 / 1000)
    assert figures["wrong_upper_95"] == pytest.approx(wilson_upper(1, 1000))
    assert figures["read"] == 1000
    assert figures["families"] == list(CALIBRATION_FAMILIES)


@pytest.mark.usefixtures("thousand_cards")
def test_the_floor_and_the_budget_bound_the_threshold() -> None:
    loose = replace(GenericBuildOptions(), max_unseen_wrong=0.5, min_pair_unsure_below=0.6)
    rule, _ = calibrated_rule(_either_card(), _no_glyphs(), loose)
    assert rule.unsure_below == (0.6, 0.6)
    never = replace(GenericBuildOptions(), max_unseen_wrong=0.0)
    rule, figures = calibrated_rule(_either_card(), _no_glyphs(), never)
    assert rule.unsure_below == (0.999, 0.999)
    assert figures["wrong"] == 0.0


def _no_glyphs() -> GlyphSet:
    empty = np.zeros((0,), np.float32)
    return GlyphSet(np.zeros((0,), "<U2"), np.zeros((0,), np.int64), empty, empty, empty,
                    empty, empty)


@pytest.mark.usefixtures("typefaces")
def test_a_calibrated_pair_answers_at_its_calibrated_threshold_and_records_it() -> None:
    perceptrons = perceptron_half(load_generic_profile())
    options = replace(GenericBuildOptions(), calibration_cards=40, max_unseen_wrong=0.2)
    calibration = synthetic_glyphs(40, 4445, CALIBRATION_FAMILIES)
    pair = combined_profile(perceptrons, load_learned(learned_combined.NETS),
                            synthetic_glyphs(30, 4444), options, rule="either-card",
                            calibration=calibration)
    recorded = pair.info["calibration"]
    threshold = recorded["threshold"]
    assert pair.pair == PairRule("either-card", (threshold, threshold))
    assert pair.unsure_below >= threshold
    assert recorded["cards"] == 40
    assert 30 <= recorded["read"] <= 40  # a card none of whose corners is read is left out
    assert recorded["wrong_upper_95"] <= 0.2
    assert "calibration" not in perceptron_half(pair).info
    again, _ = calibrated_rule(pair, calibration, options)
    assert again.unsure_below == (threshold, threshold)


def test_the_calibration_families_are_held_out_free_to_build_with_and_not_the_first_four(
        ) -> None:
    assert set(CALIBRATION_FAMILIES) < set(HELD_OUT_FAMILIES)
    assert not set(CALIBRATION_FAMILIES) & set(TRAINING_FAMILIES)
    assert set(UNTUNED_FAMILIES) == set(HELD_OUT_FAMILIES) - set(CALIBRATION_FAMILIES)
    assert set(ORIGINAL_HELD_OUT) <= set(UNTUNED_FAMILIES)
    faces = faces_of(CALIBRATION_FAMILIES)
    assert faces
    assert not [face.name for face in faces if face.name.startswith(("urw-", "open-sans"))]


def test_fingerprints_match_within_another_machine_s_rounding() -> None:
    recorded = [["QH", 3, 52.084, 7.1234, 20.5, 3.25, 0.4321]]
    assert same_fingerprint(recorded, [["QH", 3, 52.082, 7.1235, 20.5, 3.25, 0.4321]])
    assert not same_fingerprint(recorded, [["QH", 3, 52.2, 7.1234, 20.5, 3.25, 0.4321]])
    assert not same_fingerprint(recorded, [["QS", 3, 52.084, 7.1234, 20.5, 3.25, 0.4321]])
    assert not same_fingerprint(recorded, [["QH", 4, 52.084, 7.1234, 20.5, 3.25, 0.4321]])
    assert not same_fingerprint(recorded, recorded * 2)
    assert not same_fingerprint(None, recorded)
