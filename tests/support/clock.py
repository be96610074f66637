"""A clock that moves only when told to, for tests that drive timers by hand."""

from __future__ import annotations

import threading


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

