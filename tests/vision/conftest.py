"""Shared fixtures: the generic recogniser, synthetic labelled decks, the real dev photos."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import Recognizer, load_generic_profile
from vision.build.synth import CardStyle, Placement, compose, random_effects
from vision.build.typefaces import HELD_OUT_FAMILIES, TRAINING_FAMILIES, missing
from vision.cards import all_codes
from vision.dataset import read_image, read_labels
from vision.enroll import EnrolOptions, EnrolReport, enroll
from vision.profile import DeckProfile

DEV_PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "cards-dev"
"""The real photos of one casino deck (never copied into the repository)."""


@pytest.fixture(scope="session")
def generic() -> Recognizer:
    return Recognizer(load_generic_profile())


SYNTHETIC_DECK = CardStyle(rank_height=0.12, index_x=0.1)
"""The deck the enrolment tests photograph and enrol."""


@pytest.fixture(scope="session")
def deck_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two labelled photos of every card of `SYNTHETIC_DECK`."""
    folder = tmp_path_factory.mktemp("deck")
    write_deck_photos(folder, SYNTHETIC_DECK, photos_per_card=2, seed=11)
    return folder


@pytest.fixture
def typefaces() -> None:
    """Skip unless this machine can draw the typefaces of the synthetic decks."""
    problems = missing(TRAINING_FAMILIES + HELD_OUT_FAMILIES)
    if problems:
        pytest.skip("this machine cannot draw the synthetic decks' typefaces (OpenCV 5 and "
                    "the font packages .ci/sysdeps installs are needed): "
                    + "; ".join(problems))


@pytest.fixture(scope="session")
def dev_photos() -> Path:
    if not (DEV_PHOTOS / "labels.csv").is_file():
        pytest.skip("the real dev photos (shared/cards-dev beside the repository) are not on "
                    "this machine")
    return DEV_PHOTOS


def dev_fold(path: Path) -> int:
    """The fold (1-4) of a dev photo: the n-th photo of each card is in fold n."""
    return int(path.stem.rsplit("_", 1)[-1])


@pytest.fixture(scope="session")
def dev_enrolled() -> tuple[DeckProfile, EnrolReport]:
    """The dev deck enrolled on three of each card's four photos (fold 4 held out)."""
    if not (DEV_PHOTOS / "labels.csv").is_file():
        pytest.skip("the real dev photos (shared/cards-dev beside the repository) are not on "
                    "this machine")
    train = [(i.path.name, read_image(i.path), i.code) for i in read_labels(DEV_PHOTOS)
             if dev_fold(i.path) != 4]
    return enroll(train, "dev deck", EnrolOptions(augment=4))


def write_deck_photos(folder: Path, style: CardStyle, photos_per_card: int, seed: int,
                      codes: list[str] | None = None) -> list[tuple[str, str]]:
    """Photograph every card of a synthetic deck `photos_per_card` times into `folder`, with a
    `labels.csv`; returns (file name, code) pairs."""
    rng = np.random.default_rng(seed)
    rows = []
    for number, code in enumerate(codes or all_codes()):
        for shot in range(photos_per_card):
            width = float(rng.uniform(150, 230))
            placement = Placement(code, (200 + rng.uniform(-30, 30), 150 + rng.uniform(-20, 20)),
                                  width * 0.75, float(rng.uniform(0, 360)),
                                  float(rng.uniform(0, 0.06)), number)
            scene = compose([placement], (400, 300), style, "grey-table",
                            random_effects(rng, 0.5), int(rng.integers(1 << 30)))
            name = f"{code}_{shot}.png"
            cv2.imwrite(str(folder / name), scene.frame)
            rows.append((name, code))
    with (folder / "labels.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["filename", "rank", "suit", "note"])
        writer.writerows([name, code[0], code[1], "synthetic"] for name, code in rows)
    return rows
