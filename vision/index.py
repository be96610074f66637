"""Read the index in a card's corner: find the rank and suit glyphs and measure their ink.

A card's two index corners (top-left and, turned half a turn, bottom-right) are warped out of
the frame at a fixed resolution. Within a corner the ink (anything much darker than the
paper in the min-of-BGR image, so red and black alike) is split into connected components:

* the rank is the sizeable component nearest the corner; a narrow one with a same-height
  neighbour just to its right is the "1" of a "10" and takes the "0" with it;
* the suit is the component stacked below the rank, centred under it.

A corner whose ink falls into more pieces than an index and its card's pips or picture
leave there (`PATTERN_PIECES`) is patterned all over, as a card's back is: it holds no index.

Each glyph becomes an "ink map" (0 = paper, 1 = full ink) cropped to its own pixels, plus a
redness measure relative to the paper's colour, so the camera's white balance cancels out.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.edges import min_channel, rolled, vector_length
from vision.locate import Quad

FloatImage = npt.NDArray[np.float32]
Box = tuple[int, int, int, int]
"""x0, y0, x1, y1 (exclusive) in corner-patch pixels."""

CARD_WIDTH_PX = 300
"""Resolution the card is resampled to before its corner is read (pixels across the card)."""
_EDGE_STRIP = max(2, round(0.015 * CARD_WIDTH_PX))
"""Width in patch pixels of the strip along the card's edges where ink is ignored."""
_DILATE_KERNEL = np.ones((3, 3), np.uint8)
_GREY_LEVELS = np.arange(256, dtype=np.float32)
"""Every grey level, as the float a pixel of that level becomes."""
_IDENTITY = np.eye(3)
_IDENTITY.setflags(write=False)
_MOST_16_BIT_LABELS = 2**16 - 1
PATTERN_PIECES = 40
"""More pieces of ink than this (of 4 pixels or more) at any ink level in a corner patch are
a pattern, not an index: a drawn card back's lattice breaks into 50 to 100 there, a face's
corner into at most 15 (the dev deck's photos and 640x480 composites) or 26 (synthetic court
cards under every stress)."""
_PIECE_AREA = 4


@dataclass(frozen=True, slots=True)
class IndexLayout:
    """Where a deck prints its index, relative to the upright card.

    Attributes:
        card_aspect: Card height over width (1.40 poker size, 1.56 bridge size).
        width: Fraction of the card's width searched from the corner.
        height: Fraction of the card's height searched from the corner.
        faint_first: Try the ink level nearer the paper before Otsu's (see `_ink_levels`).
            Thin coloured strokes of a small card come out faint in the min-of-BGR image
            (JPEG keeps colour at half resolution), far fainter than a solid pip beside
            them; Otsu's level then breaks the rank apart. Enrolled profiles set it.
    """

    card_aspect: float = 1.40
    width: float = 0.30
    height: float = 0.45
    faint_first: bool = False


@dataclass(frozen=True, slots=True)
class Glyph:
    """One printed glyph of the index.

    Attributes:
        ink: Ink map of the glyph's bounding box, 0 = paper and 1 = full ink.
        box: Bounding box in corner-patch pixels.
        redness: The share of the ink's darkness that spares the red channel, relative to
            the paper: near 0 for black ink, about 0.5 or more for red (see `_redness`).
    """

    ink: FloatImage
    box: Box
    redness: float


@dataclass(frozen=True, slots=True)
class CornerIndex:
    """The rank and suit glyphs found in one corner, and where that corner lies in the frame.

    Attributes:
        rank: The rank glyph ("10" is one glyph).
        suit: The suit glyph printed below the rank.
        outline: The index's bounding box corners in frame pixels (4 x 2).
    """

    rank: Glyph
    suit: Glyph
    outline: npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class _Ink:
    grey: npt.NDArray[np.uint8]
    labels: npt.NDArray[np.uint16] | npt.NDArray[np.int32]
    stats: npt.NDArray[np.int32]
    paper: float
    boxes: list[Box]
    """Each component's box, by label."""
    rows: list[list[int]]
    """`stats` as Python lists (x, y, width, height, area), by label."""


def read_corners(frame: npt.NDArray[np.uint8], quad: Quad,
                 layout: IndexLayout) -> list[CornerIndex | None]:
    """Find the index glyphs in the top-left and bottom-right corners of a card.

    Args:
        frame: The BGR frame.
        quad: The card's corners as `vision.locate.find_cards` orders them.
        layout: The deck's index placement.

    Returns:
        Two entries, one per corner; None where no rank-over-suit index was found.
    """
    return [read_corner(frame, rolled(quad, turn), layout) for turn in (0, 2)]


def read_corner(frame: npt.NDArray[np.uint8], quad: Quad,
                layout: IndexLayout) -> CornerIndex | None:
    """Find the index glyphs in the corner at `quad[0]` (the card upright from there)."""
    patch, to_patch = corner_patch(frame, quad, layout)
    grey = min_channel(patch)
    for level in _ink_levels(grey, layout.faint_first):
        ink = _segment(grey, level)
        if patterned(ink.rows):
            return None
        found = _rank_and_suit(ink, patch.shape[1], patch.shape[0])
        if found is None:
            continue
        rank_box, rank_ids, suit_box, suit_ids = found
        paper_bgr = _paper_colour(patch, ink)
        rank = _glyph(patch, ink, rank_box, rank_ids, paper_bgr)
        suit = _glyph(patch, ink, suit_box, suit_ids, paper_bgr)
        return CornerIndex(rank, suit, _outline_in_frame(rank_box, suit_box, to_patch))
    return None


def patterned(rows: list[list[int]]) -> bool:
    """Whether a corner's ink components are a pattern, not an index.

    `rows` are their `stats` rows, the background's first; a pattern has more than
    `PATTERN_PIECES` of at least `_PIECE_AREA` pixels.
    """
    pieces = 0
    for row in rows[1:]:
        if row[4] >= _PIECE_AREA:
            pieces += 1
            if pieces > PATTERN_PIECES:
                return True
    return False


def _ink_levels(grey: npt.NDArray[np.uint8], faint_first: bool = False
                ) -> list[tuple[float, float]]:
    """Ink thresholds to try, as (level, paper) pairs.

    Otsu's first, then one nearer the paper (faint, thin or blurred strokes that broke
    apart), then one nearer the ink (glyphs that blur or a tight layout joined); with
    `faint_first` the one nearer the paper comes first. Only a corner the first level cannot
    read tries more.
    """
    paper, dark = _percentiles(grey, (0.9, 0.01))
    contrast = paper - dark
    if contrast < 35.0:
        return []
    otsu, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    levels = [min(float(otsu), paper - 35.0), paper - max(0.3 * contrast, 25.0),
              paper - 0.7 * contrast]
    if faint_first:
        levels[:2] = levels[1::-1]
    return [(level, paper) for level in levels if level > 0]


def _percentiles(grey: npt.NDArray[np.uint8], shares: tuple[float, float]) -> tuple[float, float]:
    """`np.percentile` (linear) of `grey` at two shares, from its histogram of grey levels."""
    counts = cv2.calcHist([np.ascontiguousarray(grey)], [0], None, [256], [0, 256])
    at_most = np.cumsum(counts.ravel().astype(np.int64))  # pixels at or below each level

    # the grey level `rank` places up from the darkest pixel (0 the darkest) is the first
    # whose count of pixels at or below it exceeds `rank`
    last = grey.size - 1
    positions = [last * share for share in shares]
    lows = [math.floor(position) for position in positions]
    ranks = [rank for low in lows for rank in (low, min(low + 1, last))]
    levels = np.searchsorted(at_most, ranks, side="right").tolist()
    found = [below + (above - below) * (position - low) for below, above, position, low
             in zip(levels[::2], levels[1::2], positions, lows, strict=True)]
    return float(found[0]), float(found[1])


def corner_patch(frame: npt.NDArray[np.uint8], quad: Quad, layout: IndexLayout
                 ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """Warp the index corner at `quad[0]` out of the frame, upright, at `CARD_WIDTH_PX`.

    Returns:
        The BGR patch and the 3x3 transform from frame to patch pixels.
    """
    card, size = _upright_card(layout.card_aspect, layout.width, layout.height)
    quad = np.asarray(quad, np.float32)
    transform = cv2.getPerspectiveTransform(quad, card)
    source, to_source = _reduced_corner(frame, quad, transform, size)
    to_patch = transform if source is frame else transform @ np.linalg.inv(to_source)
    patch = cv2.warpPerspective(source, to_patch, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return patch, transform


@functools.lru_cache(maxsize=16)
def _upright_card(aspect: float, share_across: float, share_down: float
                  ) -> tuple[npt.NDArray[np.float32], tuple[int, int]]:
    """The upright card's corners at `CARD_WIDTH_PX` and the size of its index patch."""
    width = float(CARD_WIDTH_PX)
    height = width * aspect
    card = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    card.setflags(write=False)
    return card, (round(width * share_across), round(height * share_down))


def _reduction_factor(quad: Quad) -> int:
    """How many times `CARD_WIDTH_PX` the card's mean width of top and bottom is, halved."""
    # the lengths in float32 and summed in float32, as `np.linalg.norm` gives and adds them
    across = float(np.float32(vector_length(quad[1] - quad[0]))
                   + np.float32(vector_length(quad[2] - quad[3]))) / 2
    return int(across // (2 * CARD_WIDTH_PX))


def _reduced_corner(frame: npt.NDArray[np.uint8], quad: Quad, transform: npt.NDArray[np.float64],
                    size: tuple[int, int]
                    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """The part of `frame` under the corner patch and the 3x3 transform from frame to it.

    The part is reduced by a whole factor (pixel areas averaged) when the card is at least
    twice `CARD_WIDTH_PX` across.

    Sampling a phone's 1000-pixel card down to 300 by interpolation keeps every fourth pixel
    or so: the strokes' edges alias, and sensor noise and sharpening haloes survive at full
    strength, so the glyphs no longer look like the training glyphs.
    """
    factor = _reduction_factor(quad)
    if factor < 2:
        return frame, _IDENTITY
    corners = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32)
    seen = cv2.perspectiveTransform(corners[None], np.linalg.inv(transform))[0]
    margin = 2 * factor
    x0, y0 = np.maximum(np.floor(seen.min(axis=0)).astype(int) - margin, 0)
    x1 = min(int(np.ceil(seen[:, 0].max())) + margin, frame.shape[1])
    y1 = min(int(np.ceil(seen[:, 1].max())) + margin, frame.shape[0])
    columns, rows = (x1 - x0) // factor, (y1 - y0) // factor
    if columns < 2 or rows < 2:
        return frame, _IDENTITY
    crop = frame[y0:y0 + rows * factor, x0:x0 + columns * factor]
    reduced = cv2.resize(crop, (columns, rows), interpolation=cv2.INTER_AREA)
    # pixel centres: frame x maps to (x - x0 + 0.5) / factor - 0.5 in the reduced crop
    to_reduced = np.array([[1 / factor, 0, (0.5 - x0) / factor - 0.5],
                           [0, 1 / factor, (0.5 - y0) / factor - 0.5], [0, 0, 1]])
    return reduced, to_reduced


def _segment(grey: npt.NDArray[np.uint8], level: tuple[float, float]) -> _Ink:
    """Split the corner's ink (darker than `level`) into connected components.

    A thin strip along the card's edges is ignored (the outline may be a pixel or two off).
    """
    threshold, paper = level
    # whole grey levels below `threshold` are those at most its ceiling less one
    _, ink = cv2.threshold(grey, math.ceil(threshold) - 1, 1, cv2.THRESH_BINARY_INV)
    ink[:_EDGE_STRIP, :] = 0
    ink[:, :_EDGE_STRIP] = 0
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8,
                                                           ltype=_label_type(ink.shape))
    rows = stats.tolist()
    boxes = [(x, y, x + w, y + h) for x, y, w, h, _ in rows]
    return _Ink(grey, labels, stats, paper, boxes, rows)


def _label_type(shape: tuple[int, ...]) -> int:
    """16-bit labels where every component of an image of `shape` is sure to get one.

    OpenCV gathers the components' statistics faster with 16-bit labels; an 8-connected
    image has at most one component per 2 x 2 block of pixels.
    """
    most = ((shape[0] + 1) // 2) * ((shape[1] + 1) // 2)
    return cv2.CV_16U if most < _MOST_16_BIT_LABELS else cv2.CV_32S


def _candidates(ink: _Ink, width: int, height: int) -> list[int]:
    """Components big enough to be a glyph and small enough not to be a picture or pip row.

    A thin component lying along the ignored strip by the card's edges is a sliver cut by
    the edge (of a pip on the card beneath an overlapping one, seen past an outline a pixel
    or two off), not a glyph.
    """
    shortest = 0.035 * CARD_WIDTH_PX
    edge = _EDGE_STRIP + 1
    tallest, widest = 0.6 * height, 0.8 * width
    found = []
    for label, (x, y, w, h, area) in enumerate(ink.rows[1:], start=1):
        sliver = (x <= edge and w < 0.5 * h) or (y <= edge and h < 0.5 * w)
        if shortest <= h <= tallest and w <= widest and area >= 12 and not sliver:
            found.append(label)
    return found


def _rank_and_suit(ink: _Ink, width: int, height: int
                   ) -> tuple[Box, list[int], Box, list[int]] | None:
    ids = _candidates(ink, width, height)
    for rank_id in _nearest_first(ink, ids)[:3]:
        rank_box, rank_ids = _rank_glyph(ink, rank_id, ids)
        suit_id = _suit_below(ink, rank_box, ids, rank_ids)
        if suit_id is not None:
            return rank_box, rank_ids, _box(ink, suit_id), [suit_id]
    return None


def _nearest_first(ink: _Ink, ids: list[int]) -> list[int]:
    """`ids` by the distance of their boxes' top-left corners from the patch's, nearest first.

    Ties keep the order of `ids`.
    """
    # np.hypot's figures, not squared distances: it parts some points at equal squared
    # distances by a last bit, and that decides which of them comes first
    distances = np.hypot(ink.stats[ids, 0], ink.stats[ids, 1]).tolist()
    return [label for _, label in sorted(zip(distances, ids, strict=True),
                                         key=lambda pair: pair[0])]


def _rank_glyph(ink: _Ink, rank_id: int, ids: list[int]) -> tuple[Box, list[int]]:
    """The rank's box; a narrow "1" with a same-height glyph beside it is read with its "0"."""
    box = _box(ink, rank_id)
    x0, y0, x1, y1 = box
    tall = y1 - y0
    if x1 - x0 >= 0.5 * tall:
        return box, [rank_id]
    for other in ids:
        ox0, oy0, ox1, oy1 = _box(ink, other)
        overlap = min(y1, oy1) - max(y0, oy0)
        gap = ox0 - x1
        if (other != rank_id and overlap >= 0.7 * min(tall, oy1 - oy0)
                and -2 <= gap <= 0.4 * tall and 0.75 <= (oy1 - oy0) / tall <= 1.33):
            return (x0, min(y0, oy0), max(x1, ox1), max(y1, oy1)), [rank_id, other]
    return box, [rank_id]


def _suit_below(ink: _Ink, rank_box: Box, ids: list[int], rank_ids: list[int]) -> int | None:
    x0, _, x1, y1 = rank_box
    tall = rank_box[3] - rank_box[1]
    centre = (x0 + x1) / 2
    best: tuple[float, int] | None = None
    for label in ids:
        if label in rank_ids:
            continue
        sx0, sy0, sx1, sy1 = _box(ink, label)
        offset = abs((sx0 + sx1) / 2 - centre)
        if (sy0 < y1 - 2 or sy0 > y1 + 0.8 * tall or sy1 - sy0 < 0.3 * tall
                or offset > 0.6 * (x1 - x0) + 0.2 * tall):
            continue
        score = offset + (sy0 - y1)
        if best is None or score < best[0]:
            best = (score, label)
    return None if best is None else best[1]


def _box(ink: _Ink, label: int) -> Box:
    return ink.boxes[label]


def _paper_colour(patch: npt.NDArray[np.uint8], ink: _Ink) -> npt.NDArray[np.float32]:
    """The mean colour of the paper: the pixels within 10 grey levels of its level.

    The whole patch's mean colour when no pixel is that bright.
    """
    # grey >= paper - 10 holds for whole grey levels from the ceiling up
    level = math.ceil(ink.paper - 10.0) - 1
    _, bright = cv2.threshold(ink.grey, level, 1, cv2.THRESH_BINARY)
    count = cv2.countNonZero(bright)
    mean = cv2.mean(patch, bright) if count else cv2.mean(patch)
    count = count or ink.grey.size
    # OpenCV's mean times the count is the exact integer sum, so the quotient is numpy's
    # mean to the last bit
    sums = np.rint(np.array(mean[:3]) * count)
    return np.asarray(sums / count, np.float32)


def glyph_region(ink: _Ink, box: Box, ids: list[int]
                 ) -> tuple[Box, npt.NDArray[np.uint8], float]:
    """A glyph's box grown by a pixel, the mask of its own components (dilated) and its span.

    The span is the paper's level less the darkest grey under the mask (at least 1): the
    grey-level distance that counts as full ink.
    """
    x0, y0, x1, y1 = box
    x0, y0 = max(x0 - 1, 0), max(y0 - 1, 0)
    x1, y1 = min(x1 + 1, ink.grey.shape[1]), min(y1 + 1, ink.grey.shape[0])
    labels = ink.labels[y0:y1, x0:x1]
    own = labels == ids[0]
    for other in ids[1:]:
        own |= labels == other
    own_mask = cv2.dilate(own.view(np.uint8), _DILATE_KERNEL)
    grey = ink.grey[y0:y1, x0:x1]
    darkest = cv2.minMaxLoc(grey, own_mask)[0] if cv2.countNonZero(own_mask) else 0.0
    return (x0, y0, x1, y1), own_mask, max(ink.paper - darkest, 1.0)


def _glyph(patch: npt.NDArray[np.uint8], ink: _Ink, box: Box, ids: list[int],
           paper_bgr: npt.NDArray[np.float32]) -> Glyph:
    (x0, y0, x1, y1), own_mask, span = glyph_region(ink, box, ids)
    grey = ink.grey[y0:y1, x0:x1]
    # a pixel's ink amount depends on its grey level alone: looked up, not computed per pixel
    amount = cv2.LUT(grey, _ink_amounts(ink.paper, span))
    np.multiply(amount, own_mask, out=amount)
    return Glyph(amount, (x0, y0, x1, y1), _redness(patch[y0:y1, x0:x1], amount, paper_bgr))


def _ink_amounts(paper: float, span: float) -> FloatImage:
    """The ink amount of each grey level: (paper - level) / span, clipped to [0, 1]."""
    # np.clip's figures (its maximum, then its minimum), without its wrapper's cost
    amounts = paper - _GREY_LEVELS
    amounts /= span
    np.maximum(amounts, 0.0, out=amounts)
    return np.minimum(amounts, 1.0, out=amounts)


def _redness(crop: npt.NDArray[np.uint8], amount: FloatImage,
             paper_bgr: npt.NDArray[np.float32]) -> float:
    """How much of the ink's darkness is missing from red alone (0 black, about 1 pure red).

    Per pixel, relative to the paper: (red - max(green, blue)) over (1 - min(b, g, r)),
    averaged with the ink amount as weight, so thin and blurred strokes score like solid ink.
    """
    if not cv2.countNonZero(amount):  # no ink (amounts are never negative)
        return 0.0
    # each channel's ratio to the paper depends on the pixel's level in it alone: looked up
    ratios = _GREY_LEVELS[None, :] / np.maximum(paper_bgr, 1.0)[:, None]
    blue, green, red = (cv2.LUT(crop[..., channel], ratios[channel]) for channel in range(3))
    chroma = red - np.maximum(green, blue)
    darkness = np.maximum(1.0 - np.minimum(np.minimum(blue, green), red), 0.0)
    return float((amount * chroma).sum() / max(float((amount * darkness).sum()), 1e-6))


def _outline_in_frame(rank_box: Box, suit_box: Box,
                      to_patch: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    x0, y0 = min(rank_box[0], suit_box[0]), min(rank_box[1], suit_box[1])
    x1, y1 = max(rank_box[2], suit_box[2]), max(rank_box[3], suit_box[3])
    corners = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.float32)
    back = cv2.perspectiveTransform(corners, np.linalg.inv(to_patch))
    return np.asarray(back.reshape(4, 2), np.float32)
