"""Frames of many real cards: cards cut out of labelled photos, laid on a drawn table.

A photo of one card (`cut_out`) gives the card's own pixels, straightened to an upright
rectangle with rounded corners. `composite` lays several such cards, as a hold'em table shows
them, on a procedurally drawn surface (`SURFACES`: dark cloth, green felt, wood grain), turns
and places each, looks at the table through an oblique camera (one perspective transform for
the whole frame, as a camera mounted off the vertical sees it), and photographs the result
through mild camera imperfections. The truth (each card's code and outline) comes with it, so
`vision.build.evaluate.Tally.add_scene` scores a reading of it.

Layouts (`LAYOUTS`):

* "board": the five community cards in a row, the row turned a little (or seen from the far
  side of the table), each card a little out of line.
* "hands": two to four players' exposed hands of two cards side by side, each hand turned at
  random (players sit all around the table), the hands apart from each other.

Everything is deterministic in the composite's number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.build.synth import (
    Effects,
    Image,
    Placement,
    Scene,
    card_quad,
    lay_card,
    photograph,
    rounded_alpha,
    table_background,
)
from vision.errors import SceneError
from vision.locate import Quad, locate_cards, order_corners

CUT_SCALE: Final = 1.01
"""A cut-out's outline is the finder's, scaled about its centre by this. On the webcam photos
the finder's outline lies a pixel or two inside the card's soft edge; cut that tight, an index
lies against the cut edge and is taken for a sliver of it. Cut 2% wider, the hair of table
kept joins the index to the dark table beyond on some cards (a 9H's pips were then read as its
index, and wrongly). 1% keeps the index clear on both counts."""
CUT_WIDTH: Final = 300
"""Width in pixels of a card cut out of a photo (its height follows the card's proportions)."""
CARD_ASPECT: Final = 1.42
"""A cut-out card's height over its width (the dev deck's; only used to keep cards in frame)."""
MAX_CORNER_ERROR: Final = 2.5
"""Degrees by which a cut-out's outline's corners may be off square."""
MAX_SIDE_MISMATCH: Final = 0.05
"""Share by which a cut-out's outline's opposite sides may differ."""
MIN_GAP: Final = 0.06
"""Cards of a composite lie at least about half this share of a card's width apart. Cards that
touch along a side have one outline of a card's proportions (two upright cards side by side
make a 1.43 : 1 rectangle); the finder does not split them (see `vision/README.md`)."""
LAYOUTS: Final = ("board", "hands")
"""The kinds of composite frame (see the module's description)."""


@dataclass(frozen=True, slots=True)
class CutOut:
    """A card's pixels cut out of a photo, upright (or upside down: both index corners show).

    Attributes:
        code: The card, e.g. "QH".
        image: BGR pixels of the straightened card.
        alpha: Coverage (1 on the card, 0 outside its rounded corners).
        source: Where the pixels come from (a file name), for messages.
    """

    code: str
    image: Image
    alpha: npt.NDArray[np.float32]
    source: str


def cut_out(photo: Image, code: str, source: str) -> CutOut:
    """Cut the one card of `photo` out of it, straightened.

    The card's outline is the one `vision.locate.locate_cards` finds, grown by `CUT_SCALE`.

    Raises:
        SceneError: The finder does not find exactly one whole card in the photo.
    """
    found = [card for card in locate_cards(photo) if not card.covered]
    if len(found) != 1:
        raise SceneError(f"{source}: expected one card to cut out, the finder found "
                         f"{len(found)}")
    quad = order_corners(found[0].quad)
    problem = _misfit(quad)
    if problem:
        raise SceneError(f"{source}: the card's outline is not trusted for a cut-out ({problem})")
    centre = quad.mean(axis=0)
    quad = (centre + CUT_SCALE * (quad - centre)).astype(np.float32)
    short = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[2])) / 2
    long = (np.linalg.norm(quad[2] - quad[1]) + np.linalg.norm(quad[0] - quad[3])) / 2
    width, height = CUT_WIDTH, round(CUT_WIDTH * float(long / short))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    transform = cv2.getPerspectiveTransform(quad, target)
    image = cv2.warpPerspective(photo, transform, (width, height), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_REPLICATE)
    return CutOut(code, image, rounded_alpha(width, height), source)


def cut_outs(photos: Sequence[tuple[str, Image, str]]) -> tuple[list[CutOut], list[str]]:
    """Cut the card out of each (source, photo, code).

    Returns the cut-outs and one line for each photo that gave none (see `cut_out`).
    """
    cards, problems = [], []
    for source, photo, code in photos:
        try:
            cards.append(cut_out(photo, code, source))
        except SceneError as error:
            problems.append(str(error))
    return cards, problems


def _misfit(quad: Quad) -> str:
    """Why an outline seen from nearly above is no card's true outline, or "".

    A card photographed to be enrolled is seen nearly square-on, so its outline's corners are
    nearly right angles and its opposite sides nearly equal; an outline the finder fitted
    askew (a side along a shadow) is neither, and its cut-out would lose an index.
    """
    sides = [quad[(index + 1) % 4] - quad[index] for index in range(4)]
    lengths = [float(np.linalg.norm(side)) for side in sides]
    for index in range(4):
        cosine = float(np.dot(sides[index - 1], sides[index])) / (
            lengths[index - 1] * lengths[index])
        off = abs(90.0 - float(np.degrees(np.arccos(np.clip(-cosine, -1.0, 1.0)))))
        if off > MAX_CORNER_ERROR:
            return f"a corner is {off:.1f} degrees off square"
    for first, second in ((0, 2), (1, 3)):
        mismatch = abs(lengths[first] / lengths[second] - 1.0)
        if mismatch > MAX_SIDE_MISMATCH:
            return f"opposite sides differ by {mismatch:.0%}"
    return ""


def dark_cloth(size: tuple[int, int], rng: np.random.Generator) -> Image:
    """A dark woven cloth: nearly black, a fine weave, soft folds catching the light."""
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    period = float(rng.uniform(2.5, 4.0))
    weave = np.sin(xs * (2 * np.pi / period)) * np.sin(ys * (2 * np.pi / period))
    folds = _smooth_noise(size, rng, 90.0)
    grain = rng.standard_normal((height, width)).astype(np.float32)
    level = float(rng.uniform(18, 45)) * (1.0 + 0.35 * folds) + 3.0 * weave + 2.5 * grain
    tint = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    return np.clip(level[..., None] * tint, 0, 255).astype(np.uint8)


def green_felt(size: tuple[int, int], rng: np.random.Generator) -> Image:
    """A casino's green felt (the synthetic decks' own surface)."""
    return table_background("felt-green", size, rng)


def wood_grain(size: tuple[int, int], rng: np.random.Generator) -> Image:
    """A wooden table top, from pale oak to dark walnut, the grain in any direction.

    Planks of different tones, wavy grain lines, fine fibres, varnish sheen.
    """
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    theta = float(rng.uniform(0, np.pi))
    across = -xs * np.float32(np.sin(theta)) + ys * np.float32(np.cos(theta))
    plank_width = float(rng.uniform(80, 220))
    plank = np.floor((across - across.min()) / plank_width).astype(np.int32)
    tones = rng.uniform(0.8, 1.2, int(plank.max()) + 1).astype(np.float32)
    warp = 25.0 * _smooth_noise(size, rng, 120.0) + 6.0 * _smooth_noise(size, rng, 25.0)
    spacing = float(rng.uniform(5, 14))
    lines = np.sin((across + warp) * np.float32(2 * np.pi / spacing))
    lines = np.sign(lines) * np.abs(lines) ** 3  # sharp dark late-wood lines
    fibres = cv2.GaussianBlur(rng.standard_normal((height, width)).astype(np.float32), (0, 0),
                              0.7)
    gap = np.abs((across - across.min()) % plank_width) < 1.5
    shade = (tones[plank] * (1.0 + 0.16 * lines + 0.05 * fibres)
             + 0.12 * _smooth_noise(size, rng, 200.0))
    shade[gap] *= 0.45
    base = np.array([rng.uniform(25, 80), rng.uniform(55, 130), rng.uniform(95, 190)],
                    np.float32)
    return np.clip(shade[..., None] * base, 0, 255).astype(np.uint8)


def _smooth_noise(size: tuple[int, int], rng: np.random.Generator,
                  scale: float) -> npt.NDArray[np.float32]:
    """Noise of about unit spread varying over `scale` pixels."""
    width, height = size
    coarse = rng.standard_normal((max(2, round(height / scale)) + 1,
                                  max(2, round(width / scale)) + 1)).astype(np.float32)
    return cv2.resize(coarse, size, interpolation=cv2.INTER_CUBIC)


SURFACES: Final[dict[str, Callable[[tuple[int, int], np.random.Generator], Image]]] = {
    "dark-cloth": dark_cloth, "felt-green": green_felt, "wood-grain": wood_grain}
"""The table surfaces composites are laid on, by name."""


@dataclass(frozen=True, slots=True)
class CompositeOptions:
    """How a composite frame is drawn.

    Attributes:
        size: Frame (width, height).
        surface: One of `SURFACES`, or "" for one drawn at random.
        oblique: Largest shift of a frame corner by the camera's perspective, as a fraction of
            the frame's width (0 a camera straight above the table).
        severity: Camera imperfections (`vision.build.synth.random_effects`' scale).
    """

    size: tuple[int, int] = (640, 480)
    surface: str = ""
    oblique: float = 0.08
    severity: float = 0.4


def composite(cards: Sequence[CutOut], layout: str, number: int,
              options: CompositeOptions | None = None) -> Scene:
    """A frame of `layout` showing cards drawn from `cards` (a card's code appears once).

    Args:
        cards: Cut-outs to draw from, several per code allowed (one is picked at random).
        layout: One of `LAYOUTS`.
        number: The composite's number: the same number draws the same frame.
        options: Frame size, surface, obliqueness and camera; None for the defaults.

    Raises:
        SceneError: Unknown layout or surface, or fewer distinct cards than the layout needs.
    """
    options = options or CompositeOptions()
    if layout not in LAYOUTS:
        raise SceneError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    if options.surface and options.surface not in SURFACES:
        raise SceneError(f"unknown surface {options.surface!r}; choose one of "
                         f"{', '.join(SURFACES)}")
    rng = np.random.default_rng([LAYOUTS.index(layout), number])
    surface = options.surface or tuple(SURFACES)[int(rng.integers(len(SURFACES)))]
    by_code: dict[str, list[CutOut]] = {}
    for card in cards:
        by_code.setdefault(card.code, []).append(card)
    transform = _camera_transform(options.size, options.oblique, rng)
    placements = _placements(layout, options.size, transform, rng)
    if len(placements) > len(by_code):
        raise SceneError(f"a {layout} composite needs {len(placements)} different cards, "
                         f"{len(by_code)} given")
    codes = [str(c) for c in rng.choice(sorted(by_code), len(placements), replace=False)]
    chosen = [by_code[code][int(rng.integers(len(by_code[code])))] for code in codes]
    canvas = SURFACES[surface](options.size, rng).astype(np.float32)
    shadow = float(rng.uniform(0.1, 0.45))
    quads = [lay_card(canvas, card.image, card.alpha, replace(spot, code=card.code), shadow)
             for card, spot in zip(chosen, placements, strict=True)]
    canvas = cv2.warpPerspective(canvas, transform, options.size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
    frame = photograph(canvas, _camera_effects(rng, options.severity), rng)
    return Scene(frame, codes, [_seen(quad, transform) for quad in quads], [], None)


def _placements(layout: str, size: tuple[int, int], transform: npt.NDArray[np.float64],
                rng: np.random.Generator, attempts: int = 100) -> list[Placement]:
    """The cards' places on the table.

    Drawn again until every card shows whole in the frame and the cards lie apart (by about
    `MIN_GAP` of a card's width at least).

    Raises:
        SceneError: No drawing within `attempts` fits the frame.
    """
    margin = 0.02 * min(size)
    for _ in range(attempts):
        placements = _LAYOUT[layout](size, rng)
        quads = [_seen(card_quad(p, CARD_ASPECT), transform) for p in placements]
        corners = np.concatenate(quads)
        if (corners.min() >= margin and corners[:, 0].max() <= size[0] - margin
                and corners[:, 1].max() <= size[1] - margin and not _any_overlap(quads)):
            return placements
    raise SceneError(f"no {layout} of cards fits a frame of {size[0]}x{size[1]}")


def _any_overlap(quads: list[npt.NDArray[np.float32]]) -> bool:
    """Whether any two of the outlines, grown by `MIN_GAP` of their size, share any area."""
    grown = [(q.mean(axis=0) + (1 + MIN_GAP) * (q - q.mean(axis=0))).astype(np.float32)
             for q in quads]
    return any(cv2.intersectConvexConvex(first, second)[0] > 0.0
               for number, first in enumerate(grown) for second in grown[number + 1:])


def _seen(quad: npt.NDArray[np.float32], transform: npt.NDArray[np.float64]
          ) -> npt.NDArray[np.float32]:
    """Where the camera sees the table's points `quad`."""
    return cv2.perspectiveTransform(quad.reshape(1, -1, 2).astype(np.float32), transform
                                    ).reshape(-1, 2)


def _camera_effects(rng: np.random.Generator, severity: float) -> Effects:
    """Light unevenness, blur, noise, a colour cast and JPEG; a glare spot now and then."""
    return Effects(
        light_gradient=float(rng.uniform(0, 0.35) * severity),
        glare=int(rng.random() < 0.2 * severity), glare_strength=float(rng.uniform(30, 70)),
        blur=float(rng.uniform(0.3, 0.3 + 1.2 * severity)),
        noise=float(rng.uniform(1, 1 + 5 * severity)),
        colour_cast=float(rng.uniform(0, 0.15) * severity),
        jpeg_quality=int(rng.integers(70, 95)), shadow=0.0,
        saturation=float(1.0 - rng.uniform(0, 0.4) * severity))


def _camera_transform(size: tuple[int, int], oblique: float, rng: np.random.Generator
                      ) -> npt.NDArray[np.float64]:
    """The perspective transform from table to frame of a camera off the vertical.

    Each frame corner looks at a point of the table drawn inwards by up to `oblique` of the
    width (so the frame never sees past the drawn table).
    """
    width, height = size
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    inwards = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], np.float32)
    seen = frame + inwards * rng.uniform(0, oblique * width, (4, 2)).astype(np.float32)
    return np.asarray(cv2.getPerspectiveTransform(seen, frame), np.float64)


def _board(size: tuple[int, int], rng: np.random.Generator) -> list[Placement]:
    """Five cards in a row across the middle of the frame."""
    gap = float(rng.uniform(0.06, 0.22))
    width = 0.72 * size[0] / (5 + 4 * gap)
    row_angle = float(rng.uniform(-12, 12)) + 180.0 * int(rng.integers(2))
    centre = np.array(size, np.float64) / 2 + rng.uniform(-0.04, 0.04, 2) * size[0]
    direction = np.array([np.cos(np.radians(row_angle)), -np.sin(np.radians(row_angle))])
    spots = []
    for place in range(5):
        along = (place - 2) * width * (1 + gap)
        jitter = rng.uniform(-0.03, 0.03, 2) * width
        x, y = centre + along * direction + jitter
        spots.append(Placement("", (float(x), float(y)), width * float(rng.uniform(0.98, 1.02)),
                               row_angle + float(rng.uniform(-4, 4))))
    return spots


def _hands(size: tuple[int, int], rng: np.random.Generator, attempts: int = 400
           ) -> list[Placement]:
    """Two to four hands of two cards side by side, apart, each turned at random."""
    count = int(rng.integers(2, 5))
    width = min(size) * float(rng.uniform(0.17, 0.2))
    gap = float(rng.uniform(0.05, 0.2))
    reach = np.hypot(width * (1 + gap / 2), width * 0.7)  # hand's centre to its far corner
    centres: list[npt.NDArray[np.float64]] = []
    spots: list[Placement] = []
    for _ in range(attempts):
        if len(centres) == count:
            break
        centre = rng.uniform([reach, reach], [size[0] - reach, size[1] - reach])
        if any(np.hypot(*(centre - other)) < 2 * reach + 4 for other in centres):
            continue
        centres.append(centre)
        angle = float(rng.uniform(0, 360))
        direction = np.array([np.cos(np.radians(angle)), -np.sin(np.radians(angle))])
        for side in (-0.5, 0.5):
            x, y = centre + side * width * (1 + gap) * direction
            spots.append(Placement("", (float(x), float(y)), width,
                                   angle + float(rng.uniform(-3, 3))))
    return spots


_LAYOUT: Final[dict[str, Callable[[tuple[int, int], np.random.Generator], list[Placement]]]] = {
    "board": _board, "hands": _hands}
