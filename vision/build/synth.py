"""Synthetic cards and table scenes: training data, always-run tests and the emulated camera.

Cards are drawn face up in a `CardStyle` (index glyphs from `vision.build.glyphs`, pips in the usual
positions, a framed picture on court cards), then placed on a table background with rotation,
perspective and a shadow, and photographed through `Effects` (uneven light, glare, blur,
sensor noise, colour cast, JPEG). Everything is deterministic given a seed or generator.

`LayoutRenderer` turns "which cards lie on which layout position" into a frame; the emulated
camera in `drivers.camera` takes it as an injected callable (drivers never import vision).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.build.glyphs import GlyphStyle, Mask, random_style, rank_mask, suit_mask
from vision.build.typefaces import TRAINING_FAMILIES
from vision.cards import RED_SUITS, is_code
from vision.edges import Image
from vision.errors import SceneError

Colour = tuple[int, int, int]

BACK: Final = "back"
"""The code that draws a card face down."""
_TABLE_COLOURS: Final[dict[str, tuple[float, float, float]]] = {
    "felt-green": (45, 110, 35), "felt-blue": (120, 70, 30), "felt-red": (40, 40, 130),
    "grey-table": (120, 128, 130), "wood": (50, 95, 150), "dark": (35, 35, 35)}
"""BGR of each table surface."""
BACKGROUNDS: Final = tuple(_TABLE_COLOURS)

_PIPS: Final[dict[str, list[tuple[float, float]]]] = {
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)],
    "5": [(0.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0)],
    "6": [(0.0, 0.0), (1.0, 0.0), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)],
    "7": [(0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)],
    "8": [(0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.5, 0.75), (0.0, 1.0),
          (1.0, 1.0)],
    "9": [(0.0, 0.0), (1.0, 0.0), (0.0, 1 / 3), (1.0, 1 / 3), (0.5, 0.5), (0.0, 2 / 3),
          (1.0, 2 / 3), (0.0, 1.0), (1.0, 1.0)],
    "T": [(0.0, 0.0), (1.0, 0.0), (0.5, 1 / 6), (0.0, 1 / 3), (1.0, 1 / 3), (0.0, 2 / 3),
          (1.0, 2 / 3), (0.5, 5 / 6), (0.0, 1.0), (1.0, 1.0)],
}


@dataclass(frozen=True, slots=True)
class CardStyle:
    """How a deck is printed. Lengths are fractions of the card's width or height.

    Attributes:
        glyphs: Index and pip glyph shapes.
        aspect: Card height over width.
        rank_height: Rank glyph height over card height.
        rank_width: Rank glyph width over its height (before the style's stretch).
        suit_size: Index suit height over rank height.
        index_x: Index column centre over card width.
        index_top: Top of the rank over card height.
        suit_gap: Gap between rank and suit over rank height.
        pip_size: Pip height over card width.
        pip_inset: Distance of the pip columns from the card's side, over card width.
        four_corners: Whether the index is printed in all four corners.
        red: BGR of red ink.
        black: BGR of black ink.
        paper: BGR of the card stock.
    """

    glyphs: GlyphStyle = field(default_factory=GlyphStyle)
    aspect: float = 1.4
    rank_height: float = 0.11
    rank_width: float = 0.62
    suit_size: float = 0.62
    index_x: float = 0.09
    index_top: float = 0.045
    suit_gap: float = 0.12
    pip_size: float = 0.17
    pip_inset: float = 0.3
    four_corners: bool = False
    red: Colour = (40, 30, 190)
    black: Colour = (30, 30, 30)
    paper: Colour = (245, 245, 245)


def random_card_style(rng: np.random.Generator,
                      families: tuple[str, ...] = TRAINING_FAMILIES) -> CardStyle:
    """A random deck style within the ranges of common casino and home decks.

    Args:
        rng: The random source.
        families: Typeface families the ranks may be printed in (`vision.build.typefaces`).
    """
    rank_height = float(rng.uniform(0.075, 0.15) if rng.random() < 0.85 else
                        rng.uniform(0.15, 0.2))  # jumbo index
    style = CardStyle(
        glyphs=random_style(rng, families),
        aspect=float(rng.choice([1.4, 1.4, 1.56])) + float(rng.uniform(-0.02, 0.02)),
        rank_height=rank_height,
        rank_width=float(rng.uniform(0.5, 0.72)),
        suit_size=float(rng.uniform(0.5, 0.85)),
        index_x=float(rng.uniform(0.07, 0.12 if rank_height < 0.15 else 0.14)),
        index_top=float(rng.uniform(0.03, 0.07)),
        suit_gap=float(rng.uniform(0.1, 0.32)),
        pip_size=float(rng.uniform(0.13, 0.2)),
        pip_inset=float(rng.uniform(0.27, 0.34)),
        four_corners=bool(rng.random() < 0.2),
        red=(int(rng.integers(15, 90)), int(rng.integers(5, 75)), int(rng.integers(110, 225))),
        black=_grey(rng, 10, 60, 8),
        paper=_grey(rng, 228, 252, 6),
    )
    return _clear_of_index(style)


_EDGE_MARGIN: Final = 0.035
"""Least paper between the card's side and its index, over card width."""


def index_right(style: CardStyle) -> float:
    """How far the index reaches into the card, over card width.

    The widest rank is condensed to keep `_EDGE_MARGIN` of paper on the outer side (see
    `_draw_index`).
    """
    return max(2 * style.index_x - _EDGE_MARGIN, style.index_x + _suit_width(style) / 2)


def _suit_width(style: CardStyle) -> float:
    """The widest index suit (a broad heart), over card width."""
    return 1.25 * style.suit_size * style.rank_height * style.aspect


def _clear_of_index(style: CardStyle) -> CardStyle:
    """Make the index printable as decks print it.

    The suit stays modest (a jumbo index has a large rank, not a suit a third of the card
    wide) and on the card, and the pips stay clear of the index.
    """
    suit_size = min(style.suit_size, 0.13 / (style.rank_height * style.aspect))
    style = replace(style, suit_size=suit_size)
    style = replace(style, index_x=max(style.index_x, _EDGE_MARGIN + _suit_width(style) / 2))
    reach = index_right(style) + 0.03
    inset = min(max(style.pip_inset, reach + 0.6 * style.pip_size), 0.36)
    size = min(style.pip_size, (inset - reach) / 0.6, (0.5 - inset) / 0.9)
    return replace(style, pip_inset=inset, pip_size=max(0.08, size))


def _grey(rng: np.random.Generator, low: int, high: int, tint: int) -> Colour:
    level = int(rng.integers(low, high))
    blue, green, red = (int(np.clip(level + rng.integers(-tint, tint + 1), 0, 255))
                        for _ in range(3))
    return blue, green, red


@dataclass(frozen=True, slots=True)
class RenderedCard:
    """A card face drawn upright.

    Attributes:
        image: BGR pixels of the card.
        alpha: Coverage (1 on the card, 0 outside its rounded corners).
        rank_box: Where the top-left index's rank is, as (x0, y0, x1, y1) fractions of the
            card's width and height.
        suit_box: Likewise for the index's suit.
    """

    image: Image
    alpha: npt.NDArray[np.float32]
    rank_box: tuple[float, float, float, float]
    suit_box: tuple[float, float, float, float]


def render_card(code: str, style: CardStyle, width: int = 300, seed: int = 0) -> RenderedCard:
    """Draw the card `code` (e.g. "QH"; `BACK` for a face-down card) `width` pixels wide.

    Raises:
        SceneError: `code` is not a card.
    """
    if code == BACK:
        return _render_back(style, width, seed)
    if not is_code(code):
        raise SceneError(f"cannot draw {code!r}: not a card code such as 'QH'")
    height = round(width * style.aspect)
    image = np.empty((height, width, 3), np.uint8)
    image[:] = style.paper
    ink = style.red if code[1] in RED_SUITS else style.black
    suit = _suit_mask(code[1], style.glyphs)
    _draw_face(image, code, style, suit, ink, seed)
    rank_box, suit_box = _draw_indices(image, _rank_mask(code[0], style.glyphs), style, suit,
                                       ink)
    return RenderedCard(image, rounded_alpha(width, height), rank_box, suit_box)


GLYPHS_KEPT: Final = 64
"""Rank and suit masks kept for the next cards (a deck's 13 ranks and 4 suits, several decks)."""


@lru_cache(maxsize=GLYPHS_KEPT)
def _rank_mask(rank: str, glyphs: GlyphStyle) -> Mask:
    """`rank_mask`, drawn once per rank and style: read-only, shared by the cards drawn."""
    mask = rank_mask(rank, glyphs)
    mask.setflags(write=False)
    return mask


@lru_cache(maxsize=GLYPHS_KEPT)
def _suit_mask(suit: str, glyphs: GlyphStyle) -> Mask:
    """`suit_mask`, drawn once per suit and style: read-only, shared by the cards drawn."""
    mask = suit_mask(suit, glyphs)
    mask.setflags(write=False)
    return mask


def _render_back(style: CardStyle, width: int, seed: int) -> RenderedCard:
    """A card back: a white border round a lattice in the deck's colour (blue or red)."""
    height = round(width * style.aspect)
    image = np.empty((height, width, 3), np.uint8)
    image[:] = style.paper
    colour = (150, 60, 20) if seed % 2 == 0 else (40, 30, 170)
    border = max(2, round(0.06 * width))
    pattern = image[border:height - border, border:width - border]
    pattern[:] = colour
    step = max(4, width // 14)
    for offset in range(-height, width + height, step):
        for sign in (1, -1):
            start = (offset, 0) if sign > 0 else (offset, height)
            end = (offset + height, height) if sign > 0 else (offset + height, 0)
            cv2.line(pattern, start, end, style.paper, max(1, step // 5), cv2.LINE_AA)
    none = (0.0, 0.0, 0.0, 0.0)
    return RenderedCard(image, rounded_alpha(width, height), none, none)


def _draw_face(image: Image, code: str, style: CardStyle, suit: Mask, ink: Colour,
               seed: int) -> None:
    height, width = image.shape[:2]
    rank = code[0]
    if rank == "A":
        size = round(0.38 * width)
        _stamp(image, suit, (width / 2, height / 2), size, ink)
    elif rank in _PIPS:
        size = round(style.pip_size * width)
        left, right = style.pip_inset * width, (1 - style.pip_inset) * width
        top, bottom = 0.2 * height, 0.8 * height
        upright, turned = _sized(suit, size), _sized(suit[::-1, ::-1], size)
        for fx, fy in _PIPS[rank]:
            centre = (left + fx * (right - left), top + fy * (bottom - top))
            _place(image, upright if fy <= 0.5 else turned, centre, size, ink)
    else:
        _draw_court(image, style, suit, ink, seed)


def _draw_court(image: Image, style: CardStyle, suit: Mask, ink: Colour, seed: int) -> None:
    """A framed picture of random coloured shapes, standing in for the court figure."""
    height, width = image.shape[:2]
    rng = np.random.default_rng(seed)
    inset = max(0.22, index_right(style) + 0.03)
    x0, x1 = round(inset * width), round((1 - inset) * width)
    y0, y1 = round(0.12 * height), round(0.88 * height)
    palette = [(40, 190, 230), (160, 80, 30), (40, 40, 200), (30, 30, 30), (230, 230, 230)]
    for _ in range(int(rng.integers(12, 22))):
        colour = palette[int(rng.integers(len(palette)))]
        centre = (int(rng.integers(x0, x1)), int(rng.integers(y0, y1)))
        axes = (int(rng.integers(4, width // 6)), int(rng.integers(4, height // 8)))
        cv2.ellipse(image, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1,
                    cv2.LINE_AA)
    frame_mask = np.zeros(image.shape[:2], np.uint8)
    cv2.rectangle(frame_mask, (x0, y0), (x1, y1), 255, -1)
    image[frame_mask == 0] = style.paper
    cv2.rectangle(image, (x0, y0), (x1, y1), ink, max(1, width // 150), cv2.LINE_AA)
    _stamp(image, suit, (x0 + 0.1 * width, y0 + 0.08 * width), round(0.12 * width), ink)


def _draw_indices(image: Image, rank: Mask, style: CardStyle, suit: Mask, ink: Colour
                  ) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
    boxes = _draw_index(image, rank, style, suit, ink, mirror_x=False)
    turned = np.ascontiguousarray(image[::-1, ::-1])
    _draw_index(turned, rank, style, suit, ink, mirror_x=False)
    if style.four_corners:
        _draw_index(turned, rank, style, suit, ink, mirror_x=True)
        image[:] = turned[::-1, ::-1]
        _draw_index(image, rank, style, suit, ink, mirror_x=True)
    else:
        image[:] = turned[::-1, ::-1]
    return boxes


def _draw_index(image: Image, rank: Mask, style: CardStyle, suit: Mask, ink: Colour,
                mirror_x: bool) -> tuple[tuple[float, float, float, float],
                                     tuple[float, float, float, float]]:
    height, width = image.shape[:2]
    rank_h = style.rank_height * height
    rank_w = rank_h * rank.shape[1] / max(rank.shape[0], 1) * style.rank_width / 0.62
    rank_w = min(rank_w, 2 * (style.index_x - _EDGE_MARGIN) * width)  # condensed to fit
    centre_x = (1 - style.index_x if mirror_x else style.index_x) * width
    rank_box = _stamp_box(image, rank, centre_x, style.index_top * height, rank_w, rank_h, ink)
    suit_h = style.suit_size * rank_h
    suit_w = suit_h * suit.shape[1] / max(suit.shape[0], 1)
    suit_top = style.index_top * height + rank_h * (1 + style.suit_gap)
    suit_box = _stamp_box(image, suit, centre_x, suit_top, suit_w, suit_h, ink)
    return ((rank_box[0] / width, rank_box[1] / height, rank_box[2] / width, rank_box[3] / height),
            (suit_box[0] / width, suit_box[1] / height, suit_box[2] / width, suit_box[3] / height))


def _stamp_box(image: Image, mask: Mask, centre_x: float, top: float, width: float,
               height: float, ink: Colour) -> tuple[int, int, int, int]:
    x0, y0 = round(centre_x - width / 2), round(top)
    x1, y1 = x0 + max(1, round(width)), y0 + max(1, round(height))
    _paint(image, cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA), x0, y0,
           ink)
    return x0, y0, x1, y1


def _stamp(image: Image, mask: Mask, centre: tuple[float, float], height: int,
           ink: Colour) -> None:
    _place(image, _sized(mask, height), centre, height, ink)


def _sized(mask: Mask, height: int) -> Mask:
    """`mask` resized to `height` pixels tall (at least one), its proportions kept."""
    width = max(1, round(height * mask.shape[1] / max(mask.shape[0], 1)))
    return cv2.resize(mask, (width, max(1, height)), interpolation=cv2.INTER_AREA)


def _place(image: Image, sized: Mask, centre: tuple[float, float], height: int,
           ink: Colour) -> None:
    """Paint a `_sized` mask `height` tall centred on `centre`."""
    width = sized.shape[1]
    _paint(image, sized, round(centre[0] - width / 2), round(centre[1] - height / 2), ink)


def _paint(image: Image, coverage: Mask, x0: int, y0: int, ink: Colour) -> None:
    """Blend `ink` into `image` where `coverage` says, clipping at the image's edges."""
    height, width = image.shape[:2]
    cx0, cy0 = max(0, -x0), max(0, -y0)
    cx1 = min(coverage.shape[1], width - x0)
    cy1 = min(coverage.shape[0], height - y0)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    alpha = coverage[cy0:cy1, cx0:cx1, None]
    region = image[y0 + cy0:y0 + cy1, x0 + cx0:x0 + cx1].astype(np.float32)
    blended = region * (1 - alpha) + np.array(ink, np.float32) * alpha
    image[y0 + cy0:y0 + cy1, x0 + cx0:x0 + cx1] = np.clip(blended + 0.5, 0, 255).astype(np.uint8)


def rounded_alpha(width: int, height: int) -> npt.NDArray[np.float32]:
    """Coverage of a card with rounded corners (radius 6% of its width), anti-aliased."""
    radius = 0.06 * width
    xs = np.arange(width, dtype=np.float32) + 0.5
    ys = np.arange(height, dtype=np.float32) + 0.5
    dx = np.maximum(np.maximum(radius - xs, xs - (width - radius)), 0.0)
    dy = np.maximum(np.maximum(radius - ys, ys - (height - radius)), 0.0)
    outside = np.sqrt(dx[None, :] ** 2 + dy[:, None] ** 2) - radius
    return np.clip(0.5 - outside, 0.0, 1.0).astype(np.float32)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a card lies in a scene.

    Attributes:
        code: The card, e.g. "QH".
        centre: Centre in frame pixels (x, y).
        width: Card width in frame pixels.
        angle: Rotation in degrees (counter-clockwise on screen).
        tilt: Perspective strength: 0 seen straight from above, 0.15 strongly oblique.
        seed: Seed of the court-card picture and the perspective direction.
    """

    code: str
    centre: tuple[float, float]
    width: float
    angle: float = 0.0
    tilt: float = 0.0
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Effects:
    """Camera and lighting imperfections applied to a composed scene.

    Attributes:
        light_gradient: Brightness falls by up to this fraction across the frame.
        glare: Number of glare spots.
        glare_strength: Added brightness at a glare spot's centre (grey levels).
        blur: Gaussian blur sigma in pixels.
        noise: Sensor noise sigma in grey levels.
        colour_cast: Largest per-channel gain change (0.1 = +-10%).
        jpeg_quality: JPEG quality the frame is compressed at, or 0 for none.
        shadow: Darkness of card shadows (0 none, 1 black).
        saturation: Colour saturation kept (1 all, 0.5 a washed-out webcam).
        exposure: Overall brightness gain (below 1 a dim room, above 1 overexposed).
        downscale: The sensor's resolution is the frame's divided by this (1 full); the
            frame is enlarged back after noise and JPEG, as a cheap camera's driver does.
        white_balance: Gain of B, G and R (a phone's warm tungsten or cool daylight).
        denoise: Sigma in pixels of the smoothing a phone's noise reduction applies after
            the sensor's noise (0 none).
        sharpen: Strength of the unsharp mask a phone applies after noise reduction
            (0 none, 1 doubles the detail above the mask's 1.5-pixel blur).
    """

    light_gradient: float = 0.0
    glare: int = 0
    glare_strength: float = 90.0
    blur: float = 0.0
    noise: float = 0.0
    colour_cast: float = 0.0
    jpeg_quality: int = 0
    shadow: float = 0.35
    saturation: float = 1.0
    exposure: float = 1.0
    downscale: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    denoise: float = 0.0
    sharpen: float = 0.0


def random_effects(rng: np.random.Generator, severity: float = 1.0) -> Effects:
    """Random imperfections; `severity` 0 gives a clean frame, 1 a typical poor camera."""
    return Effects(
        light_gradient=float(rng.uniform(0, 0.35) * severity),
        glare=int(rng.random() < 0.3 * severity),
        glare_strength=float(rng.uniform(40, 110)),
        blur=float(rng.uniform(0, 1.6) * severity),
        noise=float(rng.uniform(0, 6) * severity),
        colour_cast=float(rng.uniform(0, 0.15) * severity),
        jpeg_quality=int(rng.integers(55, 95)) if rng.random() < 0.7 * severity else 0,
        shadow=float(rng.uniform(0.1, 0.5)),
        saturation=float(1.0 - rng.uniform(0, 0.55) * severity),
    )


@dataclass(frozen=True, slots=True)
class Scene:
    """A composed frame and the truth about it.

    Attributes:
        frame: The BGR frame.
        codes: The card of each placement, in placement order.
        quads: Each card's true corners (top-left, top-right, bottom-right, bottom-left of the
            upright card) in frame pixels.
        cards: Each card as drawn (its index boxes say where the glyphs are).
        style: The deck's printing.
    """

    frame: Image
    codes: list[str]
    quads: list[npt.NDArray[np.float32]]
    cards: list[RenderedCard]
    style: CardStyle | None = None


def compose(placements: Sequence[Placement], size: tuple[int, int], style: CardStyle,
            background: str = "felt-green", effects: Effects | None = None,
            seed: int = 0) -> Scene:
    """Lay cards on a table background and photograph them.

    Args:
        placements: The cards, bottom first (later ones cover earlier ones).
        size: Frame (width, height).
        style: The deck's printing.
        background: One of `BACKGROUNDS`.
        effects: Camera imperfections; None for a clean frame.
        seed: Seed of the background texture and the effects' random parts.
    """
    rng = np.random.default_rng(seed)
    effects = effects or Effects()
    canvas = table_background(background, size, rng).astype(np.float32)
    quads, cards = [], []
    for placement in placements:
        card = render_card(placement.code, style, render_width(placement.width),
                           placement.seed)
        quads.append(lay_card(canvas, card.image, card.alpha, placement, effects.shadow))
        cards.append(card)
    frame = photograph(canvas, effects, rng)
    return Scene(frame, [p.code for p in placements], quads, cards, style)


def render_width(frame_width: float) -> int:
    """The width a card `frame_width` pixels wide in the frame is drawn at before it is laid.

    At least 200 pixels, so that small cards are downsampled as a lens does.
    """
    return max(200, round(frame_width * 1.5))


def card_quad(placement: Placement, aspect: float) -> npt.NDArray[np.float32]:
    """The corners in frame pixels of a card of `aspect` (height over width) at `placement`.

    Top-left, top-right, bottom-right, bottom-left of the upright card.
    """
    half_w, half_h = placement.width / 2, placement.width * aspect / 2
    corners = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h],
                        [-half_w, half_h]])
    rng = np.random.default_rng(placement.seed + 7919)
    direction = rng.normal(size=2)
    direction /= max(float(np.linalg.norm(direction)), 1e-9)
    depth = 1.0 + placement.tilt * (corners @ direction) / max(half_w, half_h)
    corners = corners * depth[:, None]
    theta = np.radians(placement.angle)
    rotation = np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]])
    return (corners @ rotation.T + np.array(placement.centre)).astype(np.float32)


def laid_extent(quad: npt.NDArray[np.float32], card_width: float,
                shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The pixels `lay_card` may change for a card `card_width` wide at `quad`.

    (left, top, right, bottom), right and bottom excluded, within a canvas of `shape`
    (height, width): the card and its shadow's reach; empty when off the canvas.
    """
    margin = int(4 * max(1.0, card_width * 0.02)) + 2
    x0, y0 = (int(v) for v in np.maximum(np.floor(quad.min(axis=0)).astype(int) - margin, 0))
    x1 = min(int(np.ceil(quad[:, 0].max())) + margin, shape[1])
    y1 = min(int(np.ceil(quad[:, 1].max())) + margin, shape[0])
    return x0, y0, x1, y1


def lay_card(canvas: npt.NDArray[np.float32], image: Image, alpha: npt.NDArray[np.float32],
             placement: Placement, shadow: float) -> npt.NDArray[np.float32]:
    """Paste an upright card onto `canvas` in place; returns the card's corners.

    The card's pixels are `image`, its coverage `alpha`; it lies at `placement`, with a soft
    shadow of darkness `shadow`.
    """
    height, width = alpha.shape
    quad = card_quad(placement, height / width)
    offset = max(1.0, placement.width * 0.02)
    x0, y0, x1, y1 = laid_extent(quad, placement.width, canvas.shape[:2])
    if x1 <= x0 or y1 <= y0:
        return quad
    source = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    transform = cv2.getPerspectiveTransform(source, quad - np.array([x0, y0], np.float32))
    size = (x1 - x0, y1 - y0)
    region = canvas[y0:y1, x0:x1]
    cover = cv2.warpPerspective(alpha, transform, size, flags=cv2.INTER_LINEAR)
    if shadow > 0:
        moved = np.array([[1, 0, offset], [0, 1, offset]], np.float32)
        soft = cv2.GaussianBlur(cv2.warpAffine(cover, moved, size), (0, 0), offset)
        region *= _each_channel(1.0 - shadow * soft, region)
    face = cv2.warpPerspective(image, transform, size, flags=cv2.INTER_LINEAR)
    region *= _each_channel(1.0 - cover, region)
    region += face.astype(np.float32) * _each_channel(cover, region)
    return quad


def _each_channel(weights: npt.NDArray[np.float32],
                  region: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """`weights` (one a pixel) repeated for each of `region`'s channels, laid out as it is.

    Against a broadcast `weights[..., None]` numpy loops over one pixel's three channels at a
    time; with the same layout it runs along whole rows: the same products, four times faster.
    """
    return np.repeat(weights[..., None], region.shape[2], axis=2)


def table_background(kind: str, size: tuple[int, int], rng: np.random.Generator) -> Image:
    """A table surface: coloured felt, the light grey table of the dev photos, wood or dark.

    Raises:
        SceneError: `kind` is not one of `BACKGROUNDS`.
    """
    if kind not in _TABLE_COLOURS:
        raise SceneError(f"unknown background {kind!r}; choose one of {', '.join(BACKGROUNDS)}")
    width, height = size
    base = np.array(_TABLE_COLOURS[kind], np.float32) * rng.uniform(0.85, 1.15)
    coarse = cv2.resize(rng.standard_normal((max(2, height // 40), max(2, width // 40)),
                                            np.float32), size, interpolation=cv2.INTER_CUBIC)
    grain = rng.random((height, width), np.float32) * np.float32(3.4) - np.float32(1.7)
    texture = 6.0 * coarse + (5.0 if kind.startswith("felt") else 2.0) * grain
    if kind == "wood":
        rows = np.arange(height, dtype=np.float32)[:, None]
        texture += 14.0 * np.sin(rows / 7.0 + 3.0 * coarse)
    image = base[None, None, :] * (1.0 + texture[..., None] / 100.0)
    return np.clip(image, 0, 255).astype(np.uint8)


def photograph(canvas: npt.NDArray[np.float32], effects: Effects,
               rng: np.random.Generator) -> Image:
    """The frame a camera with `effects` takes of the scene `canvas` (float BGR, changed)."""
    height, width = canvas.shape[:2]
    gain = np.full((1, 1, 3), effects.exposure, np.float32)
    gain *= np.array(effects.white_balance, np.float32)
    if effects.colour_cast > 0:
        gain *= rng.uniform(1 - effects.colour_cast, 1 + effects.colour_cast, 3
                            ).astype(np.float32)
    if effects.light_gradient > 0:
        gain = gain * _light_ramp(width, height, effects.light_gradient, rng)[..., None]
    if effects.light_gradient > 0 or np.any(gain != 1):  # a gain of 1 changes no pixel
        canvas *= gain
    for _ in range(effects.glare):
        _add_glare(canvas, effects.glare_strength, rng)
    if effects.saturation < 1:
        grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
        canvas = cv2.addWeighted(canvas, effects.saturation, cv2.merge([grey, grey, grey]),
                                 1.0 - effects.saturation, 0.0)
    if effects.blur > 0:
        canvas = cv2.GaussianBlur(canvas, (0, 0), effects.blur)
    if effects.downscale > 1:
        small = (max(8, round(width / effects.downscale)),
                 max(8, round(height / effects.downscale)))
        canvas = cv2.resize(canvas, small, interpolation=cv2.INTER_AREA)
    if effects.noise > 0:
        noise = rng.standard_normal(canvas.shape[:2], np.float32)
        canvas += (np.float32(effects.noise) * noise)[..., None]
    canvas = _phone_processing(canvas, effects)
    frame = develop(canvas)
    if effects.jpeg_quality:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, effects.jpeg_quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
        frame = frame if decoded is None else decoded
    if frame.shape[:2] != (height, width):
        frame = cv2.resize(frame, (width, height), interpolation=cv2.INTER_LINEAR)
    return frame


def develop(canvas: npt.NDArray[np.float32]) -> Image:
    """The 8-bit pixels of a scene's light (float BGR): each rounded and clipped, alone.

    All `photograph` does with `Effects()`: a pixel depends on its own light only, so a part
    of a scene develops as the same part of the whole scene's frame.
    """
    return np.clip(canvas + 0.5, 0, 255).astype(np.uint8)


def _phone_processing(canvas: npt.NDArray[np.float32],
                      effects: Effects) -> npt.NDArray[np.float32]:
    """A phone's noise reduction, then its unsharp mask (haloes along every edge)."""
    if effects.denoise > 0:
        canvas = cv2.GaussianBlur(canvas, (0, 0), effects.denoise)
    if effects.sharpen > 0:
        soft = cv2.GaussianBlur(canvas, (0, 0), 1.5)
        canvas = cv2.addWeighted(canvas, 1.0 + effects.sharpen, soft, -effects.sharpen, 0.0)
    return canvas


def _light_ramp(width: int, height: int, strength: float,
                rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """Brightness falling linearly by up to `strength` across the frame, in a random direction."""
    direction = rng.normal(size=2)
    xs = np.linspace(-0.5, 0.5, width, dtype=np.float32)[None, :] * np.float32(direction[0])
    ys = np.linspace(-0.5, 0.5, height, dtype=np.float32)[:, None] * np.float32(direction[1])
    ramp = xs + ys
    ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-6)
    return (1.0 - strength * ramp).astype(np.float32)


def _add_glare(canvas: npt.NDArray[np.float32], strength: float,
               rng: np.random.Generator) -> None:
    height, width = canvas.shape[:2]
    centre = (rng.uniform(0, width), rng.uniform(0, height))
    radius = rng.uniform(0.05, 0.2) * max(width, height)
    across = np.exp(-((np.arange(width, dtype=np.float32) - centre[0]) ** 2) / (2 * radius**2))
    down = np.exp(-((np.arange(height, dtype=np.float32) - centre[1]) ** 2) / (2 * radius**2))
    canvas += (np.float32(strength) * down[:, None] * across[None, :])[..., None]


class LayoutRenderer:
    """Draws the cards on each layout position as an overhead camera would see them.

    Cards of one position lie side by side, left to right in the order dealt, around the
    position's centre (wrapping to a new row after `per_row`).

    Args:
        positions: Centre (x, y) in frame pixels of each position by name; None places the
            positions named in each call on an arc, "dealer" (if present) at the top.
        size: Frame (width, height).
        card_width: Card width in pixels.
        style: Deck printing; None for the default style.
        background: Table surface, one of `BACKGROUNDS`.
        effects: Camera imperfections; None for a clean frame.
        seed: Seed of the texture and effects (the same call gives the same frame).
        per_row: Cards per row at one position.
    """

    def __init__(self, positions: Mapping[str, tuple[float, float]] | None = None, *,
                 size: tuple[int, int] = (1280, 960), card_width: float = 110.0,
                 style: CardStyle | None = None, background: str = "felt-green",
                 effects: Effects | None = None, seed: int = 0, per_row: int = 4) -> None:
        if background not in BACKGROUNDS:
            raise SceneError(f"unknown background {background!r}")
        self._positions = dict(positions) if positions is not None else None
        self._size = size
        self._card_width = card_width
        self._style = style or CardStyle()
        self._background = background
        self._effects = effects
        self._seed = seed
        self._per_row = per_row

    def __call__(self, codes_by_position: Mapping[str, Sequence[str]]) -> Image:
        """Return the frame showing `codes_by_position` (position name -> cards dealt there).

        Raises:
            SceneError: A position is not on the layout, or a code is not a card.
        """
        return self.scene(codes_by_position).frame

    def scene(self, codes_by_position: Mapping[str, Sequence[str]]) -> Scene:
        """Like calling the renderer, but also return where each card lies."""
        centres = self._centres(list(codes_by_position))
        placements: list[Placement] = []
        for name, codes in codes_by_position.items():
            placements += self._spread(centres[name], codes, len(placements))
        return compose(placements, self._size, self._style, self._background, self._effects,
                       self._seed)

    def _centres(self, names: list[str]) -> dict[str, tuple[float, float]]:
        if self._positions is not None:
            unknown = [name for name in names if name not in self._positions]
            if unknown:
                raise SceneError(f"position {unknown[0]!r} is not on the layout "
                                  f"(known: {', '.join(sorted(self._positions))})")
            return self._positions
        return arc_positions(names, self._size)

    def _spread(self, centre: tuple[float, float], codes: Sequence[str],
                first_seed: int) -> list[Placement]:
        step = self._card_width * 1.15
        rows = (len(codes) + self._per_row - 1) // self._per_row
        placements = []
        for number, code in enumerate(codes):
            row, column = divmod(number, self._per_row)
            in_row = min(self._per_row, len(codes) - row * self._per_row)
            x = centre[0] + (column - (in_row - 1) / 2) * step
            y = centre[1] + (row - (rows - 1) / 2) * self._card_width * 1.5
            placements.append(Placement(code, (x, y), self._card_width,
                                        seed=first_seed + number))
        return placements


def arc_positions(names: Sequence[str], size: tuple[int, int]) -> dict[str, tuple[float, float]]:
    """Default layout: "dealer" top centre, the other positions on an arc below, left to right."""
    width, height = size
    centres: dict[str, tuple[float, float]] = {}
    others = [name for name in names if name != "dealer"]
    if "dealer" in names:
        centres["dealer"] = (width / 2, height * 0.2)
    for number, name in enumerate(others):
        fraction = (number + 0.5) / max(len(others), 1)
        angle = np.pi * (0.85 - 0.7 * fraction)
        centres[name] = (width / 2 + 0.38 * width * float(np.cos(angle)),
                         height * 0.3 + 0.45 * height * float(np.sin(angle)))
    return centres


def scatter(codes: Sequence[str], size: tuple[int, int], rng: np.random.Generator,
            width_range: tuple[float, float] = (0.16, 0.3), tilt: float = 0.08,
            attempts: int = 200) -> list[Placement]:
    """Random non-overlapping placements of `codes` inside a frame of `size`.

    Card widths are drawn from `width_range` (fractions of the frame's shorter side), angles
    from the full circle and perspective up to `tilt`. Cards that find no free spot after
    `attempts` tries are left out.
    """
    width, height = size
    placed: list[Placement] = []
    for code in codes:
        for _ in range(attempts):
            card_w = float(rng.uniform(*width_range)) * min(width, height)
            radius = card_w * 0.87
            centre = (float(rng.uniform(radius, width - radius)),
                      float(rng.uniform(radius, height - radius)))
            if all(np.hypot(centre[0] - p.centre[0], centre[1] - p.centre[1]) >
                   radius + p.width * 0.87 for p in placed):
                placed.append(Placement(code, centre, card_w, float(rng.uniform(0, 360)),
                                        float(rng.uniform(0, tilt)), int(rng.integers(1 << 30))))
                break
    return placed

