"""The camera side of the cross-check: where positions lie in a frame, the worker, the emulation.

* `layout_points` places every layout position on the frame: the dealer (when the game has
  one) on the top row, the other positions below in rows of up to four, each a small grid of
  card slots far enough apart for the recogniser to find every card. A reading belongs to
  the position of the nearest slot. `[vision.positions]` replaces this for a real camera.
* `CameraWorker` owns the camera: on request it reads a frame and runs
  `vision.Recognizer.recognize` on its own thread (never the loop's), and posts the result to
  the loop as a `controller.crosscheck.CameraFrame`.
* `TableRenderer` draws the emulated layout camera's frames (`drivers.camera` takes it as its
  injected renderer) with `vision.synth`: the i-th card of a position on its i-th slot, each
  frame placed a little differently, as a dealer's hand and a real sensor would, so that
  another frame is another chance for an unsure reading.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from controller.crosscheck import CameraFrame, Sighting
from controller.rules.errors import ConfigError
from drivers.camera import CameraSource, emulated_render_options
from drivers.config import CameraConfig
from drivers.errors import DriverError
from vision import CardReading, VisionError
from vision.synth import BACKGROUNDS, CardStyle, Placement, compose

_LOG = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]
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
            Sighting(zone_of(points, _centre(r.quad)), r.card, r.confidence) for r in readings))


def _centre(quad: Sequence[Sequence[float]]) -> Point:
    return (sum(p[0] for p in quad) / len(quad), sum(p[1] for p in quad) / len(quad))


# ---------------------------------------------------------------- the emulated camera


class TableRenderer:
    """Draws the layout as the emulated overhead camera sees it (`drivers.camera.Render`).

    Args:
        zones: The table's layout positions.
        size: Frame (width, height).
        card_width: Card width in pixels (default: what fits the slots).
        background: A `vision.synth.BACKGROUNDS` table surface.
        seed: Seed of the table texture and of each frame's placement.
    """

    def __init__(self, zones: Sequence[str], *, size: tuple[int, int] = (1280, 960),
                 card_width: float | None = None, background: str = "felt-green",
                 seed: int = 0) -> None:
        self.zones = tuple(zones)
        self.size = size
        self.card_width = card_width or slot_card_width(self.zones, size)
        self.points = layout_points(self.zones, size, self.card_width)
        self.background = background
        self.seed = seed
        self.frames = 0
        self._style = CardStyle()

    def __call__(self, codes_by_position: Mapping[str, Sequence[str]]) -> Image:
        """The frame showing each position's cards (`vision.synth.BACK`: face down).

        Raises:
            ValueError: A position that is not on this layout.
        """
        self.frames += 1
        rng = np.random.default_rng([self.seed, self.frames])
        placements = []
        for zone, codes in codes_by_position.items():
            if zone not in self.zones:
                raise ValueError(f"position {zone!r} is not on the layout "
                                 f"(positions: {', '.join(self.zones)})")
            for number, code in enumerate(codes):
                placements.append(self._placement(zone, number, code, rng))
        return compose(placements, self.size, self._style, self.background, None,
                       self.seed + self.frames).frame

    def _placement(self, zone: str, number: int, code: str,
                   rng: np.random.Generator) -> Placement:
        slots = [name for name in self.points if name.partition(".")[0] == zone]
        # Beyond its slots a position's cards overlap the last one (not readable: unsure).
        x, y = self.points[slots[min(number, len(slots) - 1)]]
        overflow = max(0, number - len(slots) + 1) * 0.25 * self.card_width
        jitter = 0.04 * self.card_width
        return Placement(code, (x + overflow + float(rng.uniform(-jitter, jitter)),
                                y + float(rng.uniform(-jitter, jitter))),
                         self.card_width, float(rng.uniform(-4.0, 4.0)), 0.0,
                         seed=self.zones.index(zone) * 32 + number)


def emulated_renderer(camera: CameraConfig, zones: Sequence[str]) -> TableRenderer:
    """The renderer of an emulated `[devices.camera]` section (its width, height...).

    Raises:
        ConfigError: A render option of the wrong type or value, naming the key.
        drivers.errors.ConfigError: The same, as the camera driver reports it.
    """
    found = emulated_render_options(camera.name, camera.options)
    if found.get("background", BACKGROUNDS[0]) not in BACKGROUNDS:
        raise ConfigError(f"[devices.{camera.name}] background: expected one of "
                          f"{', '.join(BACKGROUNDS)}, got {found['background']!r}")
    return TableRenderer(zones, **found)
