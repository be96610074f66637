"""Stroke outlines of the rank characters, drawn for this package (two or three of each).

Coordinates are in a box one unit tall, y downwards from the cap line; angles of arcs are in
degrees on screen (0 right, 90 down, 270 up). `strokes_of` returns the polylines of one
drawing, with serif ticks added at stroke ends when the style asks for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

Stroke = npt.NDArray[np.float64]
_SERIF_HALF: Final = 0.09


class _Style(Protocol):
    @property
    def variant(self) -> int: ...

    @property
    def serif(self) -> bool: ...


def _arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float) -> Stroke:
    angles = np.radians(np.linspace(start, end, max(8, round(abs(end - start) / 6))))
    return np.stack([cx + rx * np.cos(angles), cy + ry * np.sin(angles)], axis=1)


def _curve(*points: tuple[float, float]) -> Stroke:
    start, control, end = (np.array(p, dtype=np.float64) for p in points)
    t = np.linspace(0.0, 1.0, 24)[:, None]
    return (1 - t) ** 2 * start + 2 * (1 - t) * t * control + t**2 * end


def _line(*points: tuple[float, float]) -> Stroke:
    return np.array(points, dtype=np.float64)


def _join(*parts: Stroke) -> Stroke:
    return np.concatenate(parts)


def _turned(strokes: list[Stroke], width: float) -> list[Stroke]:
    """The same drawing turned half a turn (a 6 becomes a 9)."""
    return [np.stack([width - s[:, 0], 1.0 - s[:, 1]], axis=1) for s in strokes]


_Drawing = tuple[list[Stroke], list[tuple[float, float]]]


def _six_plain() -> list[Stroke]:
    return [_arc(0.3, 0.68, 0.29, 0.31, 0, 360), _curve((0.52, 0.03), (0.05, 0.08), (0.02, 0.66))]


def _six_straight() -> list[Stroke]:
    return [_arc(0.3, 0.68, 0.29, 0.31, 0, 360), _line((0.47, 0.0), (0.06, 0.56))]


def _six_round() -> list[Stroke]:
    """The common book-face 6: the stem is the upper part of a tall oval."""
    return [_arc(0.3, 0.72, 0.28, 0.27, 0, 360), _arc(0.31, 0.5, 0.3, 0.5, 320, 160)]


_DRAWINGS: Final[dict[str, Callable[[], list[_Drawing]]]] = {
    "A": lambda: [
        ([_line((0, 1), (0.35, 0), (0.7, 1)), _line((0.14, 0.62), (0.56, 0.62))],
         [(0, 1), (0.7, 1)]),
        ([_line((0, 1), (0.3, 0), (0.4, 0), (0.7, 1)), _line((0.13, 0.66), (0.57, 0.66))],
         [(0, 1), (0.7, 1)]),
    ],
    "2": lambda: [
        ([_join(_arc(0.3, 0.28, 0.28, 0.26, 195, 360), _curve((0.58, 0.28), (0.58, 0.55),
                                                             (0, 1)), _line((0.62, 1)))], []),
        ([_join(_arc(0.3, 0.28, 0.28, 0.26, 190, 380), _line((0, 1), (0.6, 1)))], []),
    ],
    "3": lambda: [
        ([_join(_arc(0.3, 0.26, 0.27, 0.24, 200, 450), _arc(0.3, 0.74, 0.3, 0.26, 270, 520))],
         []),
        ([_join(_line((0.05, 0), (0.55, 0), (0.25, 0.42)), _arc(0.3, 0.7, 0.3, 0.28, 250, 520))],
         []),
    ],
    "4": lambda: [
        ([_line((0.45, 1), (0.45, 0), (0, 0.68), (0.64, 0.68))], [(0.45, 1)]),
        ([_line((0.14, 0), (0, 0.66), (0.64, 0.66)), _line((0.45, 0.36), (0.45, 1))],
         [(0.45, 1)]),
    ],
    "5": lambda: [
        ([_join(_line((0.55, 0), (0.1, 0), (0.06, 0.47)), _arc(0.3, 0.68, 0.3, 0.32, 215, 515))],
         []),
        ([_join(_line((0.56, 0), (0.12, 0), (0.08, 0.42)), _arc(0.3, 0.67, 0.3, 0.33, 220, 510))],
         []),
    ],
    "6": lambda: [(_six_plain(), []), (_six_straight(), []), (_six_round(), [])],
    "7": lambda: [
        ([_line((0, 0), (0.6, 0), (0.2, 1))], [(0.2, 1)]),
        ([_line((0, 0), (0.6, 0)), _curve((0.6, 0), (0.3, 0.4), (0.25, 1))], []),
    ],
    "8": lambda: [
        ([_arc(0.3, 0.25, 0.24, 0.24, 0, 360), _arc(0.3, 0.73, 0.29, 0.27, 0, 360)], []),
        ([_arc(0.3, 0.26, 0.27, 0.25, 0, 360), _arc(0.3, 0.74, 0.3, 0.26, 0, 360)], []),
    ],
    "9": lambda: [(_turned(_six_plain(), 0.6), []), (_turned(_six_straight(), 0.6), []),
                  (_turned(_six_round(), 0.6), [])],
    "1": lambda: [
        ([_line((0.12, 0.2), (0.35, 0), (0.35, 1))], [(0.35, 1)]),
        ([_line((0.15, 0.12), (0.3, 0), (0.3, 1))], []),
    ],
    "0": lambda: [
        ([_arc(0.3, 0.5, 0.3, 0.5, 0, 360)], []),
        ([_arc(0.26, 0.5, 0.26, 0.5, 0, 360)], []),
    ],
    "J": lambda: [
        ([_join(_line((0.55, 0), (0.55, 0.7)), _arc(0.3, 0.7, 0.25, 0.28, 0, 170))],
         [(0.55, 0)]),
        ([_line((0.25, 0), (0.72, 0)),
          _join(_line((0.5, 0), (0.5, 0.72)), _arc(0.27, 0.72, 0.23, 0.27, 0, 180))], []),
    ],
    "Q": lambda: [
        ([_arc(0.36, 0.48, 0.36, 0.48, 0, 360), _line((0.42, 0.7), (0.76, 1.05))], []),
        ([_arc(0.36, 0.48, 0.36, 0.48, 0, 360), _curve((0.3, 0.93), (0.5, 1.1), (0.8, 1.05))],
         []),
        ([_arc(0.36, 0.46, 0.35, 0.46, 0, 360), _curve((0.1, 0.78), (0.45, 1.1), (0.85, 1.02))],
         []),
    ],
    "K": lambda: [
        ([_line((0, 0), (0, 1)), _line((0.62, 0), (0, 0.62)), _line((0.2, 0.44), (0.66, 1))],
         [(0, 0), (0, 1), (0.62, 0), (0.66, 1)]),
        ([_line((0, 0), (0, 1)), _line((0.62, 0), (0.02, 0.55), (0.66, 1))],
         [(0, 0), (0, 1), (0.62, 0), (0.66, 1)]),
    ],
    "T": lambda: [
        ([_line((0, 0), (0.7, 0)), _line((0.35, 0), (0.35, 1))], [(0.35, 1)]),
        ([_line((0, 0.06), (0, 0), (0.7, 0), (0.7, 0.06)), _line((0.35, 0), (0.35, 1))],
         [(0.35, 1)]),
    ],
}

CHARACTERS: Final = frozenset(_DRAWINGS)
"""Characters that have stroke outlines: every rank letter ("T" for decks that print the ten
so), plus "1" and "0" for "10"."""


def strokes_of(char: str, style: _Style) -> list[Stroke]:
    """The polylines that draw `char` in `style` (its drawing variant, and serifs if any).

    Raises:
        KeyError: `char` has no outline (see `CHARACTERS`).
    """
    drawings = _DRAWINGS[char]()
    choice = (style.variant >> sorted(CHARACTERS).index(char)) % len(drawings)
    strokes, serif_points = drawings[choice]
    if style.serif:
        strokes = strokes + [_line((x - _SERIF_HALF, y), (x + _SERIF_HALF, y))
                             for x, y in serif_points]
    return strokes
