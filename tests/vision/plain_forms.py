"""Plain forms of computations the reader now does faster, for the equivalence tests."""

from __future__ import annotations

import cv2
import numpy as np

from vision.edges import Quad


def plain_paper_contrast(small: np.ndarray, quad: Quad) -> float:
    """`vision.locate.paper_contrast` in its first, plain form: two medians of one warp."""
    size, margin = (40, 54), 7
    inner = np.array([[margin, margin], [size[0] - margin, margin],
                      [size[0] - margin, size[1] - margin], [margin, size[1] - margin]],
                     np.float32)
    transform = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), inner)
    patch = cv2.warpPerspective(small, transform, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    ring = np.zeros(patch.shape, bool)
    ring[margin + 1:-margin - 1, margin + 1:-margin - 1] = True
    ring[margin + 4:-margin - 4, margin + 4:-margin - 4] = False
    around = np.zeros(patch.shape, bool)
    around[1:-1, 1:-1] = True
    around[margin - 2:-margin + 2, margin - 2:-margin + 2] = False
    return float(np.median(patch[ring]) - np.median(patch[around]))
