"""The learned glyph nets run through OpenCV's DNN module (no PyTorch needed to read).

The committed model (`vision/build/learned_glyphs.npz`, built by `vision.build.learned`) is
read back, run on synthetic corners and on real dev photos, and its file format's refusals
are checked. Then the two opinions of every glyph, the generic perceptrons and the nets read
together (`vision.classify.TwoOpinions`, `vision.build.learned_combined`): a glyph novel to
either opinion is novel; opinions naming different classes leave the card unsure
("classifiers disagree"); a profile with one classifier per glyph (an enrolled deck's) reads
as before.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision import Recognizer, load_generic_profile
from vision.build.generic import GENERIC_LAYOUT, fit_scaled_temperature
from vision.build.learned import DEFAULT_OUT
from vision.build.learned_combined import (
    combined_profile,
    combined_samples,
    one_opinion,
    perceptron_half,
)
from vision.build.learned_data import GlyphSet, synthetic_glyphs
from vision.build.learned_reader import LearnedRecognizer, learned_profile
from vision.build.synth import CardStyle, Placement, Scene, compose, random_effects
from vision.cards import RANKS, SUITS
from vision.classify import NearestNeighbours, Perceptron, TwoOpinions, log_softmax
from vision.dataset import read_image, read_labels
from vision.errors import ProfileError
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.index import read_corners
from vision.learned import (
    RANK_MAP,
    SUIT_MAP,
    ConvGlyphClassifier,
    LearnedGlyphs,
    glyph_maps,
    load_learned,
    save_learned,
)
from vision.profile import DeckProfile
from vision.recognize import (
    DISSENT,
    NOVEL,
    CornerEvidence,
    CornerFeatures,
    assess_corners,
    describe_corners,
    map_features,
    verdict_of,
)


def generic_perceptrons() -> DeckProfile:
    """The shipped generic profile's perceptrons alone, as their build wrote them."""
    return perceptron_half(load_generic_profile())


@pytest.fixture(scope="module")
def learned() -> LearnedGlyphs:
    return load_learned(DEFAULT_OUT)


@pytest.fixture(scope="module")
def corners() -> GlyphSet:
    """Corners of fresh synthetic cards in the trained typefaces (seed of no build)."""
    return synthetic_glyphs(60, 4242)


@pytest.mark.usefixtures("typefaces")
def test_the_nets_read_fresh_synthetic_corners(learned: LearnedGlyphs, corners: GlyphSet) -> None:
    ranks = learned.rank.log_probabilities(corners.ranks.reshape(len(corners), -1))
    suits = learned.suit.log_probabilities(corners.suits.reshape(len(corners), -1))
    assert np.mean(ranks.argmax(axis=1) == corners.labels("rank")) >= 0.95
    assert np.mean(suits.argmax(axis=1) == corners.labels("suit")) >= 0.95
    assert np.allclose(np.exp(ranks).sum(axis=1), 1.0, atol=1e-4)


@pytest.mark.usefixtures("typefaces")
def test_a_batch_reads_as_its_corners_one_by_one(learned: LearnedGlyphs,
                                                 corners: GlyphSet) -> None:
    maps = corners.ranks[:7].reshape(7, -1)
    together, novelty = learned.rank.assess(maps)
    for row in range(7):
        alone, alone_novelty = learned.rank.assess(maps[row:row + 1])
        assert alone[0] == pytest.approx(together[row], abs=1e-4)
        assert alone_novelty[0] == pytest.approx(novelty[row], abs=1e-4)


@pytest.mark.usefixtures("typefaces")
def test_glyphs_like_the_training_ones_are_familiar(learned: LearnedGlyphs,
                                                    corners: GlyphSet) -> None:
    for net, maps in ((learned.rank, corners.ranks), (learned.suit, corners.suits)):
        novelty = net.novelty(maps.reshape(len(corners), -1))
        assert np.quantile(novelty, 0.9) < 0.5
        assert (novelty < 1.0).mean() >= 0.98


@pytest.mark.usefixtures("typefaces")
def test_novelty_is_the_distance_to_the_nearest_reference_over_the_limit(
        learned: LearnedGlyphs, corners: GlyphSet) -> None:
    maps = corners.suits[:5].reshape(5, -1)
    _, embedding = learned.suit.outputs(maps)
    nearest = np.linalg.norm(embedding[:, None, :] - learned.suit.reference[None], axis=2).min(1)
    assert learned.suit.novelty(maps) == pytest.approx(
        nearest / learned.suit.novelty_distance, rel=1e-3, abs=1e-4)


@pytest.mark.usefixtures("typefaces")
def test_probabilities_are_the_softmax_of_the_logits_over_the_temperature(
        learned: LearnedGlyphs, corners: GlyphSet) -> None:
    maps = corners.ranks[:5].reshape(5, -1)
    logits, _ = learned.rank.outputs(maps)
    assert learned.rank.temperature != pytest.approx(1.0)
    assert learned.rank.log_probabilities(maps) == pytest.approx(
        log_softmax(logits / learned.rank.temperature), abs=1e-5)


def test_the_model_file_round_trips(learned: LearnedGlyphs, tmp_path: Path) -> None:
    save_learned(learned, tmp_path / "nets.npz")
    again = load_learned(tmp_path / "nets.npz")
    maps = np.random.default_rng(5).random((4, SUIT_MAP[1] * SUIT_MAP[0]), dtype=np.float32)
    assert again.unsure_below == learned.unsure_below
    assert again.suit.classes == SUITS
    assert again.rank.classes == RANKS
    assert np.allclose(again.suit.log_probabilities(maps), learned.suit.log_probabilities(maps),
                       atol=1e-3)
    assert np.allclose(again.suit.novelty(maps), learned.suit.novelty(maps), rtol=1e-2)


def test_a_file_that_is_no_model_is_refused_naming_it(tmp_path: Path) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a model")
    with pytest.raises(ProfileError, match=r"broken\.npz"):
        load_learned(broken)
    with pytest.raises(ProfileError, match="not a version"):
        load_learned(Path(load_generic_profile.__globals__["generic_profile_path"]()))


def test_a_model_whose_net_is_damaged_is_refused(learned: LearnedGlyphs, tmp_path: Path) -> None:
    path = tmp_path / "nets.npz"
    save_learned(learned, path)
    with np.load(path) as arrays:
        damaged = {name: arrays[name] for name in arrays.files}
    damaged["rank/onnx"] = damaged["rank/onnx"][: len(damaged["rank/onnx"]) // 2]
    np.savez(path, **damaged)
    with pytest.raises(ProfileError, match=r"nets\.npz"):
        load_learned(path)


@pytest.mark.usefixtures("typefaces")
def test_map_features_are_the_stretched_glyph_maps() -> None:
    style = CardStyle(rank_height=0.12, index_x=0.1)
    scene = compose([Placement("QH", (160, 200), 180, 10, 0.0, 1)], (320, 400), style,
                    "felt-green", random_effects(np.random.default_rng(2), 0.2), 2)
    found = [c for c in read_corners(scene.frame, scene.quads[0], GENERIC_LAYOUT) if c]
    ranks, suits = glyph_maps(found)
    described = map_features(found)
    assert ranks.shape == (len(found), RANK_MAP[1], RANK_MAP[0])
    assert suits.shape == (len(found), SUIT_MAP[1], SUIT_MAP[0])
    for feature, rank, suit in zip(described, ranks, suits, strict=True):
        assert np.array_equal(feature.rank, rank.ravel())
        assert np.array_equal(feature.suit, suit.ravel())
    reading = LearnedRecognizer(learned_profile(load_learned(DEFAULT_OUT))).recognize(
        scene.frame)
    assert [r.card for r in reading] == ["QH"]


def test_the_learned_reader_reads_the_dev_photos_at_least_as_the_perceptrons_do(
        dev_photos: Path) -> None:
    items = read_labels(dev_photos)[::4]
    learned = LearnedRecognizer.of(DEFAULT_OUT)
    shipped = Recognizer(generic_perceptrons())
    right = {"learned": 0, "shipped": 0}
    for item in items:
        image = read_image(item.path)
        for name, reader in (("learned", learned), ("shipped", shipped)):
            answers = [r.card for r in reader.recognize(image) if r.card]
            assert answers in ([], [item.code]), f"{name} read {item.path.name} wrong"
            right[name] += answers == [item.code]
    assert right["learned"] >= right["shipped"]


@pytest.fixture(scope="module")
def paired() -> DeckProfile:
    """The shipped perceptrons and the committed nets, the pair tuned on `corners`' like."""
    return combined_profile(generic_perceptrons(), load_learned(DEFAULT_OUT),
                            synthetic_glyphs(30, 4444))


def _features(glyphs: GlyphSet, part: str) -> np.ndarray:
    return np.stack([getattr(s.features, part) for s in combined_samples(glyphs)])


def _with_limit(net: ConvGlyphClassifier, limit: float) -> ConvGlyphClassifier:
    return ConvGlyphClassifier(net.classes, net.onnx, net.size, net.temperature, net.reference,
                               limit)


def _scene() -> Scene:
    style = CardStyle(rank_height=0.12, index_x=0.1)
    return compose([Placement("7S", (160, 200), 180, 10, 0.0, 1)], (320, 400), style,
                   "felt-green", random_effects(np.random.default_rng(2), 0.2), 2)


@pytest.mark.usefixtures("typefaces")
def test_a_glyph_novel_to_either_opinion_is_novel(paired: DeckProfile,
                                                  corners: GlyphSet) -> None:
    pair = paired.rank
    assert isinstance(pair, TwoOpinions)
    features = _features(corners, "rank")
    both = pair.novelty(features)
    first = pair.first.novelty(features[:, :pair.split])
    second = pair.second.novelty(features[:, pair.split:])
    assert np.array_equal(both, np.maximum(first, second))
    assert (both < 1.0).mean() >= 0.95  # familiar glyphs stay familiar
    assert isinstance(pair.second, ConvGlyphClassifier)
    strict_net = TwoOpinions(pair.first, _with_limit(pair.second, 1e-3), pair.split)
    assert (strict_net.novelty(features) >= 1.0).all()
    assert (pair.first.novelty(features[:, :pair.split]) < 1.0).mean() >= 0.95
    scene = _scene()
    strict = Recognizer(replace(paired, rank=strict_net))
    assert [(r.card, r.reason) for r in strict.recognize(scene.frame)] == [(None, NOVEL)]
    assert [r.card for r in Recognizer(paired).recognize(scene.frame)] == ["7S"]


@pytest.mark.usefixtures("typefaces")
def test_the_pair_is_the_geometric_mean_of_the_two_and_dissents_where_they_differ(
        paired: DeckProfile, corners: GlyphSet) -> None:
    pair = paired.suit
    assert isinstance(pair, TwoOpinions)
    features = _features(corners, "suit")
    log_probabilities, _, dissent = pair.opinions(features)
    first = pair.first.log_probabilities(features[:, :pair.split])
    second = pair.second.log_probabilities(features[:, pair.split:])
    mean = (first + second) / 2 / pair.temperature
    expected = mean - np.logaddexp.reduce(mean, axis=1, keepdims=True)
    assert log_probabilities == pytest.approx(expected, abs=1e-5)
    assert np.array_equal(dissent, first.argmax(axis=1) != second.argmax(axis=1))
    swapped = np.concatenate([features[1:], features[:1]])
    crossed = TwoOpinions(pair.first, pair.second, pair.split)
    mixed = np.concatenate([features[:, :pair.split], swapped[:, pair.split:]], axis=1)
    _, _, crossed_dissent = crossed.opinions(mixed)
    labels = corners.labels("suit")
    assert np.array_equal(crossed_dissent[labels != np.roll(labels, -1)][:5], [True] * 5)
    described = [CornerFeatures(sample.features.rank, suit, sample.features.redness)
                 for sample, suit in zip(combined_samples(corners), mixed, strict=True)]
    _, _, rank_dissent = paired.rank.opinions(_features(corners, "rank"))  # type: ignore[attr-defined]
    evidence = assess_corners(paired, described)
    assert evidence.dissent is not None
    assert np.array_equal(evidence.dissent, crossed_dissent | rank_dissent)


def test_opinions_that_name_different_cards_leave_the_card_unsure() -> None:
    sure = np.log(np.array([[0.99, 0.01 / 3, 0.01 / 3, 0.01 / 3]] * 2, np.float32))
    rank = np.full((2, 13), np.log(0.01 / 12), np.float32)
    rank[:, 0] = np.log(0.99)
    quiet = np.zeros(2, np.float32)
    colour = np.zeros((2, 4), np.float32)
    profile = generic_perceptrons()
    agreeing = CornerEvidence(rank, quiet, sure, quiet, colour, np.array([False, False]))
    assert verdict_of(profile, agreeing, 0.95).reason == ""
    for dissent in ([True, False], [False, True], [True, True]):
        evidence = replace(agreeing, dissent=np.array(dissent))
        verdict = verdict_of(profile, evidence, 0.95)
        assert (verdict.guess, verdict.reason) == ("AS", DISSENT)
    lone = replace(agreeing, dissent=np.array([True]), rank=rank[:1], rank_novelty=quiet[:1],
                   suit=sure[:1], suit_novelty=quiet[:1], colour=colour[:1])
    assert verdict_of(profile, lone, 0.95).reason == DISSENT


def _queens_read_as_kings(pair: DeckProfile) -> DeckProfile:
    """`pair` with its perceptrons' rank outputs for Q and K swapped: they misname both."""
    rank = pair.rank
    assert isinstance(rank, TwoOpinions)
    first = rank.first
    assert isinstance(first, Perceptron)
    order = list(range(len(first.classes)))
    queen, king = first.classes.index("Q"), first.classes.index("K")
    order[queen], order[king] = king, queen
    w1, b1, w2, b2 = first.weights
    swapped = Perceptron(first.classes, first.mean, first.scale,
                         (w1, b1, w2[:, :, order], b2[:, order]), first.temperature,
                         first.reference, first.novelty_distance)
    return replace(pair, rank=TwoOpinions(swapped, rank.second, rank.split, rank.temperature))


def test_the_dev_deck_s_queens_named_right_by_one_opinion_only_stay_unsure(
        dev_photos: Path, paired: DeckProfile) -> None:
    queens = [item for item in read_labels(dev_photos) if item.code[0] == "Q"][:4]
    crossed = _queens_read_as_kings(paired)
    nets = LearnedRecognizer(one_opinion(crossed, "nets"))
    perceptrons = Recognizer(one_opinion(crossed, "perceptrons"))
    for item in queens:
        image = read_image(item.path)
        assert Recognizer(paired).recognize(image)[0].card == item.code  # both name it
        assert nets.recognize(image)[0].guess == item.code
        assert perceptrons.recognize(image)[0].guess == "K" + item.code[1]
        reading = Recognizer(crossed).recognize(image)[0]
        assert (reading.card, reading.reason) == (None, DISSENT), item.path.name


@pytest.mark.usefixtures("typefaces")
def test_a_profile_with_one_classifier_a_glyph_reads_as_before(corners: GlyphSet) -> None:
    rank = NearestNeighbours("A23456789TJQK", corners.rank_features, corners.labels("rank"),
                             0.3, 1e6)
    suit = NearestNeighbours("SHDC", corners.suit_features, corners.labels("suit"), 0.2, 1e6)
    enrolled = replace(generic_perceptrons(), kind="enrolled", rank=rank, suit=suit)
    scene = _scene()
    found = [c for c in read_corners(scene.frame, scene.quads[0], enrolled.layout) if c]
    described = describe_corners(enrolled, found)
    plain = CornerFeatures.of_all(found)
    for mine, theirs in zip(described, plain, strict=True):
        assert mine.rank.shape == (feature_length(RANK_BOX),)
        assert mine.suit.shape == (feature_length(SUIT_BOX),)
        assert np.array_equal(mine.rank, theirs.rank)
        assert np.array_equal(mine.suit, theirs.suit)
    evidence = assess_corners(enrolled, described)
    assert evidence.dissent is None
    assert not evidence.dissenting
    assert np.array_equal(evidence.rank, rank.log_probabilities(np.stack([c.rank for c in plain])))


@pytest.mark.usefixtures("typefaces")
def test_the_pair_s_temperature_and_threshold_come_from_the_validation_decks() -> None:
    validation = synthetic_glyphs(30, 4444)
    profile = combined_profile(generic_perceptrons(), load_learned(DEFAULT_OUT), validation)
    pair = profile.rank
    assert isinstance(pair, TwoOpinions)
    untempered = TwoOpinions(pair.first, pair.second, pair.split, 1.0)
    mean = untempered.log_probabilities(_features(validation, "rank"))
    assert pair.temperature == pytest.approx(fit_scaled_temperature(mean,
                                                                    validation.labels("rank")))
    assert profile.unsure_below >= 0.95
    assert profile.info["perceptrons"]["unsure_below"] == generic_perceptrons().unsure_below
    given = combined_profile(generic_perceptrons(), load_learned(DEFAULT_OUT), validation,
                             temperature=0.5)
    assert given.rank.temperature == given.suit.temperature == 0.5  # type: ignore[attr-defined]
