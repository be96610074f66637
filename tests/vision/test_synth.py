"""The synthetic renderer: deterministic, truthful about where cards lie, clear about errors."""

from __future__ import annotations

import numpy as np
import pytest

from vision.build.synth import (
    CardStyle,
    Effects,
    LayoutRenderer,
    Placement,
    compose,
    index_right,
    random_card_style,
    random_effects,
    render_card,
    scatter,
)
from vision.cards import all_codes, is_code
from vision.errors import SceneError

pytestmark = pytest.mark.usefixtures("typefaces")


def test_the_same_seed_draws_the_same_frame() -> None:
    def draw(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        style = random_card_style(rng)
        placements = scatter(["QH", "2C", "TS"], (640, 480), rng)
        return compose(placements, (640, 480), style, "wood", random_effects(rng), seed).frame

    assert np.array_equal(draw(4), draw(4))
    assert not np.array_equal(draw(4), draw(5))


def test_every_card_of_the_deck_can_be_drawn() -> None:
    style = random_card_style(np.random.default_rng(9))
    for code in all_codes():
        card = render_card(code, style, 120)
        assert card.image.shape == (round(120 * style.aspect), 120, 3)
        assert card.alpha[0, 0] < 0.5 < card.alpha[card.alpha.shape[0] // 2, 60]


def test_not_a_card_is_refused() -> None:
    with pytest.raises(SceneError, match="'1H'"):
        render_card("1H", CardStyle())
    with pytest.raises(SceneError, match="unknown background 'carpet'"):
        compose([Placement("QH", (100, 100), 80)], (200, 200), CardStyle(), "carpet")


def test_scatter_keeps_cards_apart_and_inside() -> None:
    rng = np.random.default_rng(3)
    placements = scatter(all_codes()[:6], (800, 600), rng, (0.15, 0.2))
    assert len(placements) >= 4
    for number, first in enumerate(placements):
        assert 0 < first.centre[0] < 800
        assert 0 < first.centre[1] < 600
        for second in placements[number + 1:]:
            distance = np.hypot(first.centre[0] - second.centre[0],
                                first.centre[1] - second.centre[1])
            assert distance > 0.87 * (first.width + second.width)


def test_layout_renderer_places_cards_by_position() -> None:
    renderer = LayoutRenderer({"dealer": (400, 120), "seat1": (200, 420)}, size=(800, 600),
                              card_width=80)
    scene = renderer.scene({"dealer": ["KD", "7S"], "seat1": ["AH"]})
    assert scene.codes == ["KD", "7S", "AH"]
    centres = [quad.mean(axis=0) for quad in scene.quads]
    assert abs(centres[0][1] - 120) < 1
    assert centres[0][0] < 400 < centres[1][0]
    assert np.allclose(centres[2], (200, 420), atol=1)
    assert np.array_equal(renderer({"dealer": ["KD", "7S"], "seat1": ["AH"]}), scene.frame)


def test_layout_renderer_refuses_unknown_positions_and_codes() -> None:
    renderer = LayoutRenderer({"dealer": (400, 120)}, size=(800, 600))
    with pytest.raises(SceneError, match="position 'seat9' is not on the layout"):
        renderer({"seat9": ["QH"]})
    with pytest.raises(SceneError, match="'QQ'"):
        renderer({"dealer": ["QQ"]})
    assert isinstance(SceneError("x"), ValueError)


def test_default_positions_put_the_dealer_on_top() -> None:
    renderer = LayoutRenderer(size=(1280, 960))
    scene = renderer.scene({"dealer": ["2H"], "seat1": ["3H"], "seat2": ["4H"]})
    dealer, first, second = (quad.mean(axis=0) for quad in scene.quads)
    assert dealer[1] < first[1]
    assert dealer[1] < second[1]
    assert first[0] < second[0]
    assert all(is_code(code) for code in scene.codes)


def test_a_low_resolution_camera_loses_detail_but_keeps_the_frame_size() -> None:
    placements = [Placement("KH", (320, 240), 200, 10.0)]
    sharp = compose(placements, (640, 480), CardStyle(), "felt-green").frame
    coarse = compose(placements, (640, 480), CardStyle(), "felt-green",
                     Effects(downscale=2.5)).frame
    assert coarse.shape == sharp.shape

    def detail(frame: np.ndarray) -> float:
        return float(np.abs(np.diff(frame.astype(np.float32), axis=1)).mean())

    assert detail(coarse) < 0.8 * detail(sharp)


def test_random_decks_keep_their_index_on_the_card_and_clear_of_the_pips() -> None:
    rng = np.random.default_rng(21)
    for _ in range(60):
        style = random_card_style(rng)
        reach = index_right(style)
        assert reach < style.pip_inset - 0.45 * style.pip_size
        assert style.index_x - 1.25 * style.suit_size * style.rank_height * style.aspect / 2 > 0.03
        card = render_card("TS", style, 200)
        assert card.rank_box[0] >= 0.03
