"""Paper in a reduced frame: its grey levels, colourless paper, a card's margin contrast."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.edges import Quad, min_channel


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


_CONTRAST_INNER, _CONTRAST_RING, _CONTRAST_AROUND = _contrast_bands()


_CONTRAST_RING_AT, _CONTRAST_AROUND_AT = (np.flatnonzero(_CONTRAST_RING),
                                          np.flatnonzero(_CONTRAST_AROUND))
"""Where the inner margin and the band around lie in `paper_contrast`'s patch, row by row."""
