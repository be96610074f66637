"""The recogniser on synthetic tables it never saw: stressed frames, several cards, backs,
blanks; and its refusal of things that are not frames."""

from __future__ import annotations

import numpy as np
import pytest

from vision import CardReading, ImageError, Recognizer
from vision.build.evaluate import Tally, stress_scene
from vision.build.synth import BACK, CardStyle, Effects, Placement, compose
from vision.build.typefaces import HELD_OUT_FAMILIES
from vision.recognize import NO_INDEX

pytestmark = pytest.mark.usefixtures("typefaces")

# Regression floors on a few frames each; `bench/vision.py` measures the real rates.
FLOORS = {"rotation": 0.7, "scale": 0.5, "lighting": 0.7, "blur": 0.4, "glare": 0.6,
          "perspective": 0.6, "several": 0.6, "low-res": 0.5}


@pytest.mark.parametrize("kind", sorted(FLOORS))
def test_stressed_frames_of_unseen_decks_are_read_or_doubted(kind: str,
                                                             generic: Recognizer) -> None:
    tally = Tally()
    for number in range(10):
        scene = stress_scene(kind, 1000 + number)
        tally.add_scene(generic.recognize(scene.frame), scene)
    assert tally.wrong == 0, tally.summary()
    assert tally.phantoms == 0, tally.summary()
    assert tally.right >= FLOORS[kind] * tally.cards, tally.summary()


def test_decks_in_typefaces_it_never_saw_are_read_or_doubted(generic: Recognizer) -> None:
    tally = Tally()
    for kind in ("rotation", "blur", "several"):
        for number in range(6):
            scene = stress_scene(kind, 2000 + number, families=HELD_OUT_FAMILIES)
            tally.add_scene(generic.recognize(scene.frame), scene)
    assert tally.wrong == 0, tally.summary()
    assert tally.phantoms == 0, tally.summary()
    assert tally.right >= 0.75 * tally.cards, tally.summary()


def test_face_down_and_blank_cards_are_not_answered(generic: Recognizer) -> None:
    scene = compose([Placement(BACK, (200, 250), 180, 15.0, 0.02, 0),
                     Placement(BACK, (520, 250), 180, -10.0, 0.02, 1)], (720, 500),
                    CardStyle(), "felt-green", Effects(blur=0.6, noise=2.0))
    readings = generic.recognize(scene.frame)
    assert len(readings) == 2
    assert all(r.card is None for r in readings)
    blank = np.full((400, 400, 3), 50, np.uint8)
    blank[60:340, 100:300] = 235
    (reading,) = generic.recognize(blank)
    assert (reading.card, reading.reason, reading.guess, reading.index_box) == (
        None, NO_INDEX, None, None)


def test_readings_come_in_reading_order_with_their_geometry(generic: Recognizer) -> None:
    placements = [Placement("KH", (560, 380), 170, 5.0), Placement("3S", (200, 140), 170, -5.0),
                  Placement("9D", (560, 140), 170, 0.0)]
    scene = compose(placements, (800, 560), CardStyle(), "felt-blue", Effects(blur=0.5))
    readings = generic.recognize(scene.frame)
    assert [r.card for r in readings] == ["3S", "9D", "KH"]
    first = readings[0]
    assert len(first.quad) == 4
    assert first.index_box is not None
    x, y, w, h = first.index_box
    corner = np.array(first.quad[0])
    assert np.hypot(x - corner[0], y - corner[1]) < 40
    assert 0 < w < 0.3 * 170
    assert 0 < h < 0.45 * 238
    assert (first.rank, first.suit) == ("3", "S")
    assert set(first.as_dict()) == {"card", "confidence", "box", "corners"}


def test_the_recogniser_keeps_no_state_between_frames(generic: Recognizer) -> None:
    scene = stress_scene("several", 3)
    assert generic.recognize(scene.frame) == generic.recognize(scene.frame.copy())


def test_an_empty_table_gives_no_readings(generic: Recognizer) -> None:
    frame = compose([], (640, 480), CardStyle(), "wood", Effects(noise=3.0)).frame
    assert generic.recognize(frame) == []


def test_grey_frames_are_read(generic: Recognizer) -> None:
    scene = compose([Placement("JC", (320, 240), 200, 12.0)], (640, 480), CardStyle(),
                    "felt-green")
    grey = scene.frame.min(axis=2)
    assert [r.card for r in generic.recognize(grey)] == ["JC"]


@pytest.mark.parametrize(("frame", "message"), [
    ([[0, 0], [0, 0]], "numpy array, got list"),
    (np.zeros((100, 100, 3), np.float32), "must be uint8, got float32"),
    (np.zeros((100, 100, 4), np.uint8), r"got shape \(100, 100, 4\)"),
    (np.zeros((10, 100, 3), np.uint8), "100x10 pixels is too small"),
])
def test_things_that_are_not_frames_are_refused(frame: object, message: str,
                                                generic: Recognizer) -> None:
    with pytest.raises(ImageError, match=message):
        generic.recognize(frame)  # type: ignore[arg-type]
    assert issubclass(ImageError, ValueError)


def test_a_stricter_threshold_only_removes_answers(generic: Recognizer) -> None:
    strict = Recognizer(generic.profile, unsure_below=0.9999)
    scene = stress_scene("several", 7)
    loose = generic.recognize(scene.frame)
    tight = strict.recognize(scene.frame)
    assert [r.guess for r in loose] == [r.guess for r in tight]
    for before, after in zip(loose, tight, strict=True):
        assert after.card in (None, before.card)
    assert isinstance(loose[0], CardReading)
