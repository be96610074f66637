"""Draw rank and suit glyphs as ink masks, in many styles, for synthetic cards.

Ranks are drawn either from this package's own stroke outlines (`vision.build.strokes`) at varied
weights, widths, slants and with or without serifs, or in a real typeface (`vision.build.typefaces`,
OpenCV 5's font engine), made bolder or lighter; "10" may be printed as "T". Suits are drawn
from circles, polygons and curves whose proportions vary with the style. Every function
returns a float32 mask (1 = ink) cropped tightly to the glyph.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.build.strokes import strokes_of
from vision.build.typefaces import STROKE, TRAINING_FAMILIES, face_named, faces_of, text_mask

Mask = npt.NDArray[np.float32]

_CANVAS: Final = 200
_SUPER: Final = 4


@dataclass(frozen=True, slots=True)
class GlyphStyle:
    """How a deck draws its index glyphs.

    Attributes:
        variant: Bit mask choosing the drawing of each character (`vision.build.strokes`).
        serif: Whether stroke ends carry serifs.
        italic: Whether the rank font is slanted.
        weight: Stroke thickness relative to the glyph height (about 0.06 to 0.17).
        contrast: Thick-thin contrast of the strokes (0 even, 1 strong).
        nib_angle: Angle of the broad pen's nib in radians (0 gives thin horizontals).
        stretch: Width of the ranks relative to the normal (condensed below 1).
        ten_gap: Gap between the "1" and "0" of "10", relative to the glyph height (may be
            negative: the digits touch).
        heart_lobe: Heart and spade lobe roundness (0.2 to 0.34).
        tip: How far the heart's and spade's point reaches (0.9 to 1.3).
        diamond_bow: Inward curvature of the diamond's sides (0 straight to 0.25).
        diamond_width: Diamond width over height (0.6 to 0.9).
        club_leaf: Club leaf radius (0.24 to 0.32).
        club_spread: Distance of the club's leaves from its centre, relative (0.9 to 1.25).
        stem: Stem width of spades and clubs (0.06 to 0.25).
        stem_length: How far the stem reaches below the lobes or leaves (0.03 to 0.22).
        typeface: Name of the rank typeface (`vision.build.typefaces.FACES`); "" for the stroke
            outlines.
        face_weight: Weight of a variable typeface (100 thin to 900 black).
        embolden: Ink grown (positive) or shaved (negative) round typeface glyphs, relative
            to the glyph height.
        ten: How the ten is printed: "10" or "T".
    """

    variant: int = 0
    serif: bool = True
    italic: bool = False
    weight: float = 0.12
    contrast: float = 0.0
    nib_angle: float = 0.0
    stretch: float = 1.0
    ten_gap: float = 0.06
    heart_lobe: float = 0.28
    tip: float = 1.1
    diamond_bow: float = 0.1
    diamond_width: float = 0.72
    club_leaf: float = 0.28
    club_spread: float = 1.05
    stem: float = 0.15
    stem_length: float = 0.12
    typeface: str = ""
    face_weight: int = 400
    embolden: float = 0.0
    ten: str = "10"


def random_style(rng: np.random.Generator,
                 families: tuple[str, ...] = TRAINING_FAMILIES) -> GlyphStyle:
    """A random glyph style within the ranges real decks use, its ranks from `families`.

    The stroke family (if listed) is drawn half the time, the typefaces of the other
    families share the rest.
    """
    style = _random_stroke_style(rng)
    faces = faces_of(families)
    stroke_share = 0.5 if STROKE in families else 0.0
    ten = "T" if rng.random() < 0.12 else "10"
    if not faces or rng.random() < stroke_share:
        return replace(style, ten=ten)
    face = faces[int(rng.integers(len(faces)))]
    return replace(style, typeface=face.name, face_weight=int(rng.integers(350, 901)),
                   embolden=float(rng.uniform(-0.01, 0.04)), ten=ten)


def _random_stroke_style(rng: np.random.Generator) -> GlyphStyle:
    return GlyphStyle(
        variant=int(rng.integers(0, 1 << 15)),
        serif=bool(rng.random() < 0.5),
        italic=bool(rng.random() < 0.08),
        weight=float(rng.uniform(0.06, 0.17)),
        contrast=float(rng.uniform(0.0, 0.8)) if rng.random() < 0.6 else 0.0,
        nib_angle=float(rng.uniform(-0.3, 0.5)),
        stretch=float(rng.uniform(0.7, 1.25)),
        ten_gap=float(rng.uniform(-0.04, 0.2)),
        heart_lobe=float(rng.uniform(0.22, 0.33)),
        tip=float(rng.uniform(0.9, 1.3)),
        diamond_bow=float(rng.uniform(0.0, 0.25)),
        diamond_width=float(rng.uniform(0.58, 0.9)),
        club_leaf=float(rng.uniform(0.22, 0.31)),
        club_spread=float(rng.uniform(0.9, 1.25)),
        stem=float(rng.uniform(0.06, 0.25)),
        stem_length=float(rng.uniform(0.03, 0.22)),
    )


def rank_mask(rank: str, style: GlyphStyle) -> Mask:
    """The ink mask of a rank ("T" is drawn as "10" unless the style prints "T")."""
    if style.typeface:
        text = "10" if rank == "T" and style.ten == "10" else rank
        return _emboldened(text_mask(text, face_named(style.typeface), style.face_weight),
                           style.embolden)
    if rank == "T" and style.ten == "10":
        one, zero = _stroke_mask("1", style), _stroke_mask("0", style)
        return _side_by_side(one, zero, round(style.ten_gap * max(one.shape[0], 1)))
    return _stroke_mask(rank, style)


def _emboldened(mask: Mask, amount: float) -> Mask:
    """Grow (amount > 0) or shave the ink by `amount` of the glyph's height."""
    radius = round(abs(amount) * mask.shape[0])
    if radius == 0:
        return mask
    padded = np.pad(mask, radius + 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    changed = (cv2.dilate if amount > 0 else cv2.erode)(padded, kernel)
    return _crop(changed)


def _stroke_mask(char: str, style: GlyphStyle) -> Mask:
    """Draw a character's strokes with a pen that is broad across and thin along its nib.

    With `contrast` 0 the pen is round (even strokes); towards 1 upright strokes stay broad
    while horizontal ones thin out, as in book faces.
    """
    size = _CANVAS * _SUPER
    canvas = np.zeros((size, size), np.uint8)
    shear = 0.2 if style.italic else 0.0
    height = size * 0.6
    thin = max(1, round(style.weight * height * (1.0 - 0.75 * style.contrast)))
    nib = 0.5 * style.weight * height * style.contrast * np.array(
        [np.cos(style.nib_angle), np.sin(style.nib_angle)])
    for stroke in strokes_of(char, style):
        points = stroke.copy()
        points[:, 0] = points[:, 0] * style.stretch + shear * (1.0 - points[:, 1])
        pixels = (points * 0.6 + 0.2) * size
        cv2.polylines(canvas, [np.round(pixels).astype(np.int32)], False, 255, thin,
                      cv2.LINE_AA)
        if style.contrast > 0:
            _broad_nib(canvas, pixels, nib)
    small = cv2.resize(canvas, (_CANVAS, _CANVAS), interpolation=cv2.INTER_AREA)
    return _crop(small.astype(np.float32) / 255.0)


def _broad_nib(canvas: npt.NDArray[np.uint8], pixels: npt.NDArray[np.float64],
               nib: npt.NDArray[np.float64]) -> None:
    for start, end in itertools.pairwise(pixels):
        quad = np.array([start - nib, start + nib, end + nib, end - nib])
        cv2.fillConvexPoly(canvas, np.round(quad).astype(np.int32), 255, cv2.LINE_AA)


def _side_by_side(left: Mask, right: Mask, gap: int) -> Mask:
    height = max(left.shape[0], right.shape[0])
    width = max(left.shape[1] + gap + right.shape[1], left.shape[1], right.shape[1])
    out = np.zeros((height, width), np.float32)
    out[height - left.shape[0]:, :left.shape[1]] = left
    region = out[height - right.shape[0]:, width - right.shape[1]:]
    np.maximum(region, right, out=region)
    return out


def suit_mask(suit: str, style: GlyphStyle) -> Mask:
    """The ink mask of a suit symbol (S, H, D or C), cropped to the symbol."""
    size = _CANVAS * _SUPER
    canvas = np.zeros((size, size), np.uint8)
    draw = {"S": _spade, "H": _heart, "D": _diamond, "C": _club}[suit]
    draw(canvas, style, size)
    small = cv2.resize(canvas, (_CANVAS, _CANVAS), interpolation=cv2.INTER_AREA)
    return _crop(small.astype(np.float32) / 255.0)


def _heart_points(style: GlyphStyle, size: int, flip: bool) -> npt.NDArray[np.int32]:
    """Outline of a heart: two round lobes meeting in a point, in canvas pixels."""
    lobe = style.heart_lobe
    half = np.linspace(0.0, np.pi, 60)
    centre_x, centre_y = 0.5 - lobe * 0.95, 0.35
    left_lobe = np.stack([centre_x - lobe * np.cos(half), centre_y - lobe * np.sin(half)], 1)
    tip = np.array([[0.5, centre_y + lobe * 1.6 * style.tip]])
    right_lobe = left_lobe[::-1] * [-1, 1] + [1, 0]
    left_side = _curve(np.array([centre_x - lobe, centre_y]),
                       np.array([centre_x - lobe, centre_y + lobe * 0.9]), tip[0])
    right_side = left_side[::-1] * [-1, 1] + [1, 0]
    points = np.concatenate([left_lobe, right_lobe, right_side, left_side[::-1]])
    if flip:
        points[:, 1] = 1.0 - points[:, 1]
    return _to_canvas(points, size)


def _to_canvas(points: npt.NDArray[np.float64], size: int) -> npt.NDArray[np.int32]:
    """Map unit-square drawing coordinates into the canvas, leaving a margin all round."""
    return np.round((points * 0.7 + 0.15) * size).astype(np.int32)


def _curve(start: npt.NDArray[np.float64], control: npt.NDArray[np.float64],
           end: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Points along a quadratic Bezier curve."""
    t = np.linspace(0.0, 1.0, 30)[:, None]
    return (1 - t) ** 2 * start + 2 * (1 - t) * t * control + t**2 * end


def _heart(canvas: npt.NDArray[np.uint8], style: GlyphStyle, size: int) -> None:
    cv2.fillPoly(canvas, [_heart_points(style, size, flip=False)], 255, cv2.LINE_AA)


def _spade(canvas: npt.NDArray[np.uint8], style: GlyphStyle, size: int) -> None:
    cv2.fillPoly(canvas, [_heart_points(style, size, flip=True)], 255, cv2.LINE_AA)
    lobes = 0.65
    _stem(canvas, style, size, lobes, lobes + style.heart_lobe + style.stem_length)


def _stem(canvas: npt.NDArray[np.uint8], style: GlyphStyle, size: int, top: float,
          base: float) -> None:
    half = style.stem / 2
    flare_left = _curve(np.array([0.5 - half * 0.4, top]), np.array([0.5 - half * 0.4, base]),
                        np.array([0.5 - half * 2.2, base]))
    flare_right = flare_left[::-1] * [-1, 1] + [1, 0]
    outline = np.concatenate([flare_left, flare_right])
    cv2.fillPoly(canvas, [_to_canvas(outline, size)], 255, cv2.LINE_AA)


def _diamond(canvas: npt.NDArray[np.uint8], style: GlyphStyle, size: int) -> None:
    half_w, half_h = 0.45 * style.diamond_width, 0.45
    corners = np.array([[0.5, 0.5 - half_h], [0.5 + half_w, 0.5], [0.5, 0.5 + half_h],
                        [0.5 - half_w, 0.5]])
    sides = []
    for index in range(4):
        start, end = corners[index], corners[(index + 1) % 4]
        middle = (start + end) / 2
        control = middle + (np.array([0.5, 0.5]) - middle) * style.diamond_bow * 2
        sides.append(_curve(start, control, end))
    cv2.fillPoly(canvas, [_to_canvas(np.concatenate(sides), size)], 255, cv2.LINE_AA)


def _club(canvas: npt.NDArray[np.uint8], style: GlyphStyle, size: int) -> None:
    leaf, spread = style.club_leaf, style.club_spread
    centres = [(0.5, 0.5 - leaf * 1.05 * spread), (0.5 - leaf * spread, 0.5 + leaf * 0.45),
               (0.5 + leaf * spread, 0.5 + leaf * 0.45)]
    for centre in _to_canvas(np.array(centres), size):
        cv2.circle(canvas, (int(centre[0]), int(centre[1])), round(leaf * 0.7 * size), 255, -1,
                   cv2.LINE_AA)
    core = np.array([[0.5, 0.5 - leaf * 0.6], [0.5 + leaf * 0.7, 0.5 + leaf * 0.45],
                     [0.5 - leaf * 0.7, 0.5 + leaf * 0.45]])
    cv2.fillPoly(canvas, [_to_canvas(core, size)], 255, cv2.LINE_AA)
    _stem(canvas, style, size, 0.5 + leaf * 0.3, 0.5 + leaf * 1.45 + style.stem_length)


def _crop(mask: Mask) -> Mask:
    rows = np.flatnonzero(mask.max(axis=1) > 0.05)
    cols = np.flatnonzero(mask.max(axis=0) > 0.05)
    if rows.size == 0:
        return np.zeros((1, 1), np.float32)
    return np.ascontiguousarray(mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1])
