"""Cut an outline that a strip of table crosses into the two cards lying close."""

from __future__ import annotations

import functools
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.edges import Quad, rolled
from vision.locate.geometry import _side, order_corners
from vision.locate.paper import PaperLevels


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


_GAP_BAND: Final = (0.3, 0.7)
"""Where along an outline's long sides (share of their length) a strip of table may cross it."""


_GAP_LEAN: Final = 0.06
"""How far apart along the long sides (share of their length) a crossing strip's ends may lie."""


_GAP_MARGIN_PAPER: Final = 0.6
"""The least share of paper on the line beside a crossing strip: a card's margin (an index
may interrupt it)."""
