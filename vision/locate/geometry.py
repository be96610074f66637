"""Quadrilaterals: corners in reading order, and a card's proportions."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.edges import Quad, vector_length


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
