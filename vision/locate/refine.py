"""Fit a found outline's sides to the card's edge in the full frame."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision.edges import EdgeLine, Quad, edge_lines, rolled, vector_length

_ALONG_SIDE = np.linspace(0.15, 0.85, 16, dtype=np.float32)[:, None]
"""Where along a side (share of its length) `refine_edges` looks for the card's edge."""


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
