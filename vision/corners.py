"""Cards partly covered by others, found from the corners of their outlines that show.

Where cards overlap (a blackjack hand as dealt: each card down and to the right of the one
before), the paper of the hand is one region whose outline is not a quadrilateral, so the
whole-card finder (`vision.locate`) sees no card in it. Every card still shows corners on
that outline: convex, nearly right-angled turns between two straight sides. Two such corners
facing each other across a card (diagonally opposite: each one's sides run back along the
other's) fix the card's outline; two corners at the ends of one visible side fix it up to the
card's proportions (tried with that side as the short and as the long one).

A hypothesis is kept if it is a card-shaped quadrilateral lying on paper (its covered parts
lie on the cards above it), the region's outline never enters it (it bounds the union of the
cards, so it never enters one of them: two cards are not taken for one), and it is not a card
already found. Cards of one deck share a shape: hypotheses alike the most others go first,
then those from opposite corners; a corner belongs to one card. A region whose cards found
cover less than half of it is no hand (a lit patch of table beside a card).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.edges import (
    EdgeLine,
    Quad,
    Vector,
    edge_line,
    intersect,
    min_channel,
    rolled,
    vector_length,
)


@dataclass(frozen=True, slots=True)
class _Tolerance:
    parallel: float
    """Sides whose directions' dot product exceeds this count as parallel."""
    aspects: tuple[float, float]
    """Long-to-short side ratios accepted for a card inferred from corners."""
    paper: float
    """Share of an inferred card that must lie on paper."""
    sharp: bool
    """Whether both corners must have shown sharp edges."""


_STRICT: Final = _Tolerance(float(np.cos(np.radians(20))), (1.28, 1.7), 0.93, sharp=True)
_ROUGH: Final = _Tolerance(float(np.cos(np.radians(32))), (1.15, 1.9), 0.85, sharp=False)
"""For corners not yet moved onto the frame's edges (directions off by up to 10 degrees):
only corners that take part in a rough hypothesis are sharpened, which is the costly step."""


_ALONG_CORNER_SIDE: Final = np.linspace(0.3, 0.85, 12)[:, None]
"""Where along a corner's side (share of its straight reach) its edge is looked for."""
_SHARPEN_MOVE: Final = 3.5
"""Work-image pixels by which sharpening may move a corner (3, and a margin for rounding)."""


@dataclass(frozen=True, slots=True)
class Corner:
    """A convex, nearly right-angled corner of a paper region's outline.

    Attributes:
        point: Where its two sides meet (work-image pixels).
        first: Unit vector along one side, away from the corner.
        second: Unit vector along the other side, away from the corner.
        reach: How far each side (first, second) runs straight from the corner.
        sharp: Whether both sides were found as clear edges in the full-resolution frame (a
            lit patch of table has soft borders, a card has sharp ones).
    """

    point: Vector
    first: Vector
    second: Vector
    reach: tuple[float, float] = (0.0, 0.0)
    sharp: bool = False


@dataclass(frozen=True, slots=True)
class _Hypothesis:
    quad: Quad
    corners: tuple[int, int]
    exact: bool
    paper: float


def covered_cards(frame: npt.NDArray[np.uint8], paper: npt.NDArray[np.uint8],
                  bright: npt.NDArray[np.uint8], scale: float, whole: Sequence[Quad],
                  card_aspect: float, min_side: float) -> list[Quad]:
    """Cards that overlap others, other than the `whole` cards already found.

    Corners are found on the paper mask of the reduced work image, then each of their sides
    is moved onto the card's edge in the full-resolution frame, so the inferred outline is
    as sharp as a whole card's.

    Args:
        frame: The BGR (or grey) frame.
        paper: Mask of pixels brighter than the table in the work image (1 = brighter).
        bright: Mask of pixels as bright as paper; most of a hand's region is.
        scale: Work-image pixels per frame pixel.
        whole: Outlines of the cards found whole (frame pixels).
        card_aspect: The deck's long over short side.
        min_side: Shortest card side worth reading (work-image pixels).

    Returns:
        Card outlines in frame pixels (corners in outline order, not yet `order_corners`'s).
    """
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    paper = np.zeros_like(paper)
    cv2.drawContours(paper, contours, -1, 1, -1)  # ink, pips and pictures lie on paper too
    known = [np.asarray(quad * scale, np.float32) for quad in whole]
    found: list[Quad] = []
    grey: npt.NDArray[np.uint8] | None = None
    for contour in contours:
        area = cv2.contourArea(contour)
        if (area < 2.0 * min_side * min_side * card_aspect or _explained(contour, area, known)
                or _bright_share(contour, bright) < 0.6):
            continue
        corners = outline_corners(contour, paper.shape, min_side)
        rough = _hypotheses(corners, card_aspect, paper, min_side, _ROUGH)
        if rough:
            grey = min_channel(frame) if grey is None else grey
            involved = {index for hypothesis in rough for index in hypothesis.corners}
            sharpened = _sharpened_corners(grey, corners, involved, known + found,
                                           (scale, min_side))
            if sharpened is not None:
                found += _region_cards(contour, sharpened, paper, known + found,
                                       (card_aspect, min_side))
    return [np.asarray(quad / scale, np.float32) for quad in found]


def _sharpened_corners(grey: npt.NDArray[np.uint8], corners: list[Corner], involved: set[int],
                       known: list[Quad], sizes: tuple[float, float]) -> list[Corner] | None:
    """`corners` with the `involved` ones sharpened, or None when no new card can start.

    A new card needs two sharp corners at which no card found lies (`_choose`). Sharpening
    moves a corner by 3 work-image pixels at most, so those lying nearer a found card's
    corner stay where a card was found: they are sharpened only once two others came out
    sharp and free (on a single card beside a lit patch of table they seldom do).
    """
    scale, min_side = sizes
    reach = 0.5 * min_side - _SHARPEN_MOVE
    maybe_free = {index for index in involved
                  if not any(_near_corner(corners[index].point, quad, reach) for quad in known)}
    if len(maybe_free) < 2:
        return None
    sharpened = {index: _sharpened(grey, corners[index], scale) for index in sorted(maybe_free)}
    free = [corner for corner in sharpened.values() if corner.sharp
            and not any(_near_corner(corner.point, quad, 0.5 * min_side) for quad in known)]
    if len(free) < 2:
        return None
    for index in involved - maybe_free:
        sharpened[index] = _sharpened(grey, corners[index], scale)
    return [sharpened.get(index, corner) for index, corner in enumerate(corners)]


def _region_cards(contour: npt.NDArray[np.int32], corners: list[Corner],
                  paper: npt.NDArray[np.uint8], known: list[Quad],
                  card: tuple[float, float]) -> list[Quad]:
    """The new cards of one paper region, from its sharpened corners (none if no hand)."""
    card_aspect, min_side = card
    outline = contour.reshape(-1, 2)[::2].astype(np.float32)
    hypotheses = [h for h in _hypotheses(corners, card_aspect, paper, min_side, _STRICT)
                  if outline_stays_out(h.quad, outline)]
    chosen = _choose(hypotheses, corners, known, min_side)
    return chosen if _coverage(contour, known + chosen) >= 0.5 else []


def _coverage(contour: npt.NDArray[np.int32], quads: Sequence[Quad]) -> float:
    """The share of a region that the cards `quads` cover: a hand is cards all over."""
    x, y, width, height = cv2.boundingRect(contour)
    region = np.zeros((height, width), np.uint8)
    cv2.drawContours(region, [contour - [x, y]], -1, 1, -1)
    cards = np.zeros_like(region)
    for quad in quads:
        cv2.fillConvexPoly(cards, np.round(quad - [x, y]).astype(np.int32), 1)
    return cv2.countNonZero(region & cards) / max(cv2.countNonZero(region), 1)


def _sharpened(grey: npt.NDArray[np.uint8], corner: Corner, scale: float) -> Corner:
    """`corner` with both sides moved onto the card's edge in the full-resolution frame.

    Coordinates stay in work-image pixels. A side that shows no clear edge keeps its place.
    """
    point = corner.point / scale
    lines = []
    for side, other, reach in ((corner.first, corner.second, corner.reach[0]),
                               (corner.second, corner.first, corner.reach[1])):
        outward = -(other - np.dot(other, side) * side)
        line = _edge_line(grey, point, side, _unit(outward), reach / scale, 1.5 / scale)
        if line is None:
            return corner
        lines.append(line)
    meet = intersect(*lines[0], *lines[1])
    if meet is None or vector_length(meet - point) > 3.0 / scale:  # see _SHARPEN_MOVE
        return corner
    first = lines[0][1] * np.sign(np.dot(lines[0][1], corner.first))
    second = lines[1][1] * np.sign(np.dot(lines[1][1], corner.second))
    return Corner(meet * scale, first, second, corner.reach, sharp=True)


def _edge_line(grey: npt.NDArray[np.uint8], start: Vector, along: Vector, outward: Vector,
               length: float, reach: float) -> EdgeLine | None:
    """The line of steepest fall from paper to table along a side (frame pixels)."""
    steps = _ALONG_CORNER_SIDE * length
    offsets = np.arange(-reach - 1.5, reach + 1.75, 0.5)
    return edge_line(grey, start + steps * along, outward, offsets, min_strong=5)


def _explained(contour: npt.NDArray[np.int32], area: float, whole: Sequence[Quad]) -> bool:
    """Whether cards already found fill the region (a lone card, not an overlapping hand)."""
    inside = [quad for quad in whole
              if cv2.pointPolygonTest(contour, tuple(float(v) for v in quad.mean(axis=0)),
                                      False) > 0]
    return sum(float(cv2.contourArea(quad)) for quad in inside) >= 0.9 * area


def _bright_share(contour: npt.NDArray[np.int32], bright: npt.NDArray[np.uint8]) -> float:
    """The share of a region that is paper-bright (a lit patch of table is not)."""
    x, y, width, height = cv2.boundingRect(contour)
    inside = np.zeros((height, width), np.uint8)
    cv2.drawContours(inside, [contour - [x, y]], -1, 1, -1)
    area = max(cv2.countNonZero(inside), 1)
    return cv2.countNonZero(inside & bright[y:y + height, x:x + width]) / area


def outline_corners(contour: npt.NDArray[np.int32], shape: tuple[int, ...],
                    min_side: float) -> list[Corner]:
    """The convex, nearly right-angled corners of a region's outline.

    The outline is simplified to straight pieces; a corner is where two long pieces meet at
    60 to 120 degrees turning outwards, across at most a short rounded stretch (a card's
    rounded corner, up to 60% of the shorter piece). Corners on the frame's edge are left
    out (the frame cut the region).
    """
    polygon = cv2.approxPolyDP(contour, 1.5, True).reshape(-1, 2).astype(np.float64)
    count = len(polygon)
    if count < 3:
        return []
    ends = rolled(polygon, 1)
    lengths = np.linalg.norm(ends - polygon, axis=1)
    turn = float(np.sign(_shoelace(polygon)))
    corners: list[Corner] = []
    directions = (ends - polygon) / np.maximum(lengths, 1e-9)[:, None]
    for current in range(count):
        if lengths[current] < 0.3 * min_side:
            continue
        following, rounded = _next_side(lengths, directions, current, min_side)
        if following is None or rounded > max(0.35 * min_side,
                                              0.6 * min(lengths[current], lengths[following])):
            continue
        corner = _corner(polygon[current], ends[current], polygon[following], ends[following],
                         turn)
        if corner is not None and _inside_frame(corner.point, shape):
            corners.append(replace(corner, reach=(float(lengths[current]),
                                                  float(lengths[following]))))
    return corners


def _next_side(lengths: npt.NDArray[np.float64], directions: npt.NDArray[np.float64],
               current: int, min_side: float) -> tuple[int | None, float]:
    """The next long piece turned by 60 degrees or more from `current`.

    Returns:
        Its index (None if there is none near) and the length of the pieces between: a
        card's rounded corner, simplified to a short piece or two.
    """
    rounded = 0.0
    for step in range(1, 4):
        index = (current + step) % len(lengths)
        if index == current:
            break
        turned = abs(float(np.dot(directions[current], directions[index]))) <= 0.5
        if turned and lengths[index] >= 0.3 * min_side:
            return index, rounded
        rounded += float(lengths[index])
    return None, rounded


def _shoelace(polygon: npt.NDArray[np.float64]) -> float:
    following = rolled(polygon, 1)
    return float((polygon[:, 0] * following[:, 1] - following[:, 0] * polygon[:, 1]).sum())


def _corner(start_in: Vector, end_in: Vector, start_out: Vector, end_out: Vector,
            turn: float) -> Corner | None:
    incoming = _unit(end_in - start_in)
    outgoing = _unit(end_out - start_out)
    cross = incoming[0] * outgoing[1] - incoming[1] * outgoing[0]
    if abs(float(np.dot(incoming, outgoing))) > 0.5 or np.sign(cross) != turn:
        return None
    point = intersect(start_in, incoming, start_out, outgoing)
    if point is None:
        return None
    return Corner(point, -incoming, outgoing)


def _inside_frame(point: Vector, shape: tuple[int, ...]) -> bool:
    margin = 2.5
    return bool(margin < point[0] < shape[1] - 1 - margin
                and margin < point[1] < shape[0] - 1 - margin)


def _unit(vector: Vector) -> Vector:
    return vector / max(vector_length(vector), 1e-9)


def _hypotheses(corners: list[Corner], card_aspect: float, paper: npt.NDArray[np.uint8],
                min_side: float, tolerance: _Tolerance) -> list[_Hypothesis]:
    found = []
    for i, first in enumerate(corners):
        for j in range(i + 1, len(corners)):
            second = corners[j]
            if tolerance.sharp and not (first.sharp and second.sharp):
                continue
            exact = _opposite(first, second, tolerance.parallel)
            quads = [exact] if exact is not None else _along_side(first, second, card_aspect,
                                                                  tolerance.parallel)
            for quad in quads:
                share = _plausible(quad, paper, min_side, tolerance)
                if share > 0:
                    found.append(_Hypothesis(quad, (i, j), exact is not None, share))
    return found


def outline_stays_out(quad: Quad, outline: npt.NDArray[np.float32]) -> bool:
    """Whether the paper region's outline keeps out of `quad`, as it must of a card.

    The outline of overlapping cards bounds their union, so it never enters a card: a
    hypothesis that it enters (two cards taken for one, say) is not a card.
    """
    if len(outline) == 0:
        return True
    order = 1.0 if _shoelace(quad.astype(np.float64)) > 0 else -1.0
    depth = np.full(len(outline), np.inf, np.float32)
    for index in range(4):
        start, end = quad[index], quad[(index + 1) % 4]
        side = _unit((end - start).astype(np.float64))
        inward = order * np.array([-side[1], side[0]], np.float32)
        depth = np.minimum(depth, (outline - start) @ inward)
    sides = np.linalg.norm(quad - rolled(quad, 1), axis=1)
    return float(depth.max()) <= 2.5 + 0.03 * float(sides.min())


def _opposite(first: Corner, second: Corner, parallel: float) -> Quad | None:
    """The card of which these are diagonally opposite corners, if their sides agree.

    The card's turn is the mean of the four sides' directions (two seen from each corner,
    a card's sides being square to each other), weighted by how far each was seen to run
    straight: the visible stretches of a covered card are short, each alone a poor guide.
    """
    sides = ((second.first, second.second, second.reach[0], second.reach[1]),
             (second.second, second.first, second.reach[1], second.reach[0]))
    for towards_first, towards_second, reach_first, reach_second in sides:
        if (np.dot(towards_first, -first.second) > parallel
                and np.dot(towards_second, -first.first) > parallel):
            across, down = _square_sides(
                [(first.first, first.reach[0]), (-towards_second, reach_second)],
                [(first.second, first.reach[1]), (-towards_first, reach_first)])
            corner_b = _ray_meet(first.point, across, second.point, -down)
            corner_d = _ray_meet(first.point, down, second.point, -across)
            if corner_b is not None and corner_d is not None:
                return _quad([first.point, corner_b, second.point, corner_d])
    return None


def _square_sides(across: list[tuple[Vector, float]], down: list[tuple[Vector, float]]
                  ) -> tuple[Vector, Vector]:
    """Two square directions fitted to weighted estimates of each (as unit vectors)."""
    turn = 1.0 if across[0][0][0] * down[0][0][1] - across[0][0][1] * down[0][0][0] > 0 else -1.0
    total = np.zeros(2)
    for vector, weight in across:
        total += weight * vector
    for vector, weight in down:
        total += weight * np.array([turn * vector[1], -turn * vector[0]])  # down turned across
    mean = _unit(total)
    return mean, np.array([-turn * mean[1], turn * mean[0]])


def _ray_meet(p: Vector, r: Vector, q: Vector, s: Vector) -> Vector | None:
    """Where two rays meet ahead of both starting points, or None."""
    point = intersect(p, r, q, s)
    if point is None or np.dot(point - p, r) <= 0 or np.dot(point - q, s) <= 0:
        return None
    return point


def _along_side(first: Corner, second: Corner, card_aspect: float,
                parallel: float) -> list[Quad]:
    """Cards with `first` and `second` at the two ends of one visible side."""
    for side, other in ((first.first, first.second), (first.second, first.first)):
        offset = second.point - first.point
        length = float(np.dot(offset, side))
        if length <= 0 or abs(side[0] * offset[1] - side[1] * offset[0]) > 2 + 0.06 * length:
            continue
        for back, onward in ((second.first, second.second), (second.second, second.first)):
            if np.dot(back, -side) > parallel and np.dot(onward, other) > parallel:
                return [_quad([first.point, second.point, second.point + onward * reach,
                               first.point + other * reach])
                        for reach in (length * card_aspect, length / card_aspect)]
    return []


def _quad(points: list[Vector]) -> Quad:
    return np.asarray(points, np.float32)


def _plausible(quad: Quad, paper: npt.NDArray[np.uint8], min_side: float,
               tolerance: _Tolerance) -> float:
    """The share of `quad` on paper if it is card-shaped, large enough and on paper; else 0."""
    sides = np.linalg.norm(quad - rolled(quad, 1), axis=1)
    short, long = sorted((sides[0] + sides[2], sides[1] + sides[3]))
    if short < 2 * min_side or not tolerance.aspects[0] <= long / short <= tolerance.aspects[1]:
        return 0.0
    if not cv2.isContourConvex(np.round(quad).astype(np.int32)):
        return 0.0
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    if x0 < 0 or y0 < 0 or x1 > paper.shape[1] or y1 > paper.shape[0]:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad - [x0, y0]).astype(np.int32), 1)
    area = int(inside.sum())
    share = float((inside & paper[y0:y1, x0:x1]).sum()) / max(area, 1)
    return share if share >= tolerance.paper else 0.0


def _choose(hypotheses: list[_Hypothesis], corners: list[Corner], known: list[Quad],
            min_side: float) -> list[Quad]:
    """Keep hypotheses that are new cards, each visible corner going to one card only.

    Cards of one deck have one size, and a dealt hand lies roughly parallel: a hypothesis
    goes before others when more other hypotheses and known cards share its shape, then when
    it comes from opposite corners.
    """
    used = {index for index, corner in enumerate(corners)
            if any(_near_corner(corner.point, quad, 0.5 * min_side) for quad in known)}
    shapes = [_shape(h.quad) for h in hypotheses]
    references = [_shape(quad) for quad in known]
    support = [sum(_alike(shape, other) for other in shapes + references) - 1
               for shape in shapes]
    chosen: list[Quad] = []
    order = sorted(range(len(hypotheses)),
                   key=lambda i: (-support[i], not hypotheses[i].exact, -hypotheses[i].paper))
    if order and support[order[0]] > 0:  # a shape most agree on: the odd ones out are not cards
        order = [i for i in order if support[i] > 0]
    for hypothesis in (hypotheses[i] for i in order):
        if any(_same_card(hypothesis.quad, quad, min_side) for quad in known + chosen):
            used.update(hypothesis.corners)
            continue
        if used.intersection(hypothesis.corners):
            continue
        used.update(hypothesis.corners)
        chosen.append(hypothesis.quad)
    return chosen


def _shape(quad: Quad) -> tuple[float, float, float]:
    """Short side, long side and the long sides' direction (degrees, modulo 180)."""
    sides = quad - rolled(quad, 1)
    lengths = np.linalg.norm(sides, axis=1)
    pair = 0 if lengths[0] + lengths[2] > lengths[1] + lengths[3] else 1
    long_side = sides[pair] - sides[pair + 2]
    angle = float(np.degrees(np.arctan2(long_side[1], long_side[0]))) % 180.0
    short = float(lengths[1 - pair] + lengths[3 - pair]) / 2
    return short, float(lengths[pair] + lengths[pair + 2]) / 2, angle


def _alike(first: tuple[float, float, float], second: tuple[float, float, float]) -> bool:
    turn = abs(first[2] - second[2]) % 180.0
    return (abs(first[0] - second[0]) < 0.12 * first[0]
            and abs(first[1] - second[1]) < 0.12 * first[1] and min(turn, 180.0 - turn) < 12.0)


def _near_corner(point: Vector, quad: Quad, distance: float) -> bool:
    """Whether `point` lies nearer than `distance` to a corner of `quad`."""
    return bool(np.linalg.norm(quad - point, axis=1).min() < distance)


def _same_card(first: Quad, second: Quad, min_side: float) -> bool:
    """Whether two outlines are one card: each corner of one near a corner of the other."""
    distances = np.linalg.norm(first[:, None, :] - second[None, :, :], axis=2)
    return bool(distances.min(axis=1).max() < 0.6 * min_side)
