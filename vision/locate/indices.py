"""A learned finder of index corners: where a card's rank and suit are printed, with no outline.

The hand-built finder (`vision.locate.finder`) needs a card's outline, and a white card on a
pale table, or a card under others, shows none. Its index corner still shows: dark glyphs on
paper. `IndexFinder` runs a small fully convolutional net (ONNX, through OpenCV's DNN module)
over the frame's grey levels and answers each index corner's box, axis-aligned as the real
photos it learned from label them (`shared/cards-train`'s `cardcounter` source).

The net gives, every fourth pixel, a score that an index's centre lies there and the
index's width and height; a box is a local maximum of the score above the finder's
threshold. It is trained by `python -m vision.build.index_finder` (PyTorch, a build tool
only) and measured by `bench/vision.py --section index-finder`. It finds; it does not read:
which card a found corner shows is the recogniser's job.
"""

from __future__ import annotations

import json
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import ProfileError

FORMAT: Final = "shoectl-index-finder"
VERSION: Final = 1
STRIDE: Final = 4
"""Input pixels per output cell."""
ALIGN: Final = 16
"""The net's input sides must be multiples of this (its coarsest stage)."""
SIZE_UNIT: Final = 16.0
"""The size outputs are log(side / SIZE_UNIT), in input pixels."""
DEFAULT_PATH: Final = Path(__file__).resolve().parent / "index_finder.npz"


@dataclass(frozen=True, slots=True)
class IndexBox:
    """One index corner found in a frame.

    Attributes:
        x: Left edge, frame pixels.
        y: Top edge, frame pixels.
        width: Width, frame pixels.
        height: Height, frame pixels.
        score: The net's score (0-1) that an index's centre lies here.
    """

    x: float
    y: float
    width: float
    height: float
    score: float

    @property
    def centre(self) -> tuple[float, float]:
        """The box's centre."""
        return self.x + self.width / 2, self.y + self.height / 2


def grey_input(frame: npt.NDArray[np.uint8], longest: int
               ) -> tuple[npt.NDArray[np.float32], float]:
    """The net's input for a BGR (or grey) frame, and the factor from frame to input pixels.

    The frame is reduced (never enlarged) so its longer side is at most `longest`, padded at
    the right and bottom to a multiple of `ALIGN`, and its grey levels centred and scaled.
    """
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    factor = min(1.0, longest / max(grey.shape[:2]))
    if factor < 1.0:
        size = (max(1, round(grey.shape[1] * factor)), max(1, round(grey.shape[0] * factor)))
        grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    height, width = grey.shape[:2]
    padded = cv2.copyMakeBorder(grey, 0, -height % ALIGN, 0, -width % ALIGN,
                                cv2.BORDER_REPLICATE)
    return ((padded.astype(np.float32) - 128.0) / 64.0), factor


class IndexFinder:
    """Finds index corners in frames with a trained net.

    Args:
        onnx: The net as ONNX bytes: input `grey` (1 x 1 x h x w, h and w multiples of
            `ALIGN`), outputs `heat` (score logits, 1 x 1 x h/4 x w/4) and `size`
            (1 x 2 x h/4 x w/4: log width and log height over `SIZE_UNIT`).
        threshold: Lowest score of a box answered.
        longest: Frames are reduced to this longer side before the net sees them.
        info: Provenance and figures, as trained (JSON-able).
    """

    def __init__(self, onnx: bytes, threshold: float, longest: int,
                 info: dict[str, Any] | None = None) -> None:
        self.onnx = bytes(onnx)
        self.threshold = float(threshold)
        self.longest = int(longest)
        self.info = dict(info or {})
        self._net = cv2.dnn.readNetFromONNX(np.frombuffer(self.onnx, np.uint8))
        self._lock = threading.Lock()  # a cv2.dnn.Net runs one forward pass at a time

    def outputs(self, frame: npt.NDArray[np.uint8]
                ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], float]:
        """One frame's score map (0-1), size map (2 x h x w, input pixels) and scale factor."""
        grey, factor = grey_input(frame, self.longest)
        with self._lock:
            self._net.setInput(grey[np.newaxis, np.newaxis], "grey")
            heat, size = self._net.forward(["heat", "size"])
        scores = 1.0 / (1.0 + np.exp(-np.asarray(heat, np.float32)[0, 0]))
        sides = SIZE_UNIT * np.exp(np.asarray(size, np.float32)[0])
        return scores.astype(np.float32), sides.astype(np.float32), factor

    def find(self, frame: npt.NDArray[np.uint8], threshold: float | None = None
             ) -> list[IndexBox]:
        """Every index corner found in `frame` (BGR), best score first."""
        scores, sides, factor = self.outputs(frame)
        return peaks(scores, sides, factor, self.threshold if threshold is None else threshold)


def peaks(scores: npt.NDArray[np.float32], sides: npt.NDArray[np.float32], factor: float,
          threshold: float) -> list[IndexBox]:
    """The boxes at the score map's local maxima (3 x 3) at or above `threshold`."""
    kernel = np.ones((3, 3), np.uint8)
    local = (scores >= cv2.dilate(scores, kernel)) & (scores >= threshold)
    rows, columns = np.nonzero(local)
    order = np.argsort(-scores[rows, columns], kind="stable")
    found = []
    for row, column in zip(rows[order], columns[order], strict=True):
        width, height = float(sides[0, row, column]), float(sides[1, row, column])
        cx, cy = (column + 0.5) * STRIDE, (row + 0.5) * STRIDE
        found.append(IndexBox((cx - width / 2) / factor, (cy - height / 2) / factor,
                              width / factor, height / factor, float(scores[row, column])))
    return found


def save_index_finder(finder: IndexFinder, path: Path) -> None:
    """Write the finder as one `.npz`: the net's bytes and a JSON header (no pickles)."""
    meta = {"format": FORMAT, "version": VERSION, "threshold": finder.threshold,
            "longest": finder.longest, "info": finder.info}
    with path.open("wb") as handle:
        np.savez_compressed(handle, meta=np.array(json.dumps(meta, sort_keys=True)),
                            onnx=np.frombuffer(finder.onnx, np.uint8))


def load_index_finder(path: Path | None = None) -> IndexFinder:
    """The finder saved at `path` (the shipped one by default).

    Raises:
        ProfileError: The file is missing, of another format or version, or incomplete
            (naming the file).
    """
    where = path or DEFAULT_PATH
    try:
        with where.open("rb") as handle, np.load(handle, allow_pickle=False) as arrays:
            meta = json.loads(str(arrays["meta"]))
            onnx = arrays["onnx"].tobytes()
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ProfileError(f"{where}: not an index finder ({error})") from error
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise ProfileError(f"{where}: not an index finder of version {VERSION} "
                           f"(format {meta.get('format')!r}, version {meta.get('version')!r})")
    try:
        return IndexFinder(onnx, float(meta["threshold"]), int(meta["longest"]),
                           dict(meta.get("info", {})))
    except (KeyError, TypeError, cv2.error) as error:
        raise ProfileError(f"{where}: index finder unreadable ({error})") from error
