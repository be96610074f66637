"""Frames as a phone takes them: large, tinted, sharpened; and the unsure readings' reasons."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import Recognizer
from vision.build.evaluate import NOT_FOUND, PHONE_LIGHTS, Tally, phone_copy, phone_scene
from vision.build.synth import Effects, Placement, compose, photograph
from vision.dataset import read_image, read_labels
from vision.index import IndexLayout, corner_patch
from vision.recognize import LOW_CONFIDENCE, CardReading

from .conftest import SYNTHETIC_DECK


def test_a_dev_photo_enlarged_and_processed_as_a_phone_would_is_read_right(
        dev_photos: Path, generic: Recognizer) -> None:
    items = [i for i in read_labels(dev_photos) if i.code[0] in "5A"][:8]
    tally = Tally()
    for number, item in enumerate(items):
        frame, _ = phone_copy(read_image(item.path), number)
        assert max(frame.shape[:2]) >= 3000
        tally.add_photo(generic.recognize(frame), item.code)
    assert tally.wrong == 0, tally.summary()
    assert tally.right == len(items), tally.summary()


@pytest.mark.parametrize("light", PHONE_LIGHTS)
def test_a_card_under_tinted_light_is_read_right(light: str, generic: Recognizer) -> None:
    """Under strong tungsten or daylight white balance the red and black suits stay apart."""
    balance = {"tungsten": (0.4, 0.75, 1.2), "daylight": (1.25, 1.0, 0.7)}[light]
    tally = Tally()
    for number, code in enumerate(("KH", "KS", "7D", "7C")):
        scene = compose([Placement(code, (400, 300), 220, 15.0 * number, 0.03, number)],
                        (800, 600), SYNTHETIC_DECK, "wood",
                        Effects(white_balance=balance, sharpen=1.2, denoise=0.8, noise=3.0,
                                jpeg_quality=85), seed=number)
        tally.add_scene(generic.recognize(scene.frame), scene)
    assert tally.right == 4, (light, tally.summary(), tally.unsure)


def test_white_balance_tints_the_frame() -> None:
    canvas = np.full((40, 40, 3), 200.0, np.float32)
    frame = photograph(canvas, Effects(white_balance=(0.6, 0.9, 1.1)),
                       np.random.default_rng(0))
    blue, green, red = (float(frame[..., channel].mean()) for channel in range(3))
    assert blue == pytest.approx(120, abs=1)
    assert red == pytest.approx(220, abs=1)
    assert green == pytest.approx(180, abs=1)


def test_sharpening_overshoots_an_edge_and_noise_reduction_smooths_it() -> None:
    canvas = np.zeros((20, 40, 3), np.float32)
    canvas[:, 20:] = 200.0
    rng = np.random.default_rng(0)
    sharp = photograph(canvas.copy(), Effects(sharpen=1.0), rng)
    assert sharp[10, 21, 0] > 210  # halo on the bright side
    assert sharp[10, 18, 0] == 0
    smooth = photograph(canvas.copy(), Effects(denoise=2.0), rng)
    assert 0 < smooth[10, 19, 0] < 200


def test_phone_scenes_are_phone_sized_and_the_card_fills_a_share_of_the_frame() -> None:
    taken = phone_scene(3)
    height, width = taken.scene.frame.shape[:2]
    assert 2000 <= max(height, width) <= 4000
    assert max(height, width) * 3 == min(height, width) * 4
    assert 0.1 <= taken.share <= 0.6
    quad = taken.scene.quads[0]
    assert quad.min() > 0
    assert quad[:, 0].max() < width
    assert quad[:, 1].max() < height
    again = phone_scene(3)
    assert np.array_equal(again.scene.frame, taken.scene.frame)


def test_a_large_cards_corner_is_reduced_by_area_not_sampled() -> None:
    """Read from a 1200-pixel card, the corner patch lies where the same card shrunk
    beforehand puts it, and the sensor's noise is averaged, not sampled."""
    scene = compose([Placement("QH", (800, 1000), 1200, 0.0, 0.0, 1)], (1600, 2000),
                    SYNTHETIC_DECK, "dark")
    quad, layout = scene.quads[0], IndexLayout()
    clean, _ = corner_patch(scene.frame, quad, layout)
    small = cv2.resize(scene.frame, (400, 500), interpolation=cv2.INTER_AREA)
    expected, _ = corner_patch(small, (quad + 0.5) / 4 - 0.5, layout)
    shift = np.abs(clean.astype(np.float32) - expected.astype(np.float32))
    assert float(shift.mean()) < 3.0, float(shift.mean())  # 2.3; the crop's offset lost: 42
    noise = np.random.default_rng(5).normal(0, 40, scene.frame.shape)
    noisy = np.clip(scene.frame + noise, 0, 255).astype(np.uint8)
    patch, _ = corner_patch(noisy, quad, layout)
    left = (patch.astype(np.float32) - clean.astype(np.float32))[40:, 5:]  # paper, no ink
    assert float(left.std()) < 20.0, float(left.std())  # 10.8; sampled: 29.7


def test_unsure_cards_are_counted_by_reason() -> None:
    scene = compose([Placement("KH", (200, 150), 120), Placement("2S", (550, 400), 120)],
                    (800, 600), SYNTHETIC_DECK)
    quad = tuple((float(x), float(y)) for x, y in scene.quads[0])
    tally = Tally()
    tally.add_scene([CardReading(None, 0.5, "KH", quad, None, LOW_CONFIDENCE)], scene)
    assert tally.unsure == {LOW_CONFIDENCE: 1, NOT_FOUND: 1}
    tally.add_photo([], "2S")
    total = tally + tally
    assert total.unsure == {LOW_CONFIDENCE: 2, NOT_FOUND: 4}
    assert total.unsure_summary().startswith(f"{NOT_FOUND} 4 (66.7%)")
