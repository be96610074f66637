"""Enrolment: a synthetic deck is learned from labelled photos and read on photos it never
saw; bad folders fail with the file and line named."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import Recognizer
from vision.build.synth import Placement, compose, random_card_style, random_effects
from vision.cards import all_codes
from vision.dataset import read_image, read_labels
from vision.enroll import EnrolOptions, enroll
from vision.errors import DatasetError

from .conftest import SYNTHETIC_DECK as DECK

pytestmark = pytest.mark.usefixtures("typefaces")


@pytest.fixture(scope="module")
def enrolled(deck_folder: Path) -> tuple[Recognizer, object]:
    photos = [(item.path.name, read_image(item.path), item.code)
              for item in read_labels(deck_folder)]
    profile, report = enroll(photos, "synthetic deck", EnrolOptions(augment=2, folds=2))
    return Recognizer(profile), report


def test_enrolment_reports_its_held_out_figures(enrolled: tuple[Recognizer, object]) -> None:
    recognizer, report = enrolled
    assert report.photos == 104
    assert report.problems == []
    assert report.held_out == 104
    assert report.wrong == 0
    assert report.right >= 100
    assert recognizer.profile.kind == "enrolled"
    assert recognizer.profile.info["held_out_wrong"] == 0
    assert 0.9 <= recognizer.profile.unsure_below < 1.0


def test_an_enrolled_deck_is_read_on_new_photos(enrolled: tuple[Recognizer, object]) -> None:
    recognizer, _ = enrolled
    rng = np.random.default_rng(99)
    right = answered = 0
    for number, code in enumerate(all_codes()):
        placement = Placement(code, (320, 240), float(rng.uniform(120, 170)),
                              float(rng.uniform(0, 360)), float(rng.uniform(0, 0.08)), number)
        scene = compose([placement], (640, 480), DECK, "felt-green", random_effects(rng, 0.6),
                        number)
        readings = recognizer.recognize(scene.frame)
        assert len(readings) == 1
        if readings[0].card is not None:
            answered += 1
            right += readings[0].card == code
    assert right == answered
    assert answered >= 50


def test_another_deck_is_not_read_confidently_wrong(enrolled: tuple[Recognizer, object]) -> None:
    recognizer, _ = enrolled
    rng = np.random.default_rng(5)
    other = random_card_style(rng)
    wrong = 0
    for number, code in enumerate(all_codes()[::4]):
        scene = compose([Placement(code, (320, 240), 150, 20.0 * number, 0.02, number)],
                        (640, 480), other, "felt-blue", seed=number)
        wrong += sum(r.card is not None and r.card != code
                     for r in recognizer.recognize(scene.frame))
    assert wrong <= 1


def write_labels(folder: Path, text: str) -> None:
    (folder / "labels.csv").write_text(text)


def test_a_missing_labels_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"labels.csv: missing; .*filename, rank, suit"):
        read_labels(tmp_path)


@pytest.mark.parametrize(("text", "message"), [
    ("", "lists no images"),
    ("file,rank\na.png,Q\n", "line 1: missing column\\(s\\) filename, suit"),
    ("filename,rank,suit\na.png,1,H\n", "line 2: rank '1' is not a card rank"),
    ("filename,rank,suit\na.png,Q,X\n", "line 2: suit 'X' is not a card suit"),
    ("filename,rank,suit\na.png,Q,H\nmissing.png,K,S\n", "line 3: missing.png: no such file"),
    ("filename,rank,suit\na.png,Q,H\na.png,K,S\n", "line 3: a.png is already listed on line 2"),
    ("filename,rank,suit\n,Q,H\n", "line 2: empty filename"),
])
def test_bad_label_lines_are_named(tmp_path: Path, text: str, message: str) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((10, 10, 3), np.uint8))
    write_labels(tmp_path, text)
    with pytest.raises(DatasetError, match=message):
        read_labels(tmp_path)


def test_labels_accept_ten_and_suit_names_and_ignore_other_columns(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((10, 10, 3), np.uint8))
    write_labels(tmp_path, "camera,filename,rank,suit\nleft,a.png,10,Hearts\n")
    (item,) = read_labels(tmp_path)
    assert (item.code, item.line, item.path.name) == ("TH", 2, "a.png")


def test_an_unreadable_image_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8\xff not a jpeg")
    with pytest.raises(DatasetError, match=r"broken.jpg: not a readable image"):
        read_image(tmp_path / "broken.jpg")
    with pytest.raises(DatasetError, match=r"absent.jpg: cannot read"):
        read_image(tmp_path / "absent.jpg")


def test_photos_must_cover_every_rank_and_suit() -> None:
    rng = np.random.default_rng(0)
    photos = []
    for code in ["AS", "2H", "3D"]:
        scene = compose([Placement(code, (200, 150), 120, 0.0)], (400, 300), DECK,
                        "grey-table", random_effects(rng, 0.3))
        photos.append((code, scene.frame, code))
    with pytest.raises(DatasetError, match="missing: 4 5 6 7 8 9 T J Q K C"):
        enroll(photos, "partial")


def test_one_photo_per_card_is_enough_and_a_blank_photo_is_reported() -> None:
    blank = np.full((300, 400, 3), 90, np.uint8)
    rng = np.random.default_rng(1)
    photos = [("blank.png", blank, "AS")]
    for number, code in enumerate(all_codes()):
        scene = compose([Placement(code, (200, 150), 120, 90.0 * number)], (400, 300), DECK,
                        "grey-table", random_effects(rng, 0.3), number)
        photos.append((code, scene.frame, code))
    profile, report = enroll(photos, "one photo each", EnrolOptions(augment=1))
    assert report.problems == ["blank.png: no card found"]
    assert report.held_out == 104  # each card's two corners were the two folds
    assert report.wrong == 0
    assert profile.info["folds"] == 2
