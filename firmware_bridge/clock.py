"""Time for the bridge: an injectable monotonic clock, and a fake one for tests.

Everything in the bridge that needs the time takes a `Clock` (a function returning seconds
on a monotonic scale) instead of reading `time` itself, so tests and emulators can drive
timers by hand (`FakeClock.advance`) and never sleep.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

Clock = Callable[[], float]
"""Returns the current time in seconds on a monotonic scale."""

monotonic: Final[Clock] = time.monotonic


class FakeClock:
    """A clock that moves only when told to; thread-safe.

    Example:
        >>> clock = FakeClock()
        >>> clock.advance(0.25)
        >>> clock()
        0.25
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        """Return the current fake time."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        """Move the time forward by `seconds` (never backward)."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back {seconds} s")
        with self._lock:
            self._now += seconds

