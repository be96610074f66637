"""Clocks and timers the drivers take as parameters, so tests can drive time by hand.

`MonotonicScheduler` is the one the drivers run on (`threading.Timer` on `time.monotonic`);
the tests pass one whose time moves only when they say (`tests/support/timing.py`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A pending call that can be cancelled."""

    def cancel(self) -> None:
        """Stop the call if it has not run yet (idempotent)."""


class Scheduler(Protocol):
    """A clock plus one-shot timers."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run `callback` after `delay` seconds (on some thread); return a cancellable handle."""


class MonotonicScheduler:
    """Real time: `time.monotonic` and daemon `threading.Timer`s."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Start a daemon timer thread that runs `callback` after `delay` seconds."""
        timer = threading.Timer(delay, callback)
        timer.daemon = True
        timer.start()
        return timer
