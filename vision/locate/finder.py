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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.corners import covered_cards
from vision.edges import EdgeLine, Quad, edge_lines, min_channel, rolled, vector_length

_EDGE_KERNEL = np.ones((3, 3), np.uint8)
_ALONG_SIDE = np.linspace(0.15, 0.85, 16, dtype=np.float32)[:, None]
"""Where along a side (share of its length) `refine_edges` looks for the card's edge."""


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
class PaperLevels:
    """Grey levels of a reduced frame (`work_image`) that tell paper from table.

    Attributes:
        table: Pixels at or below it are table (or ink): it lies nearer the table's mean than
            Otsu's level does, so the thin strip of paper between an index and the card's
            edge, and the blurred edge itself, stay above it.
        paper: Otsu's level; pixels above it are as bright as paper.
    """

    table: float
    paper: float


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


def paper_levels(small: npt.NDArray[np.uint8]) -> PaperLevels:
    """The levels of table and of paper in a reduced frame.

    Otsu's level splits the frame into paper and the rest; the table's level lies 30% of the
    way from the mean of the rest to the mean of the paper (Otsu's own when either is empty).
    """
    return _levels_and_paper(small)[0]


def _levels_and_paper(small: npt.NDArray[np.uint8]
                      ) -> tuple[PaperLevels, npt.NDArray[np.uint8]]:
    """`paper_levels`, and the pixels as bright as paper (1, else 0) that Otsu's level gave."""
    otsu, bright = cv2.threshold(small, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    table = otsu
    if 0 < cv2.countNonZero(bright) < bright.size:
        paper_mean = cv2.mean(small, bright)[0]
        table_mean = cv2.mean(small, 1 - bright)[0]
        table = table_mean + 0.3 * (paper_mean - table_mean)
    return PaperLevels(float(table), float(otsu)), bright


def _paper_masks(small: npt.NDArray[np.uint8], levels: PaperLevels,
                 bright: npt.NDArray[np.uint8] | None = None
                 ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Pixels brighter than the table, and pixels as bright as paper (`PaperLevels`).

    The first keeps the thin strip of paper between an index and the card's edge, so a
    hand's outline follows the cards' edges rather than cutting in round their ink. `bright`
    is the second when known already (`_levels_and_paper`).
    """
    if bright is None:
        bright = (small > levels.paper).astype(np.uint8)
    return (small > levels.table).astype(np.uint8), bright


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


def neutral_paper(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """How bright and colourless each pixel of a BGR image is: least channel less twice the spread.

    That is min - 2 (max - min) of B, G and R, at least 0. White paper (a spread of a few
    grey levels, a little more under tinted light) keeps most of its brightness; anything
    whose spread is half its least channel or more goes to 0: wood, even a pale plank, felt
    and red ink. Black ink is dark anyway.
    """
    return _colourless(image, min_channel(image))


_PIXEL_RUN = np.ones((1, 3), np.uint8)


def _colourless(image: npt.NDArray[np.uint8], least: npt.NDArray[np.uint8]
                ) -> npt.NDArray[np.uint8]:
    """`neutral_paper` of a BGR image whose least channel (`min_channel`) is `least`."""
    rows = np.ascontiguousarray(image).reshape(image.shape[0], -1)
    # the greatest of the run of three starting at every third place of a row is that
    # pixel's greatest channel, as `min_channel` takes the least (no split into channels)
    most = cv2.dilate(rows, _PIXEL_RUN, anchor=(0, 0), borderType=cv2.BORDER_REPLICATE)
    spread = cv2.subtract(np.ascontiguousarray(most[:, ::3]), least)
    return cv2.subtract(least, cv2.add(spread, spread))


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


def fit_sides(points: npt.NDArray[np.float32], quad: Quad) -> Quad:
    """Sharpen a quadrilateral's corners from its outline points.

    A line is fitted to the middle of each side and neighbouring lines are intersected (a
    card's rounded corners otherwise pull the corners inwards). `quad` is returned unchanged
    if a side has too few points or the fit moves a corner implausibly far.
    """
    directions = rolled(quad, 1) - quad
    sizes = [vector_length(direction) for direction in directions]  # as `_side` gives them
    return _corners_met(quad, _side_lines(points, quad, directions, sizes), 0.15 * min(sizes))


def refine_edges(frame: npt.NDArray[np.uint8], quad: Quad, reach: float) -> Quad:
    """Move each side of `quad` onto the card's edge in the full-resolution frame.

    Along each side, the brightness profile across it (min of B, G and R) is sampled at
    sub-pixel steps within `reach` + 1.5 pixels; the steepest fall from paper to table marks
    the edge. Lines fitted to those points are intersected into corners. Corners that would
    move further than the reach allows are left where they were.
    """
    return _refined(frame, [quad], reach)[0]


def _refined(frame: npt.NDArray[np.uint8], quads: Sequence[Quad], reach: float) -> list[Quad]:
    """`refine_edges` of each of `quads`, the frame sampled for all their sides in one call.

    Each side's samples and line are the ones its own call gives (`edge_lines` treats every
    side apart), so each quad comes out as `refine_edges` gives it alone.
    """
    offsets = np.arange(-reach - 1.5, reach + 1.75, 0.5, dtype=np.float32)
    placed: list[tuple[int, list[npt.NDArray[np.float32]], list[npt.NDArray[np.float32]]]] = []
    for number, quad in enumerate(quads):
        sides = _outward_sides(quad)
        if sides is not None:
            placed.append((number, *sides))
    refined = list(quads)
    if not placed:
        return refined
    lines = edge_lines(frame, [along for _, sides, _ in placed for along in sides],
                       [outward for _, _, normals in placed for outward in normals], offsets,
                       min_strong=6)
    for order, (number, _, _) in enumerate(placed):
        refined[number] = _lines_met(quads[number], lines[4 * order:4 * order + 4],
                                     2.5 * reach + 3)
    return refined


def _lines_met(quad: Quad, lines: Sequence[EdgeLine | None], max_move: float) -> Quad:
    """The corners where `lines`, one fitted to each of `quad`'s sides, meet.

    `quad` itself when a side gave no line, two neighbouring lines are parallel, or a
    corner would move further than `max_move`.
    """
    if any(line is None for line in lines):
        return quad
    return _corners_met(quad, [(*point.tolist(), *direction.tolist()) for point, direction in
                               (line for line in lines if line is not None)], max_move)


def _corners_met(quad: Quad, lines: Sequence[tuple[float, float, float, float] | None],
                 max_move: float) -> Quad:
    """`_lines_met` of lines given as (x, y, dx, dy) in Python floats (`meeting_point`)."""
    if any(line is None for line in lines):
        return quad
    fitted = [line for line in lines if line is not None]
    corners = [meeting_point(fitted[index - 1], fitted[index]) for index in range(4)]
    if any(c is None for c in corners):
        return quad
    refined = np.array(corners, np.float32)
    if float(np.abs(refined - quad).max()) > max_move:
        return quad
    return refined


def meeting_point(first: tuple[float, ...], second: tuple[float, ...]
                  ) -> tuple[float, float] | None:
    """`vision.edges.intersect` of two lines given as (x, y, dx, dy), in Python floats.

    The same figures (both compute in double precision), without numpy's per-scalar cost.
    """
    px, py, rx, ry = first
    qx, qy, sx, sy = second
    denominator = rx * sy - ry * sx
    if abs(denominator) < 1e-6:
        return None
    t = ((qx - px) * sy - (qy - py) * sx) / denominator
    return px + t * rx, py + t * ry


def _outward_sides(quad: Quad) -> tuple[list[npt.NDArray[np.float32]],
                                         list[npt.NDArray[np.float32]]] | None:
    """Where `refine_edges` samples each side, and each side's normal from paper to table.

    None when a side is too short to place a line. The four sides are computed at once,
    each figure as the side's own computation gives it.
    """
    ends = rolled(quad, 1)
    directions = ends - quad
    lengths = [vector_length(direction) for direction in directions]
    if min(lengths) < 8:
        return None
    units = directions / np.array(lengths, np.float32)[:, None]
    normals = np.stack([-units[:, 1], units[:, 0]], axis=1)
    centre = quad.sum(axis=0) / 4  # quad.mean(axis=0) to the last bit, without its overhead
    middles = (quad + ends) / 2 - centre
    for index in range(4):
        if float(np.dot(middles[index], normals[index])) < 0:
            normals[index] = -normals[index]  # point outwards, from paper to table
    along = quad[:, None, :] + _ALONG_SIDE[None] * directions[:, None, :]
    return list(along), list(normals)


def _side_lines(points: npt.NDArray[np.float32], quad: Quad, directions: Quad,
                sizes: Sequence[float]) -> list[tuple[float, float, float, float] | None]:
    """A line (x, y, dx, dy) fitted to the outline points near the middle of each side.

    `directions` and `sizes` are the sides' vectors (each corner to the next) and lengths.
    None for a side shorter than 4 pixels or with fewer than 5 points near its middle
    (within 15% to 85% of its length, and 2 pixels or 3% of it across). The four sides'
    projections are computed at once, each figure as the one-side product gives it.
    """
    lengths = np.array(sizes, np.float32)
    units = directions / np.maximum(lengths, 4.0)[:, None]
    along_x = points[:, 0] - quad[:, :1]  # (side, point), as each side's own difference
    along_y = points[:, 1] - quad[:, 1:]
    along = (along_x * units[:, :1] + along_y * units[:, 1:]) / lengths[:, None]
    across = np.abs(along_x * -units[:, 1:] + along_y * units[:, :1])
    limits = np.array([max(2.0, 0.03 * size) for size in sizes], np.float32)
    near = (along > 0.15) & (along < 0.85) & (across < limits[:, None])
    lines: list[tuple[float, float, float, float] | None] = []
    for side in range(4):
        chosen = points[near[side]]
        if sizes[side] < 4 or len(chosen) < 5:
            lines.append(None)
            continue
        vx, vy, x0, y0 = cv2.fitLine(chosen, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel().tolist()
        lines.append((x0, y0, vx, vy))
    return lines


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


def split_at_gap(small: npt.NDArray[np.uint8], quad: Quad, levels: PaperLevels
                 ) -> tuple[Quad, Quad] | None:
    """The two parts of an outline that a strip of table crosses, or None.

    Two cards lying close with a thin strip of table between them can give one outline of a
    card's proportions (two upright cards side by side make 1.43 : 1), and when neither card's
    own outline is found, nothing shows it is two. The outline is straightened onto a patch;
    the strip must cross it from one long side to the other within the middle 40% of their
    length, as a straight band (leaning by up to 6% of the long side) in which every pixel is
    table (`PaperLevels.table`), and it must run between two margins of paper: just beside
    it on each side, a line mostly as bright as paper (`PaperLevels.paper`). A dark line
    through a court card's picture has picture beside it, not paper. The parts end at the
    strip's borders, each side then left to `refine_edges`.

    Args:
        small: The reduced frame (`work_image`).
        quad: The outline, in `small`'s pixels.
        levels: The frame's levels of table and paper (`paper_levels`).
    """
    width, length = _side(quad, 0) + _side(quad, 2), _side(quad, 1) + _side(quad, 3)
    if width > length:  # the first side must be a short one
        quad, width, length = rolled(quad, 1), length, width
    width, length = round(width / 2), round(length / 2)
    if width < 8 or length < 8:
        return None
    patch_corners = np.array([[0, 0], [width - 1, 0], [width - 1, length - 1],
                              [0, length - 1]], np.float32)
    to_patch = cv2.getPerspectiveTransform(quad, patch_corners)
    # only the rows that the crossing lines and the lines beside them reach
    first, last = _reached_rows(length)
    to_rows = np.array([[1, 0, 0], [0, 1, -first], [0, 0, 1]]) @ to_patch
    rows = cv2.warpPerspective(small, to_rows, (width, last - first), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    strip = _crossing_strip(rows, first, length, levels)
    if strip is None:
        return None
    (first_left, first_right), (second_left, second_right) = strip
    borders = np.array([[[0, first_left], [width - 1, first_right],
                         [width - 1, second_right], [0, second_left]]], np.float32)
    ends = cv2.perspectiveTransform(borders, np.linalg.inv(to_patch))[0]
    return (order_corners(np.array([quad[0], quad[1], ends[1], ends[0]], np.float32)),
            order_corners(np.array([ends[3], ends[2], quad[2], quad[3]], np.float32)))


def _reached_rows(length: int) -> tuple[int, int]:
    """The rows (first, past the last) of a `length`-row patch that `_crossing_strip` reads.

    The middle 40%, widened by the greatest lean and the three lines beside a band.
    """
    first, last = _middle_rows(length)
    reach = _greatest_lean(length) + 3
    return max(0, first - reach), min(length, last + reach + 1)


def _middle_rows(length: int) -> tuple[int, int]:
    """The first and last row (inclusive) where a crossing line may start."""
    return int(np.ceil(_GAP_BAND[0] * length)), int(_GAP_BAND[1] * length)


def _greatest_lean(length: int) -> int:
    return max(1, round(_GAP_LEAN * length))


def _crossing_strip(rows: npt.NDArray[np.uint8], first_row: int, length: int,
                    levels: PaperLevels
                    ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The widest straight band of table between two margins of paper, crossing a patch.

    `rows` are the rows from `first_row` on (`_reached_rows`) of the outline straightened
    onto a patch `length` rows long (rows along the long sides). Lines run from the left
    column to the right one, starting at each row of the middle 40% and leaning by whole
    rows; a line crosses when every pixel on it, the outline's own columns left out, is
    table. Of the lines of one lean, neighbouring rows that cross make a band; one of the
    three lines just beyond each of its borders must be paper for at least
    `_GAP_MARGIN_PAPER` of its length.

    Returns:
        The patch's rows where the band's two borders meet its left and right column, as
        ((first left, first right), (second left, second right)); None if no band is found.
    """
    table = rows <= levels.table
    columns = table.shape[1]
    low, high = _middle_rows(length)
    starts = np.arange(low, high + 1) - first_row  # in `rows`
    lean = _greatest_lean(length)
    leans = np.arange(-lean, lean + 1)
    # a few columns first: most outlines are one card, and its margin's paper ends the search
    probes = _probe_columns(columns)
    reached = table[max(0, starts[0] - lean):starts[-1] + lean + 1, probes]
    if not reached.any(axis=0).all() or not _on_lines(table, starts, leans, probes).all(
            axis=2).any():
        return None
    inner = np.arange(1, columns - 1)
    crossing = np.asarray(_on_lines(table, starts, leans, inner).all(axis=2))  # (lean, start)
    bands = [(count, int(starts[first]), int(leans[index]))
             for index in np.argsort(np.abs(leans), kind="stable")
             for first, count in _runs(crossing[index])]
    paper = rows > levels.paper
    for count, start, shift in sorted(bands, key=lambda band: -band[0]):
        beside = np.array([start - 3, start - 2, start - 1, start + count, start + count + 1,
                           start + count + 2])
        shares = _on_lines(paper, beside, np.array([shift]), inner).mean(axis=2)[0]
        if shares[:3].max() >= _GAP_MARGIN_PAPER and shares[3:].max() >= _GAP_MARGIN_PAPER:
            top, bottom = first_row + start - 0.5, first_row + start + count - 0.5
            return (top, top + shift), (bottom, bottom + shift)
    return None


@functools.lru_cache(maxsize=512)
def _probe_columns(columns: int) -> npt.NDArray[np.intp]:
    """The six columns (or fewer, when narrow) of a `columns`-wide patch probed first."""
    probes = np.unique(np.linspace(1, columns - 2, 6).round().astype(np.intp))
    probes.setflags(write=False)  # shared by every call
    return probes


def _on_lines(mask: npt.NDArray[np.bool_], starts: npt.NDArray[np.int_],
              leans: npt.NDArray[np.int_], columns: npt.NDArray[np.intp]
              ) -> npt.NDArray[np.bool_]:
    """`mask` at `columns` along each line (lean, start row) of `_crossing_strip`.

    Returns:
        An array (lean, start, column); rows beyond the patch are read at its edge.
    """
    ys = np.rint(starts[None, :, None] + leans[:, None, None] * (columns / (mask.shape[1] - 1))
                 ).astype(np.intp).clip(0, mask.shape[0] - 1)
    values: npt.NDArray[np.bool_] = mask[ys, columns]
    return values


def _runs(flags: npt.NDArray[np.bool_]) -> list[tuple[int, int]]:
    """(first index, length) of each run of True in a 1-D array."""
    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    changes = np.flatnonzero(np.diff(padded))
    return [(int(start), int(end - start)) for start, end in zip(changes[::2], changes[1::2],
                                                                 strict=True)]


def order_corners(points: npt.NDArray[np.float32]) -> Quad:
    """Order four corners clockwise (on screen) starting so the first edge is a short side.

    Of the two corners that can start, the one nearer the frame's top-left is chosen, so the
    order is stable from frame to frame.
    """
    centre = points.sum(axis=0) / len(points)  # points.mean(axis=0), without its overhead
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    order = np.argsort(angles).tolist()  # the corners picked once, at the end
    if (vector_length(points[order[0]] - points[order[1]])
            > vector_length(points[order[1]] - points[order[2]])):
        order = order[1:] + order[:1]
    if points[order[2]].sum() < points[order[0]].sum():
        order = order[2:] + order[:2]
    return np.ascontiguousarray(points[order], dtype=np.float32)


def _side(quad: Quad, index: int) -> float:
    return vector_length(quad[index] - quad[(index + 1) % 4])


def long_over_short(quad: Quad) -> float:
    """The ratio of `quad`'s long sides to its short ones (ordered as `order_corners` does)."""
    short = _side(quad, 0) + _side(quad, 2)
    long = _side(quad, 1) + _side(quad, 3)
    return long / short if short > 0 else 0.0


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


def paper_contrast(small: npt.NDArray[np.uint8], quad: Quad) -> float:
    """How much brighter a quadrilateral's inner margin is than the band just outside it."""
    transform = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), _CONTRAST_INNER)
    patch = cv2.warpPerspective(small, transform, _CONTRAST_SIZE, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE).ravel()
    return _middle(patch[_CONTRAST_RING_AT]) - _middle(patch[_CONTRAST_AROUND_AT])


def _contrast_bands() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8],
                               npt.NDArray[np.uint8]]:
    """For `paper_contrast`: where the card's corners go, the inner margin and the band around.

    The quadrilateral is warped onto a 40 x 54 patch 7 pixels inside its border.
    """
    (width, height), margin = _CONTRAST_SIZE, 7
    inner = np.array([[margin, margin], [width - margin, margin],
                      [width - margin, height - margin], [margin, height - margin]], np.float32)
    ring = np.zeros((height, width), np.uint8)
    ring[margin + 1:-margin - 1, margin + 1:-margin - 1] = 1
    ring[margin + 4:-margin - 4, margin + 4:-margin - 4] = 0
    around = np.zeros((height, width), np.uint8)
    around[1:-1, 1:-1] = 1
    around[margin - 2:-margin + 2, margin - 2:-margin + 2] = 0
    return inner, ring, around


def _middle(values: npt.NDArray[np.uint8]) -> float:
    """`np.median` of grey levels: the mean of the one or two middle ranks' levels."""
    middle = [(len(values) - 1) // 2, len(values) // 2]
    low, high = np.partition(values, middle)[middle].tolist()
    return (low + high) / 2


_CONTRAST_SIZE: Final = (40, 54)
_GAP_BAND: Final = (0.3, 0.7)
"""Where along an outline's long sides (share of their length) a strip of table may cross it."""
_GAP_LEAN: Final = 0.06
"""How far apart along the long sides (share of their length) a crossing strip's ends may lie."""
_GAP_MARGIN_PAPER: Final = 0.6
"""The least share of paper on the line beside a crossing strip: a card's margin (an index
may interrupt it)."""
_CONTRAST_INNER, _CONTRAST_RING, _CONTRAST_AROUND = _contrast_bands()
_CONTRAST_RING_AT, _CONTRAST_AROUND_AT = (np.flatnonzero(_CONTRAST_RING),
                                          np.flatnonzero(_CONTRAST_AROUND))
"""Where the inner margin and the band around lie in `paper_contrast`'s patch, row by row."""
