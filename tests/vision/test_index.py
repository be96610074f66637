"""Reading an index corner: the drawn rank and suit are the glyphs found, and ink colour."""

from __future__ import annotations

import numpy as np
import pytest

from vision.build.synth import CardStyle, Effects, Placement, compose
from vision.features import RANK_BOX, SUIT_BOX, feature_length, glyph_features
from vision.index import CARD_WIDTH_PX, IndexLayout, read_corners

LAYOUT = IndexLayout()


def found_box_matches(found: tuple[int, int, int, int],
                      drawn: tuple[float, float, float, float]) -> bool:
    scale = (CARD_WIDTH_PX, CARD_WIDTH_PX * LAYOUT.card_aspect)
    x0, y0, x1, y1 = drawn[0] * scale[0], drawn[1] * scale[1], drawn[2] * scale[0], drawn[
        3] * scale[1]
    centre = ((found[0] + found[2]) / 2, (found[1] + found[3]) / 2)
    return x0 - 2 <= centre[0] <= x1 + 2 and y0 - 2 <= centre[1] <= y1 + 2


@pytest.mark.parametrize("code", ["AS", "TH", "7D", "QC", "KH", "4S"])
def test_both_corners_yield_the_drawn_rank_and_suit(code: str) -> None:
    scene = compose([Placement(code, (300, 300), 220, 35.0, 0.05, 3)], (600, 600), CardStyle(),
                    "felt-green", Effects(blur=0.7, noise=2.0))
    corners = read_corners(scene.frame, scene.quads[0], LAYOUT)
    assert all(corner is not None for corner in corners)
    for corner in corners:
        assert corner is not None
        assert found_box_matches(corner.rank.box, scene.cards[0].rank_box)
        assert found_box_matches(corner.suit.box, scene.cards[0].suit_box)


def test_ink_colour_separates_red_from_black() -> None:
    scene = compose([Placement("9H", (160, 200), 170, 10.0), Placement("9S", (440, 200), 170,
                                                                        -10.0)],
                    (600, 400), CardStyle(), "grey-table", Effects(colour_cast=0.1, blur=0.8))
    red = read_corners(scene.frame, scene.quads[0], LAYOUT)[0]
    black = read_corners(scene.frame, scene.quads[1], LAYOUT)[0]
    assert red is not None
    assert black is not None
    assert red.suit.redness > 0.3
    assert abs(black.suit.redness) < 0.08


def test_a_blank_corner_has_no_index() -> None:
    frame = np.full((400, 400, 3), 60, np.uint8)
    frame[50:350, 100:314] = 235
    quad = np.array([[100, 50], [314, 50], [314, 350], [100, 350]], np.float32)
    assert read_corners(frame, quad, LAYOUT) == [None, None]


def test_the_index_outline_lies_in_the_frame_near_the_corner() -> None:
    scene = compose([Placement("8C", (300, 300), 200, 0.0)], (600, 600), CardStyle(),
                    "felt-blue")
    corner = read_corners(scene.frame, scene.quads[0], LAYOUT)[0]
    assert corner is not None
    top_left = scene.quads[0][0]
    assert np.all(corner.outline.min(axis=0) >= top_left - 2)
    assert np.all(corner.outline.max(axis=0) <= top_left + np.array([0.3 * 200, 0.45 * 280]))


def test_features_have_fixed_lengths_whatever_the_glyph_size() -> None:
    for size in [(7, 11), (40, 60), (90, 30)]:
        ink = np.random.default_rng(0).random(size[::-1]).astype(np.float32)
        assert glyph_features(ink, RANK_BOX).shape == (feature_length(RANK_BOX),)
        assert glyph_features(ink, SUIT_BOX).shape == (feature_length(SUIT_BOX),)
    assert np.isfinite(glyph_features(np.zeros((5, 5), np.float32), SUIT_BOX)).all()
