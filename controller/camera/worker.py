"""The camera side of the cross-check: where positions lie in a frame, and the worker.

* `layout_points` places every layout position on the frame: the dealer (when the game has
  one) on the top row, the other positions below in rows of up to four, each a small grid of
  card slots far enough apart for the recogniser to find every card. A reading belongs to
  the position of the nearest slot. `[vision.positions]` replaces this for a real camera.
* `slot_boxes` gives each position's part of the frame (its slots and a card's size around
  them), so that a request for one position's cards recognises only that part.
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

import numpy as np

from controller.camera.crosscheck import CameraFrame, Sighting
from drivers.camera import CameraSource
from drivers.errors import DriverError
from vision import CardReading, Image, VisionError
from vision.recognize import LOW_CONFIDENCE

_LOG = logging.getLogger(__name__)

Point = tuple[float, float]
FramePart = tuple[int, int, int, int]
"""A part of a frame: left, top, right, bottom (pixels, right and bottom excluded)."""

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


def slot_boxes(points: Mapping[str, Point], card_width: float,
               size: tuple[int, int]) -> dict[str, FramePart]:
    """Each position's part of a frame of `size`: its slots' bounding box, widened by a card.

    A card lying on a slot, turned or pushed by a hand, or overlapping the last slot, lies
    inside: a card's width either side across and its length (1.4 widths) up and down.
    """
    width, height = size
    found: dict[str, FramePart] = {}
    for name, (x, y) in points.items():
        zone = name.partition(".")[0]
        left, top, right, bottom = found.get(zone, (width, height, 0, 0))
        found[zone] = (min(left, max(0, math.floor(x - card_width))),
                       min(top, max(0, math.floor(y - 1.4 * card_width))),
                       max(right, min(width, math.ceil(x + card_width))),
                       max(bottom, min(height, math.ceil(y + 1.4 * card_width))))
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
FrameParts = Callable[[int, int], Mapping[str, FramePart]]


class CameraWorker:
    """Reads and recognises frames on its own thread; posts each result to the loop.

    Args:
        camera: The camera source (opened here, and reopened after a failure).
        recognize: `vision.Recognizer.recognize` (or a stand-in in tests).
        post: The loop's `post`.
        points: Slot or position points for a frame of (width, height).
        boxes: Each position's part of a frame of (width, height) (`slot_boxes`); empty
            (the default) where it is not known: every frame is recognised whole.
    """

    def __init__(self, camera: CameraSource, recognize: Recognize, post: Callable[[Any], None],
                 points: Points, boxes: FrameParts = lambda _w, _h: {}) -> None:
        self.camera = camera
        self._recognize = recognize
        self._post = post
        self._points = points
        self._boxes = boxes
        self._requests: queue.SimpleQueue[tuple[int, tuple[str, ...]] | None] = (
            queue.SimpleQueue())
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the worker thread (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="camera-check", daemon=True)
            self._thread.start()

    def request(self, number: int, zones: tuple[str, ...] = ()) -> None:
        """Queue a frame for request `number`, of the cards on `zones` (all: empty).

        Safe from any thread.
        """
        self._requests.put((number, zones))

    def close(self, timeout: float = 10.0) -> None:
        """Finish the frame in hand and stop the thread."""
        if self._thread is not None:
            self._requests.put(None)
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while (asked := self._requests.get()) is not None:
            number, zones = asked
            try:
                self._post(self.capture(number, zones))
            except Exception as exc:  # noqa: BLE001 - the worker outlives any frame: a failure is a camera failure
                _LOG.exception("camera worker: request %d failed", number)
                self._post(CameraFrame(number, 0, (), f"camera worker failed: {exc!r}"))

    def capture(self, number: int, zones: tuple[str, ...] = ()) -> CameraFrame:
        """Read one frame and recognise it, or only the part showing `zones` (worker thread).

        A part is recognised only when every zone's box is known (`boxes`); its sightings
        are placed on the whole frame as usual.
        """
        try:
            if not self.camera.is_open:
                self.camera.open()
            frame = self.camera.read()
        except DriverError as exc:
            self.camera.close()  # the next request opens it again
            return CameraFrame(number, 0, (), str(exc))
        height, width = frame.image.shape[:2]
        left, top, right, bottom = _part(self._boxes(width, height), zones, (width, height))
        try:
            part = frame.image
            if (left, top, right, bottom) != (0, 0, width, height):
                part = np.ascontiguousarray(part[top:bottom, left:right])
            readings = self._recognize(part)
        except VisionError as exc:
            return CameraFrame(number, frame.number, (), f"vision: {exc}")
        points = self._points(width, height)
        return CameraFrame(number, frame.number, tuple(
            Sighting(zone_of(points, _centre(r.quad, (left, top))), r.card, r.confidence,
                     _guess(r), r.card or r.guess)
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


SMALLEST_PART: Final = 64
"""A part narrower or lower than this (pixels) is not recognised alone: the whole frame is."""


def _part(boxes: Mapping[str, FramePart], zones: tuple[str, ...],
          size: tuple[int, int]) -> FramePart:
    """The part of the frame showing `zones`: their boxes' union, or the whole frame."""
    whole = (0, 0, *size)
    if not zones or any(zone not in boxes for zone in zones):
        return whole
    chosen = [boxes[zone] for zone in zones]
    left, top = min(b[0] for b in chosen), min(b[1] for b in chosen)
    right, bottom = max(b[2] for b in chosen), max(b[3] for b in chosen)
    if min(right - left, bottom - top) < SMALLEST_PART:  # the recogniser needs room
        return whole
    return (left, top, right, bottom)


def _centre(quad: Sequence[Sequence[float]], offset: Point = (0.0, 0.0)) -> Point:
    """The centre of `quad` (a part's pixels) on the whole frame, the part at `offset`."""
    return (offset[0] + sum(p[0] for p in quad) / len(quad),
            offset[1] + sum(p[1] for p in quad) / len(quad))
