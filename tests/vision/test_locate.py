"""Finding cards: every card on varied tables, nothing that is not a card."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.build.evaluate import iou
from vision.build.synth import (
    BACKGROUNDS,
    CardStyle,
    Effects,
    Placement,
    compose,
    random_effects,
    scatter,
    table_background,
)
from vision.locate import find_cards, order_corners


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_every_scattered_card_is_found_once(background: str) -> None:
    rng = np.random.default_rng(BACKGROUNDS.index(background))
    placements = scatter(["QH", "TS", "7D", "AC", "2S"], (800, 600), rng, (0.2, 0.3))
    scene = compose(placements, (800, 600), CardStyle(), background, random_effects(rng),
                    seed=5)
    found = find_cards(scene.frame)
    assert len(found) == len(scene.quads)
    for truth in scene.quads:
        assert max(iou(truth, quad) for quad in found) > 0.9


def test_an_empty_table_has_no_cards() -> None:
    rng = np.random.default_rng(1)
    for background in BACKGROUNDS:
        assert find_cards(table_background(background, (640, 480), rng)) == []


def test_a_printed_box_on_the_layout_is_not_a_card() -> None:
    frame = table_background("felt-green", (640, 480), np.random.default_rng(2))
    cv2.rectangle(frame, (200, 120), (330, 300), (230, 230, 230), 3)
    assert find_cards(frame) == []


def test_a_court_card_is_one_card_not_two() -> None:
    scene = compose([Placement("KS", (320, 240), 200, 20.0)], (640, 480), CardStyle(),
                    "grey-table")
    found = find_cards(scene.frame)
    assert len(found) == 1
    assert iou(found[0], scene.quads[0]) > 0.93


def test_corners_are_ordered_from_a_short_edge_clockwise() -> None:
    scene = compose([Placement("5C", (320, 240), 180, 63.0, 0.05)], (640, 480), CardStyle(),
                    "felt-blue", Effects(blur=0.8, noise=2.0))
    quad = find_cards(scene.frame)[0]
    sides = [float(np.linalg.norm(quad[i] - quad[(i + 1) % 4])) for i in range(4)]
    assert sides[0] < sides[1]
    assert sides[2] < sides[3]
    first, second = quad[1] - quad[0], quad[2] - quad[1]
    cross = first[0] * second[1] - first[1] * second[0]
    assert cross > 0  # clockwise on screen (y down)
    shuffled = quad[[2, 0, 3, 1]]
    assert np.allclose(order_corners(shuffled), quad) or np.allclose(
        order_corners(shuffled), np.roll(quad, 2, axis=0))


def test_small_and_tilted_cards_are_found() -> None:
    placements = [Placement("9H", (150, 150), 70, 10.0, 0.12, 1),
                  Placement("JD", (450, 300), 90, 200.0, 0.1, 2)]
    scene = compose(placements, (640, 480), CardStyle(), "dark", Effects(blur=0.6))
    found = find_cards(scene.frame)
    assert len(found) == 2
    for truth in scene.quads:
        assert max(iou(truth, quad) for quad in found) > 0.85


def _side_by_side(gap: float, angle: float, width: float = 90.0) -> list[Placement]:
    """Two upright cards (the board's or a hand's) `gap` card widths apart, turned `angle`."""
    theta = np.radians(angle)
    step = width * (1 + gap) / 2
    offsets = [(-step * np.cos(theta), step * np.sin(theta)),
               (step * np.cos(theta), -step * np.sin(theta))]
    return [Placement(code, (320 + dx, 240 + dy), width, angle, 0.0, number)
            for number, (code, (dx, dy)) in enumerate(zip(("8C", "3H"), offsets, strict=True))]


@pytest.mark.parametrize(("gap", "angle"), [(0.04, 0.0), (0.06, 8.0), (0.1, -5.0),
                                            (0.05, 93.0)])
def test_two_cards_side_by_side_are_two_cards_not_one(gap: float, angle: float) -> None:
    # Two upright cards side by side make an outline of a card's proportions (1.5 : 1): the
    # outlines inside it show it is two.
    scene = compose(_side_by_side(gap, angle), (640, 480), CardStyle(), "dark",
                    Effects(blur=0.7, noise=2.0))
    found = find_cards(scene.frame)
    assert len(found) == 2
    for truth in scene.quads:
        assert max(iou(truth, quad) for quad in found) > 0.9


@pytest.mark.parametrize(("angle", "right_x"), [(4.0, 371.0), (8.0, 379.0)])
def test_cards_whose_corners_all_but_touch_are_told_apart(angle: float, right_x: float) -> None:
    # Turned towards each other, the two cards' top corners come within a pixel: the outline
    # round both is a card's shape, and the two cards' own outlines inside it show it is two.
    placements = [Placement("8C", (270, 240), 90, angle, 0.0, 1),
                  Placement("3H", (right_x, 240), 90, -angle, 0.0, 2)]
    scene = compose(placements, (640, 480), CardStyle(), "felt-green",
                    Effects(blur=0.7, noise=2.0))
    found = find_cards(scene.frame)
    assert len(found) == 2
    for truth in scene.quads:
        assert max(iou(truth, quad) for quad in found) > 0.9


def _plain_along_frame_edge(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """`vision.locate.finder._along_frame_edge` as first written, in numpy."""
    limits = np.array([shape[1] - 1, shape[0] - 1], np.float32)
    on_low = quad <= 1.5
    on_high = quad >= limits - 1.5
    return bool((on_low & np.roll(on_low, -1, axis=0)).any()
                or (on_high & np.roll(on_high, -1, axis=0)).any())


def test_the_frame_edge_test_in_python_floats_is_numpys() -> None:
    from vision.locate.finder import _along_frame_edge

    rng = np.random.default_rng(12)
    along = 0
    for trial in range(20000):
        shape = (int(rng.integers(10, 500)), int(rng.integers(10, 700)))
        # corners near the frame's edges and corners, some on the 1.5-pixel limits exactly
        quad = rng.uniform(-3.0, 2.5, (4, 2))
        quad[:, 0] += rng.choice([0.0, shape[1] - 1.0, shape[1] / 2], 4)
        quad[:, 1] += rng.choice([0.0, shape[0] - 1.0, shape[0] / 2], 4)
        if trial % 3 == 0:
            quad = np.round(quad * 2) / 2
        quad = quad.astype(np.float32)
        expected = _plain_along_frame_edge(quad, shape)
        assert _along_frame_edge(quad, shape) == expected, (quad, shape)
        along += expected
    assert 2000 <= along <= 18000
