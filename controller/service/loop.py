"""The controller's single event loop: one thread owns all state, everything else posts to it.

Drivers call `post` from their reader threads; timers are kept on a heap and fire on the
loop thread; the clock is injected so tests run on a fake clock with `run_until_idle`
instead of sleeping.

The queue is bounded (`MAX_EVENTS`, 10,000 events by default): an event posted to a full
queue is dropped, one error line names the queue and its bound, and the loop raises
`EventQueueFullError` before it handles anything more, so the table stops (outputs safe, the
crash journalled) instead of growing without limit. Nothing a board counts is lost by the
drop: the shoe's board keeps every event until the journal holds it and repeats it to the
next run (decision 120 "Acknowledge when handled").
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_LOG = logging.getLogger(__name__)

MAX_EVENTS = 10_000
"""The event queue's bound: far beyond any burst a table makes (a shoe deals a few cards a
second, a layout board a few changes), small enough to hold in memory on a Pi."""


class EventQueueFullError(RuntimeError):
    """The loop's event queue reached its bound: the loop is not keeping up."""


@dataclass(order=True)
class TimerHandle:
    """A scheduled callback; `cancel` it through the loop or directly."""

    when: float
    order: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        """Stop the callback from running (idempotent)."""
        self.cancelled = True


class EventLoop:
    """A single-threaded dispatcher of posted events and timers.

    Args:
        handler: Called on the loop thread with each posted event, in order (the composition
            root may set it later, with `set_handler`, before the loop runs).
        clock: Monotonic clock (seconds); `time.monotonic` in production.
        max_events: The queue's bound (`MAX_EVENTS`).
    """

    def __init__(self, handler: Callable[[Any], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 max_events: int = MAX_EVENTS) -> None:
        self._handler = handler
        self.clock = clock
        self.max_events = max_events
        self.dropped = 0
        """Events dropped because the queue was full (the loop stops at the first)."""
        self._queue: deque[Any] = deque()
        self._timers: list[TimerHandle] = []
        self._order = itertools.count()
        self._wakeup = threading.Condition()
        self._stopping = False
        self.thread_id: int | None = None

    def set_handler(self, handler: Callable[[Any], None]) -> None:
        """Replace the event handler (the composition root wires it after building)."""
        self._handler = handler

    def post(self, event: Any) -> None:
        """Queue an event for the loop thread (safe from any thread; never raises).

        On a full queue the event is dropped, and the loop raises `EventQueueFullError` next.
        """
        with self._wakeup:
            if len(self._queue) >= self.max_events:
                self.dropped += 1
                if self.dropped == 1:
                    _LOG.error("event queue full: the loop's queue holds its bound of %d "
                               "events; the table stops", self.max_events)
            else:
                self._queue.append(event)
            self._wakeup.notify()

    def call_at(self, when: float, callback: Callable[[], None]) -> TimerHandle:
        """Run `callback` on the loop thread once the clock reaches `when`."""
        handle = TimerHandle(when, next(self._order), callback)
        with self._wakeup:
            heapq.heappush(self._timers, handle)
            self._wakeup.notify()
        return handle

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        """Run `callback` on the loop thread `delay` seconds from now."""
        return self.call_at(self.clock() + delay, callback)

    @staticmethod
    def cancel(handle: TimerHandle | None) -> None:
        """Cancel a timer (None and already-run timers are accepted)."""
        if handle is not None:
            handle.cancel()

    def stop(self) -> None:
        """Ask `run_forever` to return after the event in hand (safe from any thread)."""
        with self._wakeup:
            self._stopping = True
            self._wakeup.notify()

    def run_once(self) -> bool:
        """Handle one due timer or one queued event; return False when there was none.

        Raises:
            EventQueueFullError: An event was dropped on a full queue.
        """
        with self._wakeup:
            if self.dropped:
                raise EventQueueFullError(f"the event loop's queue reached its bound of "
                                     f"{self.max_events} events ({self.dropped} dropped)")
            timer = self._pop_due_timer()
            event = None if timer or not self._queue else (self._queue.popleft(),)
        if timer is not None:
            timer.callback()
            return True
        if event is not None:
            if self._handler is None:
                raise RuntimeError("the event loop runs with no handler set")
            self._handler(event[0])
            return True
        return False

    def run_until_idle(self, limit: int = 1_000_000) -> int:
        """Handle every queued event and every timer due now; return how many ran."""
        self.thread_id = threading.get_ident()
        ran = 0
        while ran < limit and self.run_once():
            ran += 1
        return ran

    def run_forever(self) -> None:
        """Dispatch until `stop`; sleep on the condition between events and timers."""
        self.thread_id = threading.get_ident()
        while True:
            with self._wakeup:
                if self._stopping:
                    self._stopping = False
                    return
                if not self._queue and not self._has_due_timer():
                    self._wakeup.wait(self._seconds_to_next_timer())
                    continue
            self.run_once()

    def run_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Dispatch (blocking between events) until `done()` holds; False on timeout."""
        self.thread_id = threading.get_ident()
        deadline = self.clock() + timeout
        while not done():
            if self.run_once():
                continue
            remaining = deadline - self.clock()
            if remaining <= 0:
                return False
            with self._wakeup:
                if not self._queue and not self._has_due_timer():
                    next_timer = self._seconds_to_next_timer()
                    wait = remaining if next_timer is None else min(remaining, next_timer)
                    self._wakeup.wait(wait)
        return True

    def pending(self) -> int:
        """How many events are queued (not timers)."""
        with self._wakeup:
            return len(self._queue)

    def _pop_due_timer(self) -> TimerHandle | None:
        while self._timers and self._timers[0].cancelled:
            heapq.heappop(self._timers)
        if self._timers and self._timers[0].when <= self.clock():
            return heapq.heappop(self._timers)
        return None

    def _has_due_timer(self) -> bool:
        now = self.clock()
        return any(not t.cancelled and t.when <= now for t in self._timers)

    def _seconds_to_next_timer(self) -> float | None:
        live = [t.when for t in self._timers if not t.cancelled]
        if not live:
            return None
        return max(0.0, min(live) - self.clock())
