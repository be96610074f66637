"""Fixed-length descriptions of glyph ink maps for the classifiers.

A glyph's ink map is stretched to a fixed box (so condensed and wide typefaces meet), then
described by a histogram of oriented gradients (8x8 cells of the stretched map, signed
orientations, 2x2 block normalisation) followed by a coarse copy of the map itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

RANK_BOX: Final = (24, 36)
"""Width and height a rank glyph is stretched to."""
SUIT_BOX: Final = (24, 24)
"""Width and height a suit glyph is stretched to."""
_CELL: Final = 6
_BINS: Final = 12
_PIXEL_WEIGHT: Final = 0.5


def glyph_features(ink: npt.NDArray[np.float32], box: tuple[int, int]) -> npt.NDArray[np.float32]:
    """Describe a glyph's ink map as a vector (HOG of the stretched map, then its thumbnail).

    Args:
        ink: The glyph's ink map (0 paper, 1 ink), any size.
        box: (width, height) the map is stretched to; `RANK_BOX` or `SUIT_BOX`.
    """
    stretched = cv2.resize(np.ascontiguousarray(ink, np.float32), box,
                           interpolation=cv2.INTER_AREA)
    thumb = cv2.resize(stretched, (box[0] // 3, box[1] // 3), interpolation=cv2.INTER_AREA)
    return np.concatenate([_hog(stretched), _PIXEL_WEIGHT * thumb.ravel()]).astype(np.float32)


def glyphs_features(inks: Sequence[npt.NDArray[np.float32]], box: tuple[int, int]
                    ) -> npt.NDArray[np.float32]:
    """`glyph_features` of many glyphs (one row each), their gradients binned at once.

    Each row is the vector `glyph_features` gives for that glyph, to the last bit.
    """
    if not inks:
        return np.zeros((0, feature_length(box)), np.float32)
    stretched = np.stack([cv2.resize(np.ascontiguousarray(ink, np.float32), box,
                                     interpolation=cv2.INTER_AREA) for ink in inks])
    return np.concatenate([_hogs(stretched), _PIXEL_WEIGHT * _thumbnails(stretched)], axis=1)


def _thumbnails(stretched: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each of `stretched` (count x height x width) shrunk by 3 by areas, one row each."""
    count, height, width = stretched.shape
    size = (width // 3, height // 3)
    if height % 3 or width % 3:
        return np.stack([cv2.resize(image, size, interpolation=cv2.INTER_AREA)
                         for image in stretched]).reshape(count, -1)
    # by a whole factor each thumbnail pixel is the mean of its own 3 x 3 block, so the maps
    # stacked into one column shrink in one call as each would alone
    column = cv2.resize(stretched.reshape(count * height, width), (size[0], count * size[1]),
                        interpolation=cv2.INTER_AREA)
    return column.reshape(count, -1)


def feature_length(box: tuple[int, int]) -> int:
    """Length of `glyph_features` vectors for glyphs stretched to `box`."""
    cells_x, cells_y = box[0] // _CELL, box[1] // _CELL
    return (cells_x - 1) * (cells_y - 1) * 4 * _BINS + (box[0] // 3) * (box[1] // 3)


def _hog(image: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    grad_x = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=1)
    grad_y = cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=1)
    magnitude, angle = cv2.cartToPolar(grad_x, grad_y)
    position = angle * (_BINS / (2 * np.pi))
    lower = np.floor(position)
    upper_weight = position - lower
    lower_bin = lower.astype(np.int64) % _BINS
    upper_bin = (lower_bin + 1) % _BINS
    height, width = image.shape
    cells_y, cells_x = height // _CELL, width // _CELL
    cell = _CELL_BINS[(width, height)] if (width, height) in _CELL_BINS else _cell_bins(
        (width, height))
    size = cells_y * cells_x * _BINS
    hist = np.bincount((cell + lower_bin).ravel(), (magnitude * (1 - upper_weight)).ravel(),
                       size) + np.bincount((cell + upper_bin).ravel(),
                                           (magnitude * upper_weight).ravel(), size)
    return _block_normalise(hist.astype(np.float64).reshape(cells_y, cells_x, _BINS))


def _hogs(images: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """`_hog` of each of `images` (count x height x width), one row each.

    The gradients are `cv2.Sobel`'s with a 1 x 3 kernel (reflected borders, so zero on the
    outermost rows and columns), taken by array slicing for every image at once.
    """
    count, height, width = images.shape
    grad_x = np.zeros_like(images)
    grad_y = np.zeros_like(images)
    grad_x[:, :, 1:-1] = images[:, :, 2:] - images[:, :, :-2]
    grad_y[:, 1:-1, :] = images[:, 2:, :] - images[:, :-2, :]
    magnitude, angle = cv2.cartToPolar(grad_x.reshape(-1, width), grad_y.reshape(-1, width))
    position = angle.reshape(images.shape) * (_BINS / (2 * np.pi))
    lower = np.floor(position)
    upper_weight = position - lower
    # an angle's bins (its position's floor and the next, modulo the bins) by look-up: the
    # position lies in [0, _BINS], so its floor fits a byte
    whole = lower.astype(np.uint8)
    lower_bin, upper_bin = cv2.LUT(whole, _LOWER_BIN), cv2.LUT(whole, _UPPER_BIN)
    cells_y, cells_x = height // _CELL, width // _CELL
    size = cells_y * cells_x * _BINS
    cell = (_CELL_BINS[(width, height)] if (width, height) in _CELL_BINS
            else _cell_bins((width, height)))[None] + (np.arange(count) * size)[:, None, None]
    magnitude = magnitude.reshape(images.shape)
    hist = np.bincount((cell + lower_bin).ravel(), (magnitude * (1 - upper_weight)).ravel(),
                       count * size) + np.bincount((cell + upper_bin).ravel(),
                                                   (magnitude * upper_weight).ravel(),
                                                   count * size)
    cells = hist.reshape(count, cells_y, cells_x, _BINS)
    blocks = np.concatenate([cells[:, :-1, :-1], cells[:, :-1, 1:], cells[:, 1:, :-1],
                             cells[:, 1:, 1:]], axis=3)
    norms = np.sqrt((blocks * blocks).sum(axis=3, keepdims=True) + 1e-3)
    return (blocks / norms).reshape(count, -1).astype(np.float32)


def _cell_bins(box: tuple[int, int]) -> npt.NDArray[np.int64]:
    """Per pixel of a map of `box`'s size, the first histogram bin of its cell."""
    width, height = box
    cells_y, cells_x = height // _CELL, width // _CELL
    rows = np.minimum(np.arange(height) // _CELL, cells_y - 1)
    cols = np.minimum(np.arange(width) // _CELL, cells_x - 1)
    return np.asarray((rows[:, None] * cells_x + cols[None, :]) * _BINS, np.int64)


_CELL_BINS: Final = {box: _cell_bins(box) for box in (RANK_BOX, SUIT_BOX)}
_LOWER_BIN: Final = (np.arange(256) % _BINS).astype(np.uint8)
_UPPER_BIN: Final = ((np.arange(256) + 1) % _BINS).astype(np.uint8)


def _block_normalise(cells: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    blocks = np.concatenate([cells[:-1, :-1], cells[:-1, 1:], cells[1:, :-1], cells[1:, 1:]],
                            axis=2)
    norms = np.sqrt((blocks * blocks).sum(axis=2, keepdims=True) + 1e-3)
    return (blocks / norms).ravel().astype(np.float32)
