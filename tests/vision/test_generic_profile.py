"""The shipped generic profile is what `vision.build.generic` builds.

A full rebuild takes minutes (`python -m vision.build.generic --check` does it and compares);
these tests show, in seconds, that the script still draws and reads exactly the training
cards the shipped profile was built from, that the shipped profile still reads fresh
synthetic decks as its build recorded, and that the whole build runs end to end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.build.generic as generic_build
from vision.build.generic import (
    PREFIX,
    Drawing,
    GenericBuildOptions,
    build,
    compare,
    fingerprint,
    read_all,
    synthetic_samples,
)
from vision.build.training import TrainOptions
from vision.profile import load_generic_profile, load_profile, save_profile

pytestmark = pytest.mark.usefixtures("typefaces")


@pytest.fixture(scope="module")
def shipped() -> object:
    return load_generic_profile()


def test_the_training_cards_are_drawn_and_read_as_when_it_was_built(shipped: object) -> None:
    info = shipped.info  # type: ignore[attr-defined]
    recorded = info["prefix"]
    samples = synthetic_samples(recorded[-1][1] + 1, info["seed"],
                                drawing=Drawing.of(info))[:PREFIX]
    regenerated = fingerprint(samples)
    assert [row[:2] for row in regenerated] == [row[:2] for row in recorded]
    for now, then in zip(regenerated, recorded, strict=True):
        assert now[2:] == pytest.approx(then[2:], rel=2e-3, abs=2e-3)


def test_the_shipped_profile_still_reads_synthetic_decks_as_recorded(shipped: object) -> None:
    info = shipped.info  # type: ignore[attr-defined]
    # the start of its validation decks
    samples = synthetic_samples(150, info["seed"] + 1, drawing=Drawing.of(info))
    answers = read_all(shipped, samples)  # type: ignore[arg-type]
    right = sum(code == answer for code, answer in answers) / len(answers)
    wrong = sum(answer is not None and code != answer for code, answer in answers)
    assert right >= info["validation_right"] - 0.06
    assert wrong <= 1


def test_a_small_build_runs_end_to_end_and_is_deterministic(tmp_path: Path) -> None:
    options = GenericBuildOptions(cards=120, validation_cards=40, seed=7,
                           train=TrainOptions(hidden=24, epochs=8, members=2, references=100))
    first = build(options)
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
