"""Find the cards in a frame: bright, paper-white quadrilaterals of a card's proportions.

Two candidate generators run on a reduced copy of the frame (the per-pixel minimum of B, G
and R, so coloured felt and red ink both read dark while paper reads bright):

* Canny edges, closed by a small dilation. Every contour, outer or hole, is a candidate, so a
  card whose outline touches a neighbour or table clutter still yields its inner outline.
* Otsu thresholds, for cards whose outline is too soft for Canny on a textured cloth.
* Otsu's threshold of `neutral_paper` (bright and colourless), for a card on a pale wooden
  plank nearly as bright as its paper in the least channel, whose grain joins the card's
  edge in the first two; its outlines are kept only where the others found none.

Candidates must be convex quadrilaterals with a card's aspect ratio, filled by their contour,
and brighter just inside than just outside (a printed box on the layout or a face card's
picture frame is not); one with a side along the frame's edge, before or after its sides are
fitted, is a region the frame cuts off. Duplicates are merged, keeping the best-filled
outline, and an outline that a strip of table crosses is two cards lying close
(`split_at_gap`).
"""


from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.corners import covered_cards
from vision.edges import Quad, min_channel
from vision.locate.geometry import long_over_short, order_corners
from vision.locate.paper import (
    PaperLevels,
    _colourless,
    _levels_and_paper,
    _paper_masks,
    paper_contrast,
)
from vision.locate.refine import _refined, fit_sides
from vision.locate.split import split_at_gap

_EDGE_KERNEL = np.ones((3, 3), np.uint8)


@dataclass(frozen=True, slots=True)
class LocateParams:
    """Tuning of card finding.

    Attributes:
        work_width: Width the frame is reduced to for finding outlines.
        min_area: Smallest card, as a fraction of the frame's area.
        max_area: Largest card, as a fraction of the frame's area.
        min_aspect: Smallest long-to-short side ratio accepted.
        max_aspect: Largest long-to-short side ratio accepted.
        min_fill: Smallest ratio of the outline's area to its quadrilateral's area.
        min_neutral_fill: For an outline of colourless paper (`neutral_paper`), the least
            of that ratio and its inverse: the union of a fanned hand's overlapping cards is
            colourless too, and its stepped outline can match a card-shaped quadrilateral to
            within 10% (overrunning it); a card's matches it to within 7%.
        min_contrast: Grey levels by which the card's margin must outshine its surroundings.
    """

    work_width: int = 400
    min_area: float = 0.004
    max_area: float = 0.9
    min_aspect: float = 1.08
    max_aspect: float = 1.9
    min_fill: float = 0.88
    min_neutral_fill: float = 0.92
    min_contrast: float = 10.0


@dataclass(frozen=True, slots=True)
class _Candidate:
    """An outline found: its quadrilateral, fill and raw quadrilateral's area (`_quads_of`).

    `region` (the quadrilateral's own area) and `bounds` (its bounding box: least x and y,
    greatest x and y) are kept for `_overlap_of`.
    """

    quad: Quad
    fill: float
    area: float
    region: float
    bounds: tuple[float, float, float, float]


def _candidate(quad: Quad, fill: float, area: float) -> _Candidate:
    xs, ys = quad[:, 0].tolist(), quad[:, 1].tolist()
    return _Candidate(quad, fill, area, float(cv2.contourArea(quad)),
                      (min(xs), min(ys), max(xs), max(ys)))


@dataclass(frozen=True, slots=True)
class Located:
    """A card found in a frame.

    Attributes:
        quad: Its corners in frame pixels (see `Quad`).
        covered: True when the card lies partly under others (its outline was inferred from
            the corners that show, `vision.corners`): only some of its index corners may be
            visible.
    """

    quad: Quad
    covered: bool = False


def find_cards(frame: npt.NDArray[np.uint8], params: LocateParams | None = None) -> list[Quad]:
    """Return the quadrilateral of every card found in a BGR frame.

    Cards lying apart come first, largest first; then cards of overlapping hands.

    Args:
        frame: A BGR (or single-channel) uint8 image.
        params: Tuning; the defaults suit 640x480 to 1280x960 frames.

    Returns:
        One `Quad` per card, in frame pixel coordinates.
    """
    return [card.quad for card in locate_cards(frame, params)]


def locate_cards(frame: npt.NDArray[np.uint8], params: LocateParams | None = None,
                 card_aspect: float = 1.4) -> list[Located]:
    """Like `find_cards`, saying which cards are partly covered by others.

    Args:
        frame: A BGR (or single-channel) uint8 image.
        params: Tuning; None for the defaults.
        card_aspect: The deck's long over short side, for cards of which only one whole
            side shows.
    """
    params = params or LocateParams()
    reduced, scale = _reduced(frame, params.work_width)
    least = min_channel(reduced)
    small = _blurred(least)
    levels, bright = _levels_and_paper(small)
    candidates = [c for c in _edge_candidates(small, params)
                  + _threshold_candidates(small, params, bright)
                  if paper_contrast(small, c.quad) >= params.min_contrast]
    candidates += [c for c in _unexplained(candidates, _neutral_candidates(
                       reduced, params, candidates, least))
                   if paper_contrast(small, c.quad) >= params.min_contrast]
    kept = _merge_duplicates(_without_unions(candidates))
    cards = [part for c in kept for part in _split_if_two(small, c.quad, levels, params)]
    paper, bright = _paper_masks(small, levels, bright)
    min_side = float(np.sqrt(params.min_area * small.shape[0] * small.shape[1] / card_aspect))
    whole = _refined(frame, [np.asarray(q / scale, dtype=np.float32) for q in cards],
                     1.0 / scale)
    covered = covered_cards(frame, paper, bright, scale, whole, card_aspect, min_side)
    return [Located(q) for q in whole] + [Located(order_corners(q), covered=True)
                                          for q in covered]


def work_image(frame: npt.NDArray[np.uint8], work_width: int) -> tuple[npt.NDArray[np.uint8],
                                                                      float]:
    """Reduce a frame about to `work_width` as a lightly blurred min-of-BGR image.

    The reduction is by a whole factor (the nearest to `work_width`, never enlarging), which
    OpenCV's area resampling does several times faster than a fractional one.

    Returns:
        The reduced image and its scale relative to the frame.
    """
    reduced, scale = _reduced(frame, work_width)
    return _blurred(min_channel(reduced)), scale


def _reduced(frame: npt.NDArray[np.uint8], work_width: int) -> tuple[npt.NDArray[np.uint8],
                                                                    float]:
    """`frame` reduced by a whole factor to about `work_width` (`work_image`), and the scale."""
    height, width = frame.shape[:2]
    factor = max(1, round(width / work_width))
    if factor > 1:
        size = (width // factor, height // factor)
        frame = cv2.resize(frame[:size[1] * factor, :size[0] * factor], size,
                           interpolation=cv2.INTER_AREA)
    return frame, 1.0 / factor


def _blurred(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    return cv2.GaussianBlur(image, (3, 3), 0)


def _edge_candidates(small: npt.NDArray[np.uint8], params: LocateParams) -> list[_Candidate]:
    edges = cv2.dilate(cv2.Canny(small, 20, 60), _EDGE_KERNEL)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    return _quads_of(contours, small.shape, params)


def _threshold_candidates(small: npt.NDArray[np.uint8], params: LocateParams,
                          otsu_mask: npt.NDArray[np.uint8] | None = None) -> list[_Candidate]:
    """Outlines of the regions above Otsu's level and above Otsu's level of those pixels.

    `otsu_mask` is the first (1 above Otsu's level of `small`, else 0) when known already
    (`_levels_and_paper`).
    """
    mask = (otsu_mask if otsu_mask is not None
            else cv2.threshold(small, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1])
    masks = [mask]
    brighter = small[mask.view(bool)]
    if brighter.size > 64:
        upper, _ = cv2.threshold(brighter.reshape(-1, 1), 0, 255,
                                 cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        masks.append(cv2.threshold(small, upper, 1, cv2.THRESH_BINARY)[1])  # small > upper
    found: list[_Candidate] = []
    for above in masks:
        opened = cv2.morphologyEx(above, cv2.MORPH_OPEN, _EDGE_KERNEL)
        contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        found += _quads_of(contours, small.shape, params)
    return found


def _neutral_candidates(reduced: npt.NDArray[np.uint8], params: LocateParams,
                        found: Sequence[_Candidate] = (),
                        least: npt.NDArray[np.uint8] | None = None) -> list[_Candidate]:
    """Outlines of paper told from the table by its lack of colour (`neutral_paper`).

    A pale plank can be nearly as bright as a card in the least channel, and its grain
    joins the card's edge in Canny's edges and Otsu's masks; in `neutral_paper` the plank,
    however pale, is dark, as are felt and ink. None for a single-channel frame. A region
    whose raw quadrilateral `_unexplained` would drop beside `found` is not fitted.
    `least` is `reduced`'s least channel when known already (`min_channel`).
    """
    if reduced.ndim != 3:
        return []
    neutral = _blurred(_colourless(reduced, min_channel(reduced) if least is None else least))
    _, mask = cv2.threshold(neutral, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _EDGE_KERNEL)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    # a union's stepped outline may also overrun its quadrilateral: bounded both ways here
    return [candidate for candidate in _quads_of(contours, neutral.shape, params, found)
            if candidate.fill >= params.min_neutral_fill]


def _unexplained(found: Sequence[_Candidate], extra: list[_Candidate]) -> list[_Candidate]:
    """The outlines of `extra` that overlap none of `found` by half the smaller's area.

    The other sources' outlines of a card are kept as they were; the extra source only adds
    the cards they missed.
    """
    return [candidate for candidate in extra
            if all(_overlap_of(candidate, other) < 0.5 for other in found)]


def _quads_of(contours: object, shape: tuple[int, ...], params: LocateParams,
              found_already: Sequence[_Candidate] = ()) -> list[_Candidate]:
    """Candidates of `contours`; with `found_already`, only regions none of them explains.

    The contours must be unsimplified (`cv2.CHAIN_APPROX_NONE`, see `_fewest_points`).
    """
    image_area = shape[0] * shape[1]
    fewest = _fewest_points(params.min_area * image_area)
    found = []
    for contour in contours:  # type: ignore[attr-defined]
        if len(contour) < fewest:
            continue
        area = cv2.contourArea(contour)
        if not params.min_area * image_area <= area <= params.max_area * image_area:
            continue
        corners = _hull_corners(contour)
        if corners is None:
            continue
        # the area of whole-pixel corners is exact, whatever their order: the ordered
        # quadrilateral's own, so the fill test can come before ordering them
        quad_area = cv2.contourArea(corners)
        fill = area / quad_area if quad_area > 0 else 0.0
        if fill < params.min_fill:
            continue
        quad = order_corners(corners.reshape(4, 2).astype(np.float32))
        if (_along_frame_edge(quad, shape)
                or not params.min_aspect <= long_over_short(quad) <= params.max_aspect
                or (found_already and not _unexplained(found_already, [
                    _candidate(quad, fill, quad_area)]))):
            continue
        refined = fit_sides(contour.reshape(-1, 2).astype(np.float32), quad)
        # a region cut by the frame whose raw corners stopped short of the edge
        if not _along_frame_edge(refined, shape):
            found.append(_candidate(refined, min(fill, 1.0 / fill), quad_area))
    return found


def _fewest_points(area: float) -> int:
    """Fewer points than this, and an unsimplified contour encloses less than `area`.

    Its points follow each other as pixel neighbours, so n points close a curve at most
    n * sqrt(2) long, and a closed curve L long encloses at most L^2 / (4 pi): n^2 / (2 pi).
    One point less for safety; `cv2.contourArea` of whole pixels is exact.
    """
    return max(0, math.ceil(math.sqrt(2 * math.pi * area)) - 1)


def _quadrilateral(contour: npt.NDArray[np.int32]) -> Quad | None:
    """The four corners of a contour's simplified convex hull (`order_corners`), or None."""
    corners = _hull_corners(contour)
    return None if corners is None else order_corners(corners.reshape(4, 2).astype(np.float32))


def _hull_corners(contour: npt.NDArray[np.int32]) -> npt.NDArray[np.int32] | None:
    """The corners of a contour's convex hull simplified to four, in the hull's order; or None."""
    hull = cv2.convexHull(contour)
    corners = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
    return corners if len(corners) == 4 else None


def _along_frame_edge(quad: Quad, shape: tuple[int, ...]) -> bool:
    """Whether a side runs along the frame's edge: a region cut off by the frame, not a card.

    That is, a corner and the next one lie within 1.5 pixels of the same edge of the frame
    (in Python floats: numpy's per-call cost is most of the work on four corners).
    """
    right, bottom = shape[1] - 2.5, shape[0] - 2.5
    # per corner, one bit for each edge of the frame it lies near
    near = [(x <= 1.5) | (y <= 1.5) << 1 | (x >= right) << 2 | (y >= bottom) << 3
            for x, y in quad.tolist()]
    return bool(near[0] & near[1] or near[1] & near[2] or near[2] & near[3]
                or near[3] & near[0])


def _split_if_two(small: npt.NDArray[np.uint8], quad: Quad, levels: PaperLevels,
                  params: LocateParams) -> list[Quad]:
    """`quad`, or the two cards it holds when a strip of table crosses it.

    Each part must be a card on its own: of a card's size and proportions and brighter just
    inside than just outside, as any candidate must.
    """
    parts = split_at_gap(small, quad, levels)
    if parts is None or not all(_card_like(small, part, params) for part in parts):
        return [quad]
    return list(parts)


def _card_like(small: npt.NDArray[np.uint8], quad: Quad, params: LocateParams) -> bool:
    """Whether `quad` passes a candidate's tests of size, proportions and paper contrast."""
    area = cv2.contourArea(quad)
    return (params.min_area * small.shape[0] * small.shape[1] <= area
            and params.min_aspect <= long_over_short(quad) <= params.max_aspect
            and paper_contrast(small, quad) >= params.min_contrast)


def _without_unions(candidates: list[_Candidate]) -> list[_Candidate]:
    """Drop each outline that is two or more cards lying side by side.

    Two cards of a hand or of the board with a narrow gap between them have one outer outline,
    and two upright cards side by side make a rectangle of a card's proportions (1.43 : 1).
    Such an outline is recognised by the smaller outlines inside it: two or more, apart from
    each other, each well inside it, together filling most of it.
    """
    ordered = sorted(candidates, key=lambda c: -c.area)
    kept = []
    for position, candidate in enumerate(ordered):
        parts: list[_Candidate] = []
        for inner in ordered[position + 1:]:
            if (inner.area <= 0.7 * candidate.area
                    and _overlap_of(inner, candidate) >= 0.9
                    and all(_overlap_of(inner, part) < 0.1 for part in parts)):
                parts.append(inner)
        if len(parts) < 2 or sum(part.area for part in parts) < 0.7 * candidate.area:
            kept.append(candidate)
    return kept


def _merge_duplicates(candidates: list[_Candidate]) -> list[_Candidate]:
    """Keep the largest of overlapping outlines, averaging near-identical ones.

    A card contains its pips and picture frame, so the largest wins; the outer and inner side
    of one edge give two near-identical outlines whose mean is the edge itself.
    """
    kept: list[_Candidate] = []
    twins: list[list[_Candidate]] = []
    for candidate in sorted(candidates, key=lambda c: -c.area):
        for index, other in enumerate(kept):
            if _overlap_of(candidate, other) >= 0.5:
                if candidate.area >= 0.85 * other.area:
                    twins[index].append(candidate)
                break
        else:
            kept.append(candidate)
            twins.append([candidate])
    return [_average(group) for group in twins]


def _average(group: list[_Candidate]) -> _Candidate:
    if len(group) == 1:
        return group[0]
    first = group[0].quad
    matched = [first] + [_match_corners(first, other.quad) for other in group[1:]]
    quad = np.mean(matched, axis=0).astype(np.float32)
    return _candidate(quad, group[0].fill, float(cv2.contourArea(quad)))


def _match_corners(reference: Quad, quad: Quad) -> Quad:
    """`quad`'s corners rolled to line up with `reference`'s."""
    turns = quad[_ROLLS]  # (shift, corner, x or y): quad rolled by each shift
    costs = np.abs(turns - reference).reshape(4, 8).sum(axis=1)  # each row's own sum
    return turns[int(np.argmin(costs))]


_ROLLS = np.array([[(corner + shift) % 4 for corner in range(4)] for shift in range(4)])
"""The corner orders of a quadrilateral rolled by 0 to 3 places (`rolled`)."""


def _overlap_of(first: _Candidate, second: _Candidate) -> float:
    """Intersection area of two candidates' quadrilaterals over the smaller one's area.

    0 at once when their bounding boxes lie apart (they cannot meet).
    """
    (left, top, right, bottom), (other_left, other_top, other_right, other_bottom) = (
        first.bounds, second.bounds)
    if left > other_right or other_left > right or top > other_bottom or other_top > bottom:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(first.quad, second.quad)
    smaller = min(first.region, second.region)
    return float(inter) / smaller if smaller > 0 else 0.0
