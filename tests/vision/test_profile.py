"""Deck profile files: round trip, and clear errors for files that are not profiles."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.build.learned import DEFAULT_OUT
from vision.build.learned_combined import perceptron_half
from vision.classify import NearestNeighbours, TwoOpinions
from vision.errors import ProfileError
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.index import IndexLayout
from vision.learned import RANK_MAP, SUIT_MAP, load_learned
from vision.profile import (
    ColourModel,
    DeckProfile,
    load_generic_profile,
    load_profile,
    save_profile,
)


def tiny_profile() -> DeckProfile:
    rng = np.random.default_rng(0)
    rank = NearestNeighbours("A23456789TJQK", rng.random((26, feature_length(RANK_BOX))),
                             np.repeat(np.arange(13), 2), 0.3, 2.0)
    suit = NearestNeighbours("SHDC", rng.random((8, feature_length(SUIT_BOX))),
                             np.repeat(np.arange(4), 2), 0.2, 1.5)
    return DeckProfile("table 4 deck", "enrolled", IndexLayout(1.42, 0.3, 0.45, True), rank, suit,
                       ColourModel(0.09, 0.02), 0.93, {"photos": 104})


def test_a_saved_profile_loads_back_the_same(tmp_path: Path) -> None:
    profile = tiny_profile()
    save_profile(profile, tmp_path / "deck.npz")
    loaded = load_profile(tmp_path / "deck.npz")
    assert (loaded.name, loaded.kind, loaded.layout, loaded.colour, loaded.unsure_below) == (
        profile.name, profile.kind, profile.layout, profile.colour, profile.unsure_below)
    assert loaded.info == {"photos": 104}
    features = np.random.default_rng(1).random((3, feature_length(RANK_BOX))).astype(np.float32)
    assert np.allclose(loaded.rank.log_probabilities(features),
                       profile.rank.log_probabilities(features), atol=1e-2)


def test_a_profile_saved_before_faint_first_reads_otsu_s_level_first(tmp_path: Path) -> None:
    save_profile(tiny_profile(), tmp_path / "deck.npz")
    with np.load(tmp_path / "deck.npz") as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(arrays["meta"].tobytes().decode())
    del meta["layout"]["faint_first"]
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(tmp_path / "older.npz", **arrays)
    assert load_profile(tmp_path / "older.npz").layout == IndexLayout(1.42, 0.3, 0.45, False)


def test_the_generic_profile_ships_with_the_package() -> None:
    generic = load_generic_profile()
    assert generic.kind == "generic"
    assert not generic.layout.faint_first  # read as it was built
    assert 0.5 <= generic.unsure_below < 1.0
    assert generic.rank.classes == "A23456789TJQK"
    assert generic.suit.classes == "SHDC"


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"absent.npz: no such profile file"):
        load_profile(tmp_path / "absent.npz")


def test_a_file_that_is_not_a_profile_is_named(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("hello")
    with pytest.raises(ProfileError, match=r"notes.npz: not a deck profile"):
        load_profile(text)
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    with pytest.raises(ProfileError, match=r"other.npz: not a deck profile \(no 'meta'"):
        load_profile(other)


def rewrite(path: Path, change_meta: object = None, drop: str = "") -> None:
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files if name != drop}
    meta = json.loads(arrays["meta"].tobytes())
    if callable(change_meta):
        change_meta(meta)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(path, **arrays)


def refused(path: Path, profile: DeckProfile, match: str, change_meta: object = None,
            drop: str = "") -> None:
    """Save `profile` at `path`, damage it by `rewrite`, and check loading it is refused."""
    save_profile(profile, path)
    rewrite(path, change_meta, drop)
    with pytest.raises(ProfileError, match=match):
        load_profile(path)


def test_a_newer_version_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save_profile(tiny_profile(), path)
    rewrite(path, lambda meta: meta.update(version=99))
    with pytest.raises(ProfileError, match=r"version 99 is not supported.*enrol the deck again"):
        load_profile(path)


def test_missing_or_inconsistent_parts_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    refused(path, tiny_profile(), r"deck.npz: incomplete or inconsistent.*suit/samples",
            drop="suit/samples")
    refused(path, tiny_profile(), "unknown rank classifier type 'forest'",
            lambda meta: meta["rank"].update(type="forest"))


def test_features_of_another_length_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save_profile(tiny_profile(), path)
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays["rank/samples"] = arrays["rank/samples"][:, :100]
    np.savez(path, **arrays)
    with pytest.raises(ProfileError, match=r"rank samples have shape \(26, 100\)"):
        load_profile(path)


def test_a_corrupt_archive_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save_profile(tiny_profile(), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ProfileError, match=r"deck\.npz"):
        load_profile(path)
    assert not zipfile.is_zipfile(path)


@pytest.mark.parametrize("threshold", [float("nan"), 0, -0.5, 1.5, "0.9", True, None])
def test_an_unsure_threshold_that_is_no_probability_is_refused(tmp_path: Path,
                                                               threshold: object) -> None:
    """A NaN threshold would let every reading through (`confidence < NaN` is never true)."""
    path = tmp_path / "deck.npz"
    save_profile(tiny_profile(), path)
    rewrite(path, lambda meta: meta.update(unsure_below=threshold))
    with pytest.raises(ProfileError, match=r"deck.npz: incomplete or inconsistent.*unsure_below"):
        load_profile(path)


def test_a_threshold_of_one_is_a_profile_that_answers_nothing_but_guesses(
        tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save_profile(tiny_profile(), path)
    rewrite(path, lambda meta: meta.update(unsure_below=1))
    assert load_profile(path).unsure_below == 1.0


def two_opinion_profile() -> DeckProfile:
    """The generic perceptrons and the committed learned nets, each glyph read by both."""
    generic = perceptron_half(load_generic_profile())
    nets = load_learned(DEFAULT_OUT)
    return replace(generic, rank=TwoOpinions(generic.rank, nets.rank, feature_length(RANK_BOX),
                                             0.9),
                   suit=TwoOpinions(generic.suit, nets.suit, feature_length(SUIT_BOX), 1.1))


def test_a_two_opinion_profile_loads_back_the_same_as_version_2(tmp_path: Path) -> None:
    profile = two_opinion_profile()
    save_profile(profile, tmp_path / "pair.npz")
    with np.load(tmp_path / "pair.npz") as archive:
        assert json.loads(archive["meta"].tobytes())["version"] == 2
    loaded = load_profile(tmp_path / "pair.npz")
    rng = np.random.default_rng(3)
    for part, box, size in (("rank", RANK_BOX, RANK_MAP), ("suit", SUIT_BOX, SUIT_MAP)):
        features = rng.random((4, feature_length(box) + size[0] * size[1])).astype(np.float32)
        before, after = getattr(profile, part), getattr(loaded, part)
        assert isinstance(after, TwoOpinions)
        assert after.temperature == before.temperature
        for mine, theirs in zip(after.opinions(features), before.opinions(features),
                                strict=True):
            assert np.allclose(mine, theirs, atol=2e-2)


def test_a_profile_of_one_classifier_a_glyph_is_still_written_as_version_1(
        tmp_path: Path) -> None:
    save_profile(tiny_profile(), tmp_path / "deck.npz")
    with np.load(tmp_path / "deck.npz") as archive:
        assert json.loads(archive["meta"].tobytes())["version"] == 1


def test_two_opinions_are_refused_in_a_version_1_file(tmp_path: Path) -> None:
    path = tmp_path / "pair.npz"
    save_profile(two_opinion_profile(), path)
    rewrite(path, lambda meta: meta.update(version=1))
    with pytest.raises(ProfileError, match=r"pair\.npz: .*unknown rank classifier type "
                                           r"'two-opinions'"):
        load_profile(path)


def test_a_second_opinion_that_is_no_fitting_net_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pair.npz"
    refused(path, two_opinion_profile(), r"pair\.npz: .*suit/second is a 'perceptron'",
            lambda meta: meta["suit"]["second"].update(type="perceptron"))
    refused(path, two_opinion_profile(), r"rank/second reads \[24, 24\] maps",
            lambda meta: meta["rank"]["second"].update(size=[24, 24]))


def test_a_damaged_net_in_a_profile_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pair.npz"
    save_profile(two_opinion_profile(), path)
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays["rank/second/onnx"] = arrays["rank/second/onnx"][:1000]
    np.savez(path, **arrays)
    with pytest.raises(ProfileError, match=r"pair\.npz: incomplete or inconsistent"):
        load_profile(path)
