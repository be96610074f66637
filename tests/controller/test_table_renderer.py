"""The emulated overhead camera's frames (`TableRenderer`) against the whole scene's photograph.

The renderer lays each frame's cards on one kept scene and develops only their parts; these
tests build the same frame the long way, a fresh scene developed whole, and need every pixel
the same, frame after frame (a part not laid bare again, or not developed, shows).
"""

from __future__ import annotations

import numpy as np
import pytest

from controller.camera.crosscheck import table_zones
from controller.camera.emulated import SENSOR, TableRenderer
from controller.rules.hands import Game
from vision import Image
from vision.build.synth import BACK, CardStyle, lay_card, photograph, render_card, render_width

ZONES = table_zones(Game.HOLDEM, 3)
BUSY = {"flop": ["2C", "3D", "4H"], "turn": ["5S"], "river": ["6C"], "dealer": [BACK, "7D"],
        "seat1": ["8H", "9S"], "seat2": ["TC", "JD", "QH", "KS"], "seat3": ["AC", BACK]}
"""Every position dealt, one with cards beyond its slots (laid over each other)."""


def whole_scene(renderer: TableRenderer, layout: dict[str, list[str]], frame: int) -> Image:
    """The `frame`-th frame the long way: every card laid on a fresh table, developed whole."""
    scene = renderer.table()
    for placement in renderer.placements(layout, frame):
        card = render_card(placement.code, CardStyle(), render_width(placement.width),
                           placement.seed)
        lay_card(scene, card.image, card.alpha, placement, SENSOR.shadow)
    return photograph(scene, SENSOR, np.random.default_rng(0))


@pytest.mark.parametrize("size", [(1280, 960), (640, 480)])
def test_each_frame_is_the_whole_scene_photographed(size: tuple[int, int]) -> None:
    renderer = TableRenderer(ZONES, size=size, seed=4)
    layouts = [BUSY, {"flop": ["2C", "3D", "4H"]}, {}, BUSY, {"seat3": ["AC", "2S"]}]
    for number, layout in enumerate(layouts, start=1):
        frame = renderer(layout)
        assert np.array_equal(frame, whole_scene(renderer, layout, number)), (
            f"frame {number} differs from its scene photographed whole")


def test_a_card_at_the_frames_edge_is_developed_in_the_frame() -> None:
    renderer = TableRenderer(("dealer", "seat1"), size=(320, 240), card_width=150.0, seed=2)
    layout = {"dealer": ["AS", "KD", "QC"], "seat1": ["2H", "3S", "4D"]}
    for number in (1, 2):
        assert np.array_equal(renderer(layout), whole_scene(renderer, layout, number))


def test_a_card_that_cannot_be_drawn_leaves_the_next_frame_clean() -> None:
    renderer = TableRenderer(ZONES, size=(640, 480), seed=1)
    with pytest.raises(Exception, match="'XX'"):
        renderer({"flop": ["2C", "XX"]})
    after = {"flop": ["9H", "TH"]}  # laid where the failed frame's card was left
    assert np.array_equal(renderer(after), whole_scene(renderer, after, 2))
