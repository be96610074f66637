"""A scheduler whose time moves only when told, so debouncing and blink timing test exactly."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable

from drivers.timing import Timer


class _ManualTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualScheduler:
    """Time that moves only when told; timers run on the caller's thread inside `advance`."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._queue: list[tuple[float, int, _ManualTimer, Callable[[], None]]] = []
        self._order = itertools.count()
        self._lock = threading.Lock()

    def now(self) -> float:
        """The current manual time."""
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Queue `callback` to run when `advance` passes `now() + delay`."""
        handle = _ManualTimer()
        with self._lock:
            heapq.heappush(self._queue, (self._now + delay, next(self._order), handle, callback))
        return handle

    def advance(self, seconds: float) -> None:
        """Move time forward, running every due timer in time order."""
        deadline = self._now + seconds
        while True:
            with self._lock:
                if not self._queue or self._queue[0][0] > deadline:
                    break
                due, _, handle, callback = heapq.heappop(self._queue)
            self._now = max(self._now, due)
            if not handle.cancelled:
                callback()
        self._now = deadline

    @property
    def pending(self) -> int:
        """Timers queued and not cancelled."""
        with self._lock:
            return sum(1 for entry in self._queue if not entry[2].cancelled)
