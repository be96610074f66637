"""Answering a whole card by one corner: only when the other corner's glyphs are merely
unlike the profile's (naming the same card), at the threshold enrolment found safe."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.cards import RANKS, SUITS, all_codes
from vision.classify import NearestNeighbours
from vision.enroll import ONE_CORNER_CEILING, EnrolOptions, Sample, one_corner_threshold
from vision.enroll.tuning import _choose_threshold, _Tuning
from vision.errors import ProfileError
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.index import IndexLayout
from vision.profile import ColourModel, DeckProfile, load_profile, save_profile
from vision.recognize import (
    DISAGREE,
    NOVEL,
    CornerEvidence,
    CornerFeatures,
    lone_corner,
    verdict_of,
)

from .test_profile import rewrite


def _profile(one_corner_below: float | None) -> DeckProfile:
    rank = NearestNeighbours(RANKS, np.zeros((13, feature_length(RANK_BOX))), np.arange(13),
                             1.0, 1.0)
    suit = NearestNeighbours(SUITS, np.zeros((4, feature_length(SUIT_BOX))), np.arange(4),
                             1.0, 1.0)
    return DeckProfile("deck", "enrolled", IndexLayout(), rank, suit, unsure_below=0.9,
                       one_corner_below=one_corner_below)


def _row(card: str, certainty: float, novelty: float) -> tuple[np.ndarray, np.ndarray, float]:
    """One corner's log-probabilities of rank and suit, naming `card` with `certainty`."""
    def spread(classes: str, letter: str) -> np.ndarray:
        rest = (1.0 - certainty) / (len(classes) - 1)
        return np.log([certainty if c == letter else rest for c in classes]).astype(np.float32)
    return spread(RANKS, card[0]), spread(SUITS, card[1]), novelty


def _evidence(*corners: tuple[str, float, float]) -> CornerEvidence:
    rows = [_row(*corner) for corner in corners]
    neutral = np.full((len(rows), 4), np.log(0.5), np.float32)  # ink says nothing
    return CornerEvidence(np.stack([r[0] for r in rows]),
                          np.array([r[2] for r in rows], np.float32),
                          np.stack([r[1] for r in rows]),
                          np.array([r[2] for r in rows], np.float32), neutral)


def test_a_novel_corner_naming_the_same_card_lets_the_other_answer() -> None:
    evidence = _evidence(("JS", 0.999, 0.3), ("JS", 0.6, 1.3))
    verdict = verdict_of(_profile(0.95), evidence, 0.9)
    assert (verdict.guess, verdict.reason) == ("JS", "")
    assert verdict.confidence > 0.99  # the answering corner's own confidence
    # either corner may be the novel one
    turned = _evidence(("JS", 0.6, 1.3), ("JS", 0.999, 0.3))
    assert verdict_of(_profile(0.95), turned, 0.9).reason == ""


def test_a_novel_corner_naming_another_card_keeps_the_card_unsure() -> None:
    for other in ("4S", "JC", "QS"):  # another card, another suit, another rank
        evidence = _evidence(("JS", 0.999, 0.3), (other, 0.6, 1.3))
        assert lone_corner(_profile(0.95), evidence) is None
        assert verdict_of(_profile(0.95), evidence, 0.9).reason == NOVEL


def test_one_corner_answers_only_at_the_profile_s_threshold() -> None:
    evidence = _evidence(("JS", 0.985, 0.3), ("JS", 0.6, 1.3))  # confidence 0.970
    assert verdict_of(_profile(0.95), evidence, 0.9).reason == ""
    assert verdict_of(_profile(0.98), evidence, 0.9).reason == NOVEL
    assert verdict_of(_profile(0.95), evidence, 0.99).reason == NOVEL  # a stricter caller
    assert verdict_of(_profile(None), evidence, 0.9).reason == NOVEL  # the rule is off


def test_only_a_novel_corner_beside_a_clear_one_is_passed_over() -> None:
    profile = _profile(0.9)
    both_novel = _evidence(("JS", 0.999, 1.2), ("JS", 0.999, 1.3))
    assert verdict_of(profile, both_novel, 0.9).reason == NOVEL
    disagreeing = _evidence(("JS", 0.999, 0.3), ("4S", 0.999, 0.3))
    assert verdict_of(profile, disagreeing, 0.9).reason == DISAGREE
    alone = _evidence(("JS", 0.999, 1.3))
    assert verdict_of(profile, alone, 0.9).reason == NOVEL


def test_the_threshold_lies_above_every_wrong_held_out_answer_by_one_corner() -> None:
    assert one_corner_threshold([], 0.9) == 0.9
    assert one_corner_threshold([(0.99, True), (0.93, True)], 0.9) == 0.9
    assert one_corner_threshold([(0.97, False), (0.95, False), (0.99, True)],
                                0.9) == pytest.approx(0.975)
    assert one_corner_threshold([(0.95, False)], 0.97) == 0.97
    assert one_corner_threshold([(ONE_CORNER_CEILING, False), (0.999, True)], 0.9) is None


def test_the_one_corner_threshold_is_kept_in_the_profile_file(tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save_profile(_profile(0.935), path)
    assert load_profile(path).one_corner_below == 0.935
    save_profile(_profile(None), path)
    assert load_profile(path).one_corner_below is None  # written without the key
    save_profile(_profile(0.935), path)
    rewrite(path, lambda meta: meta.pop("one_corner_below"))
    assert load_profile(path).one_corner_below is None  # a profile from before the key


@pytest.mark.parametrize("threshold", [float("nan"), 0, 1.5, "0.9", True])
def test_a_one_corner_threshold_that_is_no_probability_is_refused(tmp_path: Path,
                                                                  threshold: object) -> None:
    path = tmp_path / "deck.npz"
    save_profile(_profile(0.95), path)
    rewrite(path, lambda meta: meta.update(one_corner_below=threshold))
    with pytest.raises(ProfileError, match=r"deck.npz: incomplete.*one_corner_below"):
        load_profile(path)


def _corner(rank: str, suit: str, stretch: float = 1.0) -> CornerFeatures:
    """Features of one corner: a class's own direction (`stretch` far along it: novel)."""
    ranks = np.zeros(feature_length(RANK_BOX), np.float32)
    ranks[RANKS.index(rank)] = 10.0 * stretch
    suits = np.zeros(feature_length(SUIT_BOX), np.float32)
    suits[SUITS.index(suit)] = 10.0
    return CornerFeatures(ranks, suits, 0.0 if suit in "SC" else 1.0)


def _deck_samples(misread: bool) -> list[Sample]:
    """Two photos of every card (folds 0 and 1), both corners read as printed; with `misread`
    the 2 of spades' second photo shows a 3 of spades in one corner and a novel 3 in the
    other (as a card under the wrong label, or a corner misread, would)."""
    samples = []
    for number, code in enumerate(all_codes()):
        for fold in (0, 1):
            corners = [_corner(*code), _corner(*code)]
            if misread and code == "2S" and fold == 1:
                corners = [_corner("3", "S"), _corner("3", "S", stretch=1.5)]
            samples += [Sample(code, 2 * number + fold, fold, features, True, corner)
                        for corner, features in enumerate(corners)]
    return samples


def test_a_wrong_held_out_answer_by_one_corner_turns_the_rule_off() -> None:
    tuning = _Tuning(1.0, 1.0, 1.0, 1.0, ColourModel())
    options = EnrolOptions()
    thresholds, _ = _choose_threshold(_deck_samples(False), 2, tuning, IndexLayout(), options)
    assert thresholds.one_corner_below == thresholds.unsure_below == 0.9
    thresholds, (photos, _, _) = _choose_threshold(_deck_samples(True), 2, tuning,
                                                   IndexLayout(), options)
    assert thresholds.one_corner_below is None  # 3S answered by one corner for the 2S
    assert photos.wrong == 0  # the rule off, the 2S stays unsure
    assert photos.lone_wrong == 0
