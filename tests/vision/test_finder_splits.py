"""Outlines that are not one card: two cards a thin strip apart, a card merged with a plank.

Two cards lying close, with a thin strip of table between them, can come out as one outline
of a card's proportions when neither card's own outline is found (a court card whose picture
comes within a few pixels of its edges loses its outline in the reduced frame); the finder
splits it where the strip crosses it. A pale plank of wood beside a card can merge with it
into one outline that the frame's edge cuts off; the finder refuses it. A card lying on a pale
plank whose grain joins its edge is found by its want of colour (`neutral_paper`), and the
plank alone is no card.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.build.composite import CompositeOptions, composite, cut_outs
from vision.build.evaluate import iou, stress_scene
from vision.build.synth import (
    CardStyle,
    Effects,
    Placement,
    compose,
    lay_card,
    photograph,
    render_card,
    scatter,
    table_background,
)
from vision.dataset import read_image, read_labels
from vision.edges import Quad
from vision.locate import (
    LocateParams,
    find_cards,
    finder,
    neutral_paper,
    paper_levels,
    split_at_gap,
    work_image,
)
from vision.locate.finder import _split_if_two

from .conftest import dev_fold

SIZE = (640, 480)
CARD_WIDTH = 90.0


def _canvas(background: str, seed: int = 0) -> np.ndarray:
    return table_background(background, SIZE, np.random.default_rng(seed)).astype(np.float32)


def _photographed(canvas: np.ndarray, seed: int = 0) -> np.ndarray:
    return photograph(canvas, Effects(blur=0.8, noise=2.0), np.random.default_rng(seed))


def _lay(canvas: np.ndarray, code: str, centre: tuple[float, float], angle: float,
         picture_inset: float | None = None, width: float = CARD_WIDTH, seed: int = 1) -> Quad:
    """Lay a card; with `picture_inset`, its face is a dark picture that far (a share of its
    width) inside its edges, like a court card's picture coming close to its edges."""
    card = render_card(code, CardStyle(), 200, seed)
    if picture_inset is not None:
        height, card_width = card.image.shape[:2]
        inset = round(picture_inset * card_width)
        corners = (inset, inset), (card_width - inset, height - inset)
        cv2.rectangle(card.image, *corners, (40, 120, 160), -1)
        cv2.rectangle(card.image, *corners, (40, 40, 40), 3)
    placement = Placement(code, centre, width, angle, 0.0, seed)
    return lay_card(canvas, card.image, card.alpha, placement, 0.35)


def _two_cards(background: str, gap: float, angle: float, inset: float, turn: float = 0.0
               ) -> tuple[np.ndarray, list[Quad]]:
    """A plain 4 of diamonds and a framed Jack `gap` card widths apart, turned `angle`, the
    Jack `turn` degrees more than the 4 (the strip between them then narrows)."""
    canvas = _canvas(background)
    theta = np.radians(angle)
    step = CARD_WIDTH * (1 + gap) / 2
    cards = (("4D", -1, None, -turn / 2), ("JC", 1, inset, turn / 2))
    quads = [_lay(canvas, code, (320 + side * step * np.cos(theta),
                                 240 - side * step * np.sin(theta)), angle + own, picture,
                  seed=number)
             for number, (code, side, picture, own) in enumerate(cards)]
    return _photographed(canvas), quads


TWO_CARDS = [("felt-green", -4.0, 0.05), ("felt-green", 88.0, 0.06), ("dark", 3.0, 0.05),
             ("dark", 88.0, 0.06), ("felt-blue", -4.0, 0.06), ("felt-blue", 3.0, 0.04),
             ("wood", -4.0, 0.05), ("wood", 88.0, 0.06)]


@pytest.mark.parametrize(("background", "angle", "inset"), TWO_CARDS)
def test_two_cards_a_thin_strip_of_table_apart_are_two_cards(background: str, angle: float,
                                                             inset: float) -> None:
    # 7 pixels apart: the Jack's own outline is lost, the pair's is a card's shape
    frame, quads = _two_cards(background, 0.08, angle, inset)
    found = find_cards(frame)
    assert len(found) == 2
    for truth in quads:
        assert max(iou(truth, quad) for quad in found) > 0.9


@pytest.mark.parametrize(("background", "angle", "inset"), TWO_CARDS[::2])
def test_an_outline_round_two_cards_is_split_where_the_strip_crosses(
        background: str, angle: float, inset: float) -> None:
    frame, quads = _two_cards(background, 0.08, angle, inset)
    small, scale = work_image(frame, LocateParams().work_width)
    outline = _outline_round(quads, scale)
    parts = split_at_gap(small, outline, paper_levels(small))
    assert parts is not None
    for truth in quads:
        assert max(iou(truth * scale, part) for part in parts) > 0.85


@pytest.mark.parametrize(("background", "gap", "angle", "turn"),
                         [("felt-green", 0.12, -4.0, -4.0), ("wood", 0.1, 3.0, 4.0)])
def test_two_cards_turned_towards_each_other_are_two_cards(background: str, gap: float,
                                                           angle: float, turn: float) -> None:
    # the strip between them narrows from one end to the other: it crosses their outline
    # leaning
    frame, quads = _two_cards(background, gap, angle, 0.06, turn)
    found = find_cards(frame)
    assert len(found) == 2
    for truth in quads:
        assert max(iou(truth, quad) for quad in found) > 0.9


def test_a_strip_near_an_outline_s_end_does_not_split_it() -> None:
    # a card beside a sheet of paper two and a half cards wide: the strip between them
    # crosses the outline round both at 28% of its length, outside its middle 40%
    canvas = _canvas("dark")
    card = _lay(canvas, "9S", (150, 240), 0.0)
    left, right = float(card[:, 0].min()), float(card[:, 0].max())
    top, bottom = float(card[:, 1].min()), float(card[:, 1].max())
    sheet_left, sheet_right = right + 0.08 * CARD_WIDTH, right + 2.58 * CARD_WIDTH
    cv2.rectangle(canvas, (round(sheet_left), round(top)), (round(sheet_right), round(bottom)),
                  (235, 235, 235), -1)
    small, scale = work_image(_photographed(canvas), LocateParams().work_width)
    outline = np.array([[left, top], [sheet_right, top], [sheet_right, bottom],
                        [left, bottom]], np.float32) * scale
    assert split_at_gap(small, outline, paper_levels(small)) is None
    shorter = outline.copy()  # the same strip, at 42% of a shorter outline
    shorter[1:3, 0] = (right + 1.4 * CARD_WIDTH) * scale
    assert split_at_gap(small, shorter, paper_levels(small)) is not None


def _outline_round(quads: list[Quad], scale: float) -> Quad:
    """The quadrilateral round two cards lying side by side, in the reduced frame."""
    hull = cv2.convexHull(np.concatenate(quads) * scale).reshape(-1, 2)
    corners = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    assert len(corners) == 4
    return corners.astype(np.float32)


SINGLE_CARDS = [("KS", "felt-green", 12.0, None), ("QH", "dark", 93.0, None),
                ("JD", "wood", -30.0, None), ("7C", "felt-red", 0.0, None),
                ("JC", "felt-blue", 88.0, 0.03), ("JC", "felt-green", 2.0, 0.03),
                ("JC", "dark", 45.0, 0.04), ("JC", "felt-red", -8.0, 0.06),
                ("JC", "wood", 91.0, 0.08), ("JC", "felt-blue", -3.0, 0.1)]


@pytest.mark.parametrize(("code", "background", "angle", "inset"), SINGLE_CARDS)
def test_one_card_is_never_split(code: str, background: str, angle: float,
                                 inset: float | None) -> None:
    # court cards, and pictures dark to within 3% of the card's width of its edges: a line
    # of picture crossing the card has picture beside it, never the card's paper margin
    canvas = _canvas(background, seed=3)
    truth = _lay(canvas, code, (320, 240), angle, inset, width=110.0)
    frame = _photographed(canvas, seed=3)
    small, scale = work_image(frame, LocateParams().work_width)
    assert split_at_gap(small, truth * scale, paper_levels(small)) is None
    found = find_cards(frame)
    assert len(found) == 1
    assert iou(truth, found[0]) > 0.8


@pytest.mark.parametrize(("background", "gap", "angle"),
                         [("felt-blue", 0.2, 88.0), ("felt-green", 0.15, 3.0),
                          ("dark", 0.2, -4.0), ("felt-red", 0.15, -4.0)])
def test_a_card_dark_nearly_to_its_edges_is_one_card(background: str, gap: float,
                                                     angle: float) -> None:
    # the Jack's picture comes within 3% of its width of its edges: in the reduced frame its
    # margin is a pixel or two of blurred paper, and lines of picture cross it from side to
    # side; beside them lies more picture, not paper
    frame, quads = _two_cards(background, gap, angle, 0.03)
    found = find_cards(frame)
    assert len(found) == 2
    for truth in quads:
        assert max(iou(truth, quad) for quad in found) > 0.9


def test_a_court_card_scattered_on_every_table_is_one_card() -> None:
    for number, background in enumerate(("felt-green", "dark", "wood", "felt-red")):
        scene = compose([Placement("KD", (320, 240), 100 + 10 * number, 30.0 * number, 0.05)],
                        SIZE, CardStyle(), background, Effects(blur=0.7, noise=2.0))
        assert len(find_cards(scene.frame)) == 1, background


def _card_on_a_plank(plank: list[tuple[int, int]], centre: tuple[float, float]
                     ) -> tuple[np.ndarray, Quad]:
    """A 6 of diamonds on a pale plank that runs off the frame's right and bottom edges."""
    rng = np.random.default_rng(0)
    canvas = np.empty((SIZE[1], SIZE[0], 3), np.float32)
    canvas[:] = (70, 100, 140)
    canvas += rng.normal(0, 4, canvas.shape).astype(np.float32)
    cv2.fillPoly(canvas, [np.array(plank, np.int32)], (160, 185, 215))
    quad = _lay(canvas, "6D", centre, -5.0, seed=3)
    return _photographed(canvas), quad


@pytest.mark.parametrize(("right", "bottom", "centre"),
                         [(420, 604, (490, 258)), (430, 612, (500, 260)),
                          (440, 608, (490, 258)), (425, 620, (500, 260))])
def test_a_pale_plank_beside_a_card_is_not_a_card(right: int, bottom: int,
                                                  centre: tuple[float, float]) -> None:
    # card and plank make one outline of a card's proportions, cut off by the frame's edge;
    # its raw corners stop a few pixels short of the edge, its fitted sides lie along it
    plank = [(440, 186), (700, 232), (700, right), (bottom, 490), (463, 461)]
    frame, truth = _card_on_a_plank(plank, centre)
    found = find_cards(frame)
    assert len(found) == 1
    assert iou(truth, found[0]) > 0.9


@pytest.mark.parametrize(("background", "gap"), [("felt-green", 0.06), ("dark", 0.08),
                                                  ("felt-blue", 0.06)])
def test_a_paper_bright_bar_beside_a_card_is_not_a_card(background: str, gap: float) -> None:
    # the strip between them splits the outline round both, but the bar is too narrow for a
    # card (2.4 : 1)
    canvas = _canvas(background)
    _lay(canvas, "JC", (280, 240), 0.0, 0.05)
    left = 280 + CARD_WIDTH * (0.5 + gap)
    bar = np.array([[left, 240 - 0.7 * CARD_WIDTH], [left + 0.55 * CARD_WIDTH, 240 - 0.7 *
                    CARD_WIDTH], [left + 0.55 * CARD_WIDTH, 240 + 0.7 * CARD_WIDTH],
                    [left, 240 + 0.7 * CARD_WIDTH]], np.float32)
    cv2.fillPoly(canvas, [bar.round().astype(np.int32)], (235, 235, 235))
    found = find_cards(_photographed(canvas))
    assert found
    assert all(iou(bar, quad) < 0.5 for quad in found)


def test_each_part_must_be_brighter_inside_than_around() -> None:
    # a card beside a sheet of white paper: the strip crosses the outline drawn round the card
    # and as much of the sheet, but that part is no brighter than the sheet round it
    canvas = _canvas("felt-green")
    card = _lay(canvas, "9S", (250, 240), 0.0)
    gap = 0.08 * CARD_WIDTH
    sheet_left = float(card[:, 0].max()) + gap
    cv2.rectangle(canvas, (round(sheet_left), 40), (620, 440), (235, 235, 235), -1)
    frame = _photographed(canvas)
    small, scale = work_image(frame, LocateParams().work_width)
    levels = paper_levels(small)
    outline = np.array(card * scale, np.float32)
    width = float(card[:, 0].max() - card[:, 0].min())
    outline[1:3, 0] += (gap + width) * scale  # the right side, moved one card further right
    assert split_at_gap(small, outline, levels) is not None
    assert len(_split_if_two(small, outline, levels, LocateParams())) == 1


def test_two_cards_too_small_to_be_cards_are_not_split() -> None:
    # each card is smaller than the least card (`LocateParams.min_area`); the two together
    # are not
    canvas = _canvas("dark")
    quads = [_lay(canvas, "4D", (300, 240), 0.0, width=24.0),
             _lay(canvas, "5S", (330, 240), 0.0, width=24.0, seed=2)]
    small, scale = work_image(_photographed(canvas), LocateParams().work_width)
    levels = paper_levels(small)
    outline = _outline_round(quads, scale)
    parts = split_at_gap(small, outline, levels)
    assert parts is not None
    area = LocateParams().min_area * small.shape[0] * small.shape[1]
    assert all(cv2.contourArea(part) < area for part in parts)
    assert len(_split_if_two(small, outline, levels, LocateParams())) == 1
    roomy = LocateParams(min_area=0.5 * LocateParams().min_area)
    assert len(_split_if_two(small, outline, levels, roomy)) == 2


def _grained_planks(tone: tuple[int, int, int], seed: int = 0) -> np.ndarray:
    """A table of one plank of oak with dark wavy late-wood lines 9 pixels apart, lit so that
    its pale wood comes within a few grey levels of a card's shaded paper."""
    ys, xs = np.mgrid[0:SIZE[1], 0:SIZE[0]].astype(np.float32)
    across = -xs * np.sin(0.3) + ys * np.cos(0.3)
    wave = 12 * np.sin(xs / 37.0) + 6 * np.sin(ys / 23.0 + xs / 51.0)
    lines = np.sin((across + wave) * 2 * np.pi / 9.0)
    noise = 0.03 * np.random.default_rng(seed).standard_normal(xs.shape)
    shade = 1.0 + 0.16 * np.sign(lines) * np.abs(lines) ** 3 + noise
    return (shade[..., None] * np.array(tone, np.float32)).astype(np.float32)


def _lay_shaded(canvas: np.ndarray, code: str, centre: tuple[float, float], angle: float
                ) -> Quad:
    """Lay a card whose paper is shaded to 60% (min of B, G, R about 150, as on the webcam)."""
    card = render_card(code, CardStyle(), 200, 3)
    shaded = (card.image.astype(np.float32) * 0.6).astype(np.uint8)
    return lay_card(canvas, shaded, card.alpha, Placement(code, centre, 80.0, angle, 0.0, 3),
                    0.3)


@pytest.mark.parametrize("tone", [(110, 160, 215), (100, 150, 205), (90, 140, 200)])
def test_cards_on_a_pale_grained_plank_are_found(tone: tuple[int, int, int]) -> None:
    # the grain's bright lines come within a few grey levels of the paper and join the
    # card's edge in Canny's edges and in Otsu's masks; the card has no colour, the wood has
    canvas = _grained_planks(tone)
    truths = [_lay_shaded(canvas, "TS", (200, 240), 4.0), _lay_shaded(canvas, "JC", (400, 230),
                                                                      -3.0)]
    found = find_cards(_photographed(canvas))
    assert len(found) == 2
    for truth in truths:
        assert max(iou(truth, quad) for quad in found) > 0.9


@pytest.mark.parametrize("tone", [(110, 160, 215), (130, 175, 225), (150, 190, 235)])
def test_pale_planks_alone_are_no_cards(tone: tuple[int, int, int]) -> None:
    # a pale plank between darker ones, its seams dark; the frame's edges cut it off
    canvas = _grained_planks((60, 90, 130))
    rows = np.arange(SIZE[1])[:, None] - 0.3 * np.arange(SIZE[0])[None, :]
    pale = (rows > 120) & (rows < 250)
    canvas[pale] = _grained_planks(tone, seed=1)[pale]
    canvas[np.abs(rows - 120) < 1.5] *= 0.45
    canvas[np.abs(rows - 250) < 1.5] *= 0.45
    assert find_cards(_photographed(canvas)) == []


def test_paper_keeps_its_brightness_and_wood_felt_and_ink_go_dark() -> None:
    colours = np.array([[[160, 165, 170], [150, 160, 180], [100, 150, 205], [150, 190, 235],
                         [60, 140, 40], [40, 40, 200], [30, 30, 30]]], np.uint8)
    paper, warm_paper, *others = neutral_paper(colours)[0].tolist()
    assert paper >= 140
    assert warm_paper >= 90  # paper under warm light
    assert max(others) <= 30  # wood, the palest plank, felt, red and black ink


def test_every_card_of_a_real_board_on_pale_planks_is_found(dev_photos: Path) -> None:
    # fold 4's board 45 on wood: three of its five cards lie on a pale plank nearly as bright
    # as their paper and were never found by the least channel's outlines
    photos = [(item.path.name, read_image(item.path), item.code)
              for item in read_labels(dev_photos) if dev_fold(item.path) == 4]
    cards, _ = cut_outs(photos)
    scene = composite(cards, "board", 45, CompositeOptions(surface="wood-grain"))
    found = find_cards(scene.frame)
    assert len(found) == len(scene.quads) == 5
    for truth in scene.quads:
        assert max(iou(truth, quad) for quad in found) > 0.85


@pytest.mark.parametrize("background", ["felt-green", "dark", "grey-table"])
def test_cards_the_least_channel_finds_keep_their_outlines(background: str,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    # the colourless outlines only add cards the other outlines missed: they are not
    # averaged into a card's outline found already
    rng = np.random.default_rng(4)
    placements = scatter(["QH", "TS", "7D", "AC"], SIZE, rng, (0.15, 0.22))
    frame = compose(placements, SIZE, CardStyle(), background, Effects(blur=0.8, noise=2.0),
                    seed=2).frame
    found = find_cards(frame)
    monkeypatch.setattr(finder, "_neutral_candidates", lambda *arguments: [])
    without = find_cards(frame)
    assert len(found) == len(without) == 4
    assert all(np.array_equal(mine, theirs) for mine, theirs in zip(found, without, strict=True))


def test_a_grey_card_shaped_patch_on_a_pale_plank_is_no_card() -> None:
    # colourless, so bright in `neutral_paper` against the wood, but no brighter than the
    # plank in the least channel: a printed box or a shadowed sheet, not a card's paper
    canvas = _grained_planks((110, 160, 215))
    patch = np.array([[260, 170], [340, 170], [340, 284], [260, 284]], np.int32)
    cv2.fillConvexPoly(canvas, patch, (96.0, 96.0, 96.0))
    frame = _photographed(canvas)
    reduced, _ = finder._reduced(frame, LocateParams().work_width)
    assert finder._neutral_candidates(reduced, LocateParams())  # the colourless source sees it
    assert find_cards(frame) == []


def test_a_fanned_hand_is_not_taken_for_one_colourless_card() -> None:
    # three overlapping cards on wood: their colourless union's stepped outline overruns a
    # card-shaped quadrilateral by 10%; taken for a whole card, it hid the hand's cards
    scene = stress_scene("overlap", 513)
    located = finder.locate_cards(scene.frame)
    assert len(located) == 3
    assert all(card.covered for card in located)
    for truth in scene.quads:
        assert max(iou(truth, card.quad) for card in located) > 0.8
