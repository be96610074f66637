"""The shipped generic profile is what its build makes.

The shipped profile is a pair: perceptrons and the committed learned nets, read together
under the `either-card` rule, both learnt from the generic build's synthetic decks and from
real corners (`vision.build.real_build`, decision 167; `tests/vision/test_real_build.py`).
A full rebuild takes minutes (`python -m vision.build.real_build --check` does it); these
tests show, in seconds, that `vision.build.generic` still draws and reads exactly the
synthetic training cards the shipped perceptrons were built from, that the shipped profile
still reads fresh synthetic decks as its build recorded, that its second half is the
committed nets under its rule, and that the synthetic-only build and its check run end to
end.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import vision.build.generic as generic_build
from vision.build.generic import (
    PREFIX,
    Drawing,
    GenericBuildOptions,
    build,
    check_pair,
    compare,
    fingerprint,
    paired,
    read_all,
    same_fingerprint,
    synthetic_samples,
)
from vision.build.learned_combined import (
    NETS,
    SHIPPED_RULE,
    combined_profile,
    combined_samples,
    pair_problems,
    perceptron_half,
)
from vision.build.learned_data import synthetic_glyphs
from vision.build.training import TrainOptions
from vision.classify import Perceptron, TwoOpinions
from vision.learned import ConvGlyphClassifier, LearnedGlyphs, load_learned
from vision.profile import (
    DeckProfile,
    PairRule,
    load_generic_profile,
    load_profile,
    save_profile,
)

pytestmark = pytest.mark.usefixtures("typefaces")


@pytest.fixture(scope="module")
def shipped() -> DeckProfile:
    return load_generic_profile()


@pytest.fixture(scope="module")
def nets() -> LearnedGlyphs:
    return load_learned(NETS)


SMALL = GenericBuildOptions(cards=120, validation_cards=40, seed=7,
                            train=TrainOptions(hidden=24, epochs=8, members=2, references=100),
                            calibration_cards=60, max_unseen_wrong=0.1)
"""A build small enough for a test."""


def test_the_training_cards_are_drawn_and_read_as_when_it_was_built(
        shipped: DeckProfile) -> None:
    info = perceptron_half(shipped).info
    recorded = info["prefix"]
    samples = synthetic_samples(recorded[-1][1] + 1, info["seed"],
                                drawing=Drawing.of(info))[:PREFIX]
    regenerated = fingerprint(samples)
    assert [row[:2] for row in regenerated] == [row[:2] for row in recorded]
    assert same_fingerprint(recorded, regenerated)


def test_the_shipped_profile_still_reads_synthetic_decks_as_recorded(
        shipped: DeckProfile) -> None:
    info = shipped.info
    # the start of its validation decks
    glyphs = synthetic_glyphs(150, info["seed"] + 1, drawing=Drawing.of(perceptron_half(
        shipped).info))
    answers = read_all(shipped, combined_samples(glyphs))
    right = sum(code == answer for code, answer in answers) / len(answers)
    wrong = sum(answer is not None and code != answer for code, answer in answers)
    assert right >= info["validation_right"] - 0.06
    assert wrong <= 1


def test_a_small_build_runs_end_to_end_and_is_deterministic(tmp_path: Path) -> None:
    first = build(SMALL)
    save_profile(first, tmp_path / "small.npz")
    loaded = load_profile(tmp_path / "small.npz")
    assert loaded.kind == "generic"
    assert loaded.info["prefix"] == first.info["prefix"]
    test = synthetic_samples(40, 99)
    figures = compare(first, loaded, test)
    assert figures["agreement"] >= 0.95
    assert figures["rebuilt_right"] > 0.2


def test_cards_drawn_by_several_processes_are_the_cards_drawn_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generic_build, "_BLOCK", 8)
    alone = synthetic_samples(40, 5)
    shared = synthetic_samples(40, 5, jobs=2)
    assert len(shared) == len(alone) > 40
    assert fingerprint(shared) == fingerprint(alone)


def test_the_shipped_profile_is_its_perceptrons_paired_with_the_committed_nets(
        shipped: DeckProfile, nets: LearnedGlyphs) -> None:
    assert pair_problems(shipped, nets) == []
    assert shipped.pair.rule == SHIPPED_RULE == "either-card"
    perceptrons = perceptron_half(shipped)
    assert isinstance(perceptrons.rank, Perceptron)
    assert isinstance(perceptrons.suit, Perceptron)
    assert shipped.pair.unsure_below == (perceptrons.unsure_below, nets.unsure_below)
    assert "calibration" not in shipped.info
    assert perceptrons.info["prefix"] == shipped.info["prefix"]
    assert perceptrons.info["validation_cards"] == 2500
    assert perceptrons.info["validation_right"] < shipped.info["validation_right"]
    assert not {"perceptrons", "nets", "pair_rule", "pair_temperature",
                "calibration"} & set(perceptrons.info)


def _with_net(profile: DeckProfile, net: ConvGlyphClassifier) -> DeckProfile:
    """`profile` with `net` as its rank's second opinion."""
    rank = profile.rank
    assert isinstance(rank, TwoOpinions)
    return replace(profile, rank=TwoOpinions(rank.first, net, rank.split, rank.temperature))


def test_a_pair_unlike_the_committed_one_is_named(shipped: DeckProfile,
                                                   nets: LearnedGlyphs) -> None:
    rank = nets.rank
    other_rule = replace(shipped, pair=PairRule("either", shipped.pair.unsure_below))
    other_threshold = replace(shipped, pair=PairRule(SHIPPED_RULE, (0.97, nets.unsure_below)))
    retuned = ConvGlyphClassifier(rank.classes, rank.onnx, rank.size, rank.temperature * 1.1,
                                  rank.reference, rank.novelty_distance)
    other_net = ConvGlyphClassifier(rank.classes, nets.suit.onnx, rank.size, rank.temperature,
                                    rank.reference, rank.novelty_distance)
    assert pair_problems(other_rule, nets) == [
        f"its pair rule is {other_rule.pair}, not {shipped.pair}"]
    assert len(pair_problems(other_threshold, nets)) == 1
    assert pair_problems(_with_net(shipped, retuned), nets) == [
        "its rank net's tuning is not the committed one's"]
    assert pair_problems(_with_net(shipped, other_net), nets) == [
        "its rank net is not the committed one"]
    assert pair_problems(perceptron_half(shipped), nets) == [
        f"{shipped.name!r} does not read with two opinions"]


def test_the_perceptrons_of_a_pair_are_the_profile_it_was_combined_from(
        shipped: DeckProfile, nets: LearnedGlyphs) -> None:
    perceptrons = perceptron_half(shipped)
    again = combined_profile(perceptrons, nets, synthetic_glyphs(30, 4444), rule=SHIPPED_RULE)
    half = perceptron_half(again)
    assert half.info == perceptrons.info
    assert (half.unsure_below, half.layout, half.colour) == (
        perceptrons.unsure_below, perceptrons.layout, perceptrons.colour)
    assert half.rank is perceptrons.rank
    assert half.suit is perceptrons.suit
    assert pair_problems(again, nets) == []


def test_the_check_passes_the_pair_a_build_writes_and_not_another(tmp_path: Path) -> None:
    pair = paired(build(SMALL), SMALL)
    assert pair_problems(pair, load_learned(NETS)) == []
    save_profile(pair, tmp_path / "pair.npz")
    equivalent, figures, problems = check_pair(tmp_path / "pair.npz", SMALL, test_cards=40)
    assert (equivalent, problems) == (True, [])
    assert figures["same_training_cards"] == 1.0
    moved = pair.pair.unsure_below[0] + 0.05
    save_profile(replace(pair, pair=PairRule(pair.pair.rule, (moved, moved)), info=dict(
        pair.info) | {"calibration": dict(pair.info["calibration"]) | {"threshold": moved}}),
                 tmp_path / "moved.npz")
    equivalent, _, problems = check_pair(tmp_path / "moved.npz", SMALL, test_cards=40)
    assert not equivalent
    assert problems == [f"its calibrated threshold {moved:.4f} comes out "
                        f"{pair.pair.unsure_below[0]:.4f} on the calibration decks"]
    save_profile(replace(pair, pair=PairRule("either", pair.pair.unsure_below)),
                 tmp_path / "other.npz")
    equivalent, _, problems = check_pair(tmp_path / "other.npz", SMALL, test_cards=40)
    assert not equivalent
    assert problems == [f"its pair rule is {PairRule('either', pair.pair.unsure_below)}, "
                        f"not {pair.pair}"]
