"""The camera side of the cross-check: where positions lie in a frame, and the worker.

* `layout_points` places every layout position on the frame: the dealer (when the game has
  one) on the top row, the other positions below in rows of up to four, each a small grid of
  card slots far enough apart for the recogniser to find every card. A reading belongs to
  the position of the nearest slot. `[vision.positions]` replaces this for a real camera.
* `CameraWorker` owns the camera: on request it reads a frame and runs
  `vision.Recognizer.recognize` on its own thread (never the loop's), and posts the result to
  the loop as a `controller.camera.crosscheck.CameraFrame`.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from controller.camera.crosscheck import CameraFrame, Sighting
from drivers.camera import CameraSource
from drivers.errors import DriverError
from vision import CardReading, Image, VisionError
from vision.recognize import LOW_CONFIDENCE

_LOG = logging.getLogger(__name__)

Point = tuple[float, float]

SLOT_STEP_X: Final = 1.4
"""Slot spacing across, in card widths (the recogniser needs cards apart)."""
SLOT_STEP_Y: Final = 1.75
"""Slot spacing down, in card widths."""
TOP_ZONE: Final = "dealer"
_TOP_GRID: Final = (4, 2)
_GRID: Final = (3, 2)
_PER_ROW: Final = 4


def _rows(zones: Sequence[str]) -> tuple[list[str], int, int]:
    """The positions below the top row, how many share a row, and the rows in all."""
    others = [z for z in zones if z != TOP_ZONE]
    per_row = max(1, min(_PER_ROW, len(others)))
    return others, per_row, math.ceil(len(others) / per_row) + (TOP_ZONE in zones)


def slot_card_width(zones: Sequence[str], size: tuple[int, int]) -> float:
    """The card width (pixels) that fits every position's slots on a frame of `size`."""
    width, height = size
    _, per_row, rows = _rows(zones)
    across = width / (per_row * _GRID[0] * SLOT_STEP_X + 0.6)
    down = height / (max(rows, 1) * _GRID[1] * SLOT_STEP_Y + 0.8)
    return 0.9 * min(across, down)


def layout_points(zones: Sequence[str], size: tuple[int, int],
                  card_width: float | None = None) -> dict[str, Point]:
    """The centre of every card slot, named "<position>.<n>" (n from 0, in dealing order).

    Args:
        zones: The layout positions ("dealer", "seat1", ... or "player", "banker").
        size: Frame (width, height) in pixels.
        card_width: Card width in pixels (default: `slot_card_width`).
    """
    width, height = size
    card = card_width or slot_card_width(zones, size)
    others, per_row, rows = _rows(zones)
    points: dict[str, Point] = {}
    row = 0
    if TOP_ZONE in zones:
        points |= _slots(TOP_ZONE, (width / 2, height * 0.5 / rows), card, _TOP_GRID)
        row = 1
    for index, zone in enumerate(others):
        line, column = divmod(index, per_row)
        in_line = min(per_row, len(others) - line * per_row)
        x = width * (column + 0.5 + (per_row - in_line) / 2) / per_row
        y = height * (row + line + 0.5) / rows
        points |= _slots(zone, (x, y), card, _GRID)
    return points


def _slots(zone: str, centre: Point, card: float, grid: tuple[int, int]) -> dict[str, Point]:
    columns, lines = grid
    found = {}
    for number in range(columns * lines):
        line, column = divmod(number, columns)
        found[f"{zone}.{number}"] = (centre[0] + (column - (columns - 1) / 2) * SLOT_STEP_X * card,
                                     centre[1] + (line - (lines - 1) / 2) * SLOT_STEP_Y * card)
    return found


def zone_of(points: Mapping[str, Point], where: Point) -> str:
    """The position whose nearest slot (or configured point) is closest to `where`."""
    if not points:
        return ""
    name = min(points, key=lambda p: math.dist(points[p], where))
    return name.partition(".")[0]


# ---------------------------------------------------------------- the worker


Recognize = Callable[[Image], list[CardReading]]
Points = Callable[[int, int], Mapping[str, Point]]


class CameraWorker:
    """Reads and recognises frames on its own thread; posts each result to the loop.

    Args:
        camera: The camera source (opened here, and reopened after a failure).
        recognize: `vision.Recognizer.recognize` (or a stand-in in tests).
        post: The loop's `post`.
        points: Slot or position points for a frame of (width, height).
    """

    def __init__(self, camera: CameraSource, recognize: Recognize, post: Callable[[Any], None],
                 points: Points) -> None:
        self.camera = camera
        self._recognize = recognize
        self._post = post
        self._points = points
        self._requests: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the worker thread (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="camera-check", daemon=True)
            self._thread.start()

    def request(self, number: int) -> None:
        """Queue a frame for request `number` (safe from any thread)."""
        self._requests.put(number)

    def close(self, timeout: float = 10.0) -> None:
        """Finish the frame in hand and stop the thread."""
        if self._thread is not None:
            self._requests.put(None)
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while (number := self._requests.get()) is not None:
            try:
                self._post(self.capture(number))
            except Exception as exc:  # noqa: BLE001 - the worker outlives any frame: a failure is a camera failure
                _LOG.exception("camera worker: request %d failed", number)
                self._post(CameraFrame(number, 0, (), f"camera worker failed: {exc!r}"))

    def capture(self, number: int) -> CameraFrame:
        """Read one frame and recognise it (runs on the worker thread)."""
        try:
            if not self.camera.is_open:
                self.camera.open()
            frame = self.camera.read()
        except DriverError as exc:
            self.camera.close()  # the next request opens it again
            return CameraFrame(number, 0, (), str(exc))
        try:
            readings = self._recognize(frame.image)
        except VisionError as exc:
            return CameraFrame(number, frame.number, (), f"vision: {exc}")
        height, width = frame.image.shape[:2]
        points = self._points(width, height)
        return CameraFrame(number, frame.number, tuple(
            Sighting(zone_of(points, _centre(r.quad)), r.card, r.confidence, _guess(r))
            for r in readings))


def _guess(reading: CardReading) -> str | None:
    """The card answered; for an unsure card, its guess if it failed only the threshold.

    Both corners named that card, its glyphs look like the profile's and the ink fits the
    suit: what is left is a hint for the dealer's eye. A guess failing any other check is
    noise (a card's back yields one too) and is dropped.
    """
    if reading.card is not None:
        return reading.card
    return reading.guess if reading.reason == LOW_CONFIDENCE else None


def _centre(quad: Sequence[Sequence[float]]) -> Point:
    return (sum(p[0] for p in quad) / len(quad), sum(p[1] for p in quad) / len(quad))
