"""The learned glyph nets run through OpenCV's DNN module (no PyTorch needed to read).

The committed model (`vision/build/learned_glyphs.npz`, built by `vision.build.learned`) is
read back, run on synthetic corners and on real dev photos, and its file format's refusals
are checked.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import Recognizer, load_generic_profile
from vision.build.generic import GENERIC_LAYOUT
from vision.build.learned import DEFAULT_OUT
from vision.build.learned_data import GlyphSet, synthetic_glyphs
from vision.build.learned_reader import LearnedRecognizer, learned_profile
from vision.build.synth import CardStyle, Placement, compose, random_effects
from vision.cards import RANKS, SUITS
from vision.classify import log_softmax
from vision.dataset import read_image, read_labels
from vision.errors import ProfileError
from vision.index import read_corners
from vision.learned import (
    RANK_MAP,
    SUIT_MAP,
    LearnedGlyphs,
    glyph_maps,
    load_learned,
    map_features,
    save_learned,
)


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
    shipped = Recognizer(load_generic_profile())
    right = {"learned": 0, "shipped": 0}
    for item in items:
        image = read_image(item.path)
        for name, reader in (("learned", learned), ("shipped", shipped)):
            answers = [r.card for r in reader.recognize(image) if r.card]
            assert answers in ([], [item.code]), f"{name} read {item.path.name} wrong"
            right[name] += answers == [item.code]
    assert right["learned"] >= right["shipped"]
