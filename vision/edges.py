"""Where paper meets table: brightness across a card's side, edge lines and where they meet.

Shared by the whole-card finder (`vision.locate`) and the finder of overlapping cards
(`vision.corners`), which both move rough outlines onto the card's edge in the
full-resolution frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
"""A camera frame or a picture: rows of BGR (or grey) pixels."""
Quad = npt.NDArray[np.float32]
"""Four corners (x, y) in frame pixels: top-left, top-right, bottom-right, bottom-left of the
card held upright, so the first edge is a short one. A 180-degree turn is not resolved here."""
Vector = npt.NDArray[np.float64]
EdgeLine = tuple[Vector, Vector]
"""A point on the line and its unit direction."""

_Item = TypeVar("_Item", bound=np.generic)

_MIN_FALL = 8.0
"""Grey levels by which brightness must fall across a side for a clear edge."""


_CHANNEL_RUN = np.ones((1, 3), np.uint8)


def min_channel(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The per-pixel minimum of B, G and R: paper stays bright, black and red ink go dark."""
    if image.ndim == 2:
        return image
    rows = np.ascontiguousarray(image).reshape(image.shape[0], -1)
    # a pixel's B, G and R lie side by side in its row: the least of the run of three that
    # starts at every third place is that pixel's (twice as quick as splitting the channels)
    runs = cv2.erode(rows, _CHANNEL_RUN, anchor=(0, 0), borderType=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(runs[:, ::3])


def vector_length(vector: npt.NDArray[np.floating]) -> float:
    """The length of a 1-D vector: `np.linalg.norm`'s figure, without its checks' cost."""
    return float(np.sqrt(vector.dot(vector)))


def rolled(points: npt.NDArray[_Item], start: int) -> npt.NDArray[_Item]:
    """`points` starting from the one at `start`: `np.roll(points, -start, axis=0)`, sooner."""
    start %= len(points)
    return np.concatenate((points[start:], points[:start]))


def edge_line(image: npt.NDArray[np.uint8], points: npt.NDArray[np.floating],
              outward: npt.NDArray[np.floating], offsets: npt.NDArray[np.floating],
              min_strong: int) -> EdgeLine | None:
    """The line of steepest fall from paper to table across a side.

    Args:
        image: The frame (BGR, or its `min_channel` already).
        points: Points along the side (n x 2, frame pixels).
        outward: Unit normal of the side, from paper towards the table.
        offsets: Where the brightness is sampled across the side at each point, along
            `outward` (pixels).
        min_strong: Fewest points that must show a clear fall for a line to be fitted.

    Returns:
        The fitted line, or None when too few points show a clear edge.
    """
    return edge_lines(image, [points], [outward], offsets, min_strong)[0]


def edge_lines(image: npt.NDArray[np.uint8], points: Sequence[npt.NDArray[np.floating]],
               outwards: Sequence[npt.NDArray[np.floating]], offsets: npt.NDArray[np.floating],
               min_strong: int) -> list[EdgeLine | None]:
    """`edge_line` for several sides, sampling the image for all of them in one call.

    Args:
        image: The frame (BGR, or its `min_channel` already).
        points: Per side, points along it (n x 2 each, frame pixels).
        outwards: Per side, its unit normal from paper towards the table.
        offsets: Where the brightness is sampled across every side (pixels).
        min_strong: Fewest points of a side that must show a clear fall.
    """
    samples = np.concatenate([side[:, None, :] + offsets[None, :, None] * outward
                              for side, outward in zip(points, outwards, strict=True)])
    map_x = np.ascontiguousarray(samples[..., 0], np.float32)
    map_y = np.ascontiguousarray(samples[..., 1], np.float32)
    values = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    profile = min_channel(values).astype(np.float32)
    fall = profile[:, :-2] - profile[:, 2:]
    steepest = fall.argmax(axis=1)
    strong = fall[np.arange(len(steepest)), steepest] > _MIN_FALL
    lines: list[EdgeLine | None] = []
    start = 0
    for side, outward in zip(points, outwards, strict=True):
        rows = slice(start, start + len(side))
        start += len(side)
        if int(strong[rows].sum()) < min_strong:
            lines.append(None)
            continue
        chosen = strong[rows]
        edge = side[chosen] + offsets[steepest[rows][chosen] + 1][:, None] * outward
        vx, vy, x0, y0 = cv2.fitLine(edge.astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                                     0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    return lines


def intersect(p: npt.NDArray[np.floating], r: npt.NDArray[np.floating],
              q: npt.NDArray[np.floating], s: npt.NDArray[np.floating]) -> Vector | None:
    """Where the line through `p` along `r` meets the line through `q` along `s`.

    Returns:
        The meeting point, or None when the lines are parallel.
    """
    denominator = r[0] * s[1] - r[1] * s[0]
    if abs(denominator) < 1e-6:
        return None
    t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / denominator
    return np.asarray(p + t * r, np.float64)
