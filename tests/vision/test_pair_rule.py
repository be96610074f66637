"""The pair rule "either" (`vision.profile.PairRule`): both opinions name the card, one is sure.

A profile reading each glyph with two opinions (`vision.classify.TwoOpinions`) answers a card
under "either" when both classifiers name the same card on every corner and at least one of
them, read alone through the checks (corners agree, colour, confidence at its own threshold),
answers it; novelty is either one's. Under "mean" (the default, and every file without a
rule) the card is read from the pair's mean as before.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision import Recognizer, load_generic_profile
from vision.build.learned import DEFAULT_OUT
from vision.build.learned_combined import combined_profile, perceptron_half
from vision.build.learned_data import synthetic_glyphs
from vision.build.synth import CardStyle, Placement, compose, random_effects
from vision.classify import TwoOpinions
from vision.errors import ProfileError
from vision.index import read_corners
from vision.learned import load_learned
from vision.profile import DeckProfile, PairRule, load_profile, save_profile
from vision.recognize import (
    DISSENT,
    LOW_CONFIDENCE,
    NOVEL,
    CornerEvidence,
    assess_corners,
    describe_corners,
    verdict_of,
)

EITHER = PairRule("either", (0.95, 0.90))
"""The first classifier answers alone at 0.95, the second at 0.90."""
EITHER_CARD = PairRule("either-card", (0.95, 0.90))


def generic_perceptrons() -> DeckProfile:
    """The shipped generic profile's perceptrons alone, as their build wrote them."""
    return perceptron_half(load_generic_profile())


def _one(rank: int = 0, rank_p: float = 0.99, suit: int = 0, suit_p: float = 0.99,
         novelty: float = 0.1, corners: int = 2) -> CornerEvidence:
    """One classifier's evidence: every corner naming rank `rank` and suit `suit`."""
    ranks = np.full((corners, 13), np.log((1 - rank_p) / 12), np.float32)
    ranks[:, rank] = np.log(rank_p)
    suits = np.full((corners, 4), np.log((1 - suit_p) / 3), np.float32)
    suits[:, suit] = np.log(suit_p)
    quiet = np.full(corners, novelty, np.float32)
    return CornerEvidence(ranks, quiet, suits, quiet, np.zeros((corners, 4), np.float32))


def _pair(first: CornerEvidence, second: CornerEvidence) -> CornerEvidence:
    """The pair's evidence from each one's, as `assess_corners` combines them."""
    mean = [(a + b) / 2 for a, b in ((first.rank, second.rank), (first.suit, second.suit))]
    rank, suit = (m - np.logaddexp.reduce(m, axis=1, keepdims=True) for m in mean)
    dissent = ((first.rank.argmax(axis=1) != second.rank.argmax(axis=1))
               | (first.suit.argmax(axis=1) != second.suit.argmax(axis=1)))
    return CornerEvidence(rank.astype(np.float32),
                          np.maximum(first.rank_novelty, second.rank_novelty), suit,
                          np.maximum(first.suit_novelty, second.suit_novelty), first.colour,
                          dissent, (first, second))


@pytest.fixture(scope="module")
def either() -> DeckProfile:
    return replace(generic_perceptrons(), pair=EITHER)


def test_neither_sure_alone_stays_unsure(either: DeckProfile) -> None:
    doubtful = _one(rank_p=0.96, suit_p=0.96)  # 0.92 each: above the second's 0.90 only
    verdict = verdict_of(either, _pair(doubtful, _one(rank_p=0.94, suit_p=0.94)), 0.0)
    assert (verdict.guess, verdict.reason) == ("AS", LOW_CONFIDENCE)
    assert verdict.confidence == pytest.approx(0.96 * 0.96, abs=1e-3)


def test_one_sure_and_the_other_agreeing_answers_whichever_is_sure(either: DeckProfile) -> None:
    sure, doubtful = _one(rank_p=0.99, suit_p=0.99), _one(rank_p=0.7, suit_p=0.9)
    for first, second in ((sure, doubtful), (doubtful, sure)):
        verdict = verdict_of(either, _pair(first, second), 0.0)
        assert (verdict.guess, verdict.reason) == ("AS", "")
        assert verdict.confidence == pytest.approx(0.99 * 0.99, abs=1e-3)


def test_each_answers_at_its_own_threshold(either: DeckProfile) -> None:
    middling, doubtful = _one(rank_p=0.96, suit_p=0.96), _one(rank_p=0.7, suit_p=0.9)
    # 0.92: the second's threshold (0.90) passes it, the first's (0.95) does not
    assert verdict_of(either, _pair(doubtful, middling), 0.0).reason == ""
    assert verdict_of(either, _pair(middling, doubtful), 0.0).reason == LOW_CONFIDENCE
    # the first more confident (0.94) but short of its 0.95; the second (0.92) answers
    nearly = _one(rank_p=0.97, suit_p=0.97)
    verdict = verdict_of(either, _pair(nearly, middling), 0.0)
    assert (verdict.reason, verdict.confidence) == ("", pytest.approx(0.96 * 0.96, abs=1e-3))


def test_a_stricter_caller_s_threshold_holds_for_both(either: DeckProfile) -> None:
    evidence = _pair(_one(rank_p=0.99, suit_p=0.99), _one(rank_p=0.99, suit_p=0.99))
    assert verdict_of(either, evidence, 0.95).reason == ""
    assert verdict_of(either, evidence, 0.99).reason == LOW_CONFIDENCE


def test_opinions_naming_different_cards_are_unsure(either: DeckProfile) -> None:
    sure = _one(rank_p=0.999, suit_p=0.999)
    for other in (_one(rank=1, rank_p=0.999, suit_p=0.999),   # another rank
                  _one(suit=2, rank_p=0.999, suit_p=0.999)):  # another suit
        assert verdict_of(either, _pair(sure, other), 0.0).reason == DISSENT
    one_corner = _one(rank_p=0.999, suit_p=0.999)
    one_corner.rank[1] = np.roll(one_corner.rank[1], 1)  # its second corner names a 2
    assert verdict_of(either, _pair(sure, one_corner), 0.0).reason == DISSENT


def test_the_same_glyphs_but_another_card_once_the_ink_s_colour_counts_is_dissent(
        either: DeckProfile) -> None:
    # both name spades from the glyph; reddish ink turns the doubtful one's card to hearts
    reddish = np.tile(np.log(np.array([0.3, 1.0, 1.0, 0.3], np.float32)), (2, 1))
    sure = replace(_one(suit_p=0.99), colour=reddish)
    doubtful = replace(_one(suit_p=0.6), colour=reddish)
    doubtful.suit[:, 1] = np.log(0.38)
    evidence = _pair(sure, doubtful)
    assert evidence.dissent is not None
    assert not evidence.dissent.any()
    assert verdict_of(either, evidence, 0.0).reason == DISSENT
    assert verdict_of(either, _pair(sure, replace(_one(suit_p=0.6), colour=reddish)),
                      0.0).reason == ""
    # the glyphs name spades and clubs; red ink would make hearts of both: still dissent
    red = np.tile(np.log(np.array([0.01, 1.0, 1.0, 0.01], np.float32)), (2, 1))
    spades, clubs = _one(suit_p=0.55), _one(suit=3, suit_p=0.55)
    spades.suit[:, 1] = clubs.suit[:, 1] = np.log(0.4)
    assert verdict_of(either, _pair(replace(spades, colour=red), replace(clubs, colour=red)),
                      0.0).reason == DISSENT


def test_a_glyph_novel_to_either_opinion_is_novel(either: DeckProfile) -> None:
    sure = _one(rank_p=0.999, suit_p=0.999)
    novel = _one(rank_p=0.999, suit_p=0.999, novelty=1.2)
    for profile in (either, replace(either, pair=EITHER_CARD)):
        for first, second in ((sure, novel), (novel, sure)):
            assert verdict_of(profile, _pair(first, second), 0.0).reason == NOVEL


def test_either_card_asks_the_same_card_of_each_not_of_each_corner(either: DeckProfile) -> None:
    by_card = replace(either, pair=EITHER_CARD)
    sure = _one(rank_p=0.99, suit_p=0.99)
    split = _one(rank_p=0.99, suit_p=0.99)  # one corner an ace, the other a 2 at 0.6
    split.rank[1] = np.log(np.r_[0.3, 0.6, np.full(11, 0.1 / 11)]).astype(np.float32)
    evidence = _pair(split, sure)
    assert verdict_of(either, evidence, 0.0).reason == DISSENT
    verdict = verdict_of(by_card, evidence, 0.0)
    assert (verdict.guess, verdict.reason) == ("AS", "")
    assert verdict.confidence == pytest.approx(0.99 * 0.99, abs=1e-3)
    other = _one(rank=1, rank_p=0.999, suit_p=0.999)  # sure of a 2: another card
    assert verdict_of(by_card, _pair(sure, other), 0.0).reason == DISSENT
    doubtful = _one(rank_p=0.94, suit_p=0.94)  # 0.88: short of both thresholds
    assert verdict_of(by_card, _pair(doubtful, doubtful), 0.0).reason == LOW_CONFIDENCE


def test_the_mean_rule_reads_the_pair_s_mean(either: DeckProfile) -> None:
    first, second = _one(rank_p=0.99, suit_p=0.99), _one(rank_p=0.8, suit_p=0.8)
    evidence = _pair(first, second)
    mean = replace(either, pair=PairRule())
    verdict = verdict_of(mean, replace(evidence, alone=None), 0.0)
    expected = float(np.exp(evidence.rank[0, 0] + evidence.suit[0, 0]))
    assert verdict.confidence == pytest.approx(expected, abs=1e-5)
    assert verdict_of(mean, replace(evidence, alone=None), 0.95).reason == LOW_CONFIDENCE
    assert verdict_of(either, evidence, 0.95).reason == ""


def test_a_rule_needs_its_thresholds_and_a_known_name() -> None:
    with pytest.raises(ValueError, match=r"either.*2 thresholds"):
        PairRule("either")
    with pytest.raises(ValueError, match="'product' is not one of"):
        PairRule("product")
    with pytest.raises(ValueError, match="above 0"):
        PairRule("either", (0.95, 0.0))


@pytest.fixture(scope="module")
def paired() -> DeckProfile:
    return combined_profile(generic_perceptrons(), load_learned(DEFAULT_OUT),
                            synthetic_glyphs(30, 4444), rule="either")


@pytest.mark.usefixtures("typefaces")
def test_the_evidence_alone_is_each_classifier_s_own(paired: DeckProfile) -> None:
    style = CardStyle(rank_height=0.12, index_x=0.1)
    scene = compose([Placement("7S", (160, 200), 180, 10, 0.0, 1)], (320, 400), style,
                    "felt-green", random_effects(np.random.default_rng(2), 0.2), 2)
    found = [c for c in read_corners(scene.frame, scene.quads[0], paired.layout) if c]
    described = describe_corners(paired, found)
    evidence = assess_corners(paired, described)
    assert evidence.alone is not None
    rank, suit = paired.rank, paired.suit
    assert isinstance(rank, TwoOpinions)
    assert isinstance(suit, TwoOpinions)
    ranks = np.stack([c.rank for c in described])
    first, second = evidence.alone
    assert np.array_equal(first.rank, rank.first.log_probabilities(ranks[:, :rank.split]))
    assert np.array_equal(second.rank, rank.second.log_probabilities(ranks[:, rank.split:]))
    mean = assess_corners(replace(paired, pair=PairRule()), described)
    assert mean.alone is None
    assert np.array_equal(mean.rank, evidence.rank)
    assert [r.card for r in Recognizer(paired).recognize(scene.frame)] == ["7S"]


@pytest.mark.usefixtures("typefaces")
def test_the_rule_is_saved_with_the_profile(paired: DeckProfile, tmp_path: Path) -> None:
    assert paired.pair == PairRule("either", (paired.info["perceptrons"]["unsure_below"],
                                              paired.info["nets"]["unsure_below"]))
    save_profile(paired, tmp_path / "pair.npz")
    assert load_profile(tmp_path / "pair.npz").pair == paired.pair
    save_profile(replace(paired, pair=PairRule()), tmp_path / "mean.npz")
    with np.load(tmp_path / "mean.npz") as arrays:
        assert "pair" not in json.loads(arrays["meta"].tobytes().decode())
    assert load_profile(tmp_path / "mean.npz").pair == PairRule()
    with pytest.raises(ProfileError, match="needs two opinions"):
        save_profile(replace(generic_perceptrons(), pair=EITHER), tmp_path / "one.npz")


@pytest.mark.usefixtures("typefaces")
def test_a_damaged_rule_is_refused_naming_the_file(paired: DeckProfile, tmp_path: Path) -> None:
    path = tmp_path / "pair.npz"
    save_profile(paired, path)
    with np.load(path) as arrays:
        content = {name: arrays[name] for name in arrays.files}
    meta = json.loads(content["meta"].tobytes().decode())
    meta["pair"] = {"rule": "product", "unsure_below": []}
    content["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(path, **content)
    with pytest.raises(ProfileError, match=r"pair\.npz.*'product' is not one of"):
        load_profile(path)
