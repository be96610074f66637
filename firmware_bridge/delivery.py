"""Where a client's received traffic goes: subscribers' sinks, link-event sinks, waiters.

`Delivery` is used under the client's lock: routing a notice only collects the sink calls it
owes (and wakes a request's waiter); `run_calls` then makes those calls outside the lock on
the reader thread, so a slow or failing sink never holds the link. An exception in a sink
becomes a `SinkFailed` event for the link-event sinks.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable

from firmware_bridge.codec import Message
from firmware_bridge.errors import BridgeError, LinkDownError
from firmware_bridge.host import Notice
from firmware_bridge.status import (
    BridgeEvent,
    Connected,
    Disconnected,
    Refused,
    SinkFailed,
    TrafficRecord,
)

logger = logging.getLogger(__name__)

MessageSink = Callable[[Message], None]
BridgeEventSink = Callable[[BridgeEvent], None]
TrafficSink = Callable[[TrafficRecord], None]
ALL_MESSAGES = "*"
_EVENTS = "events"


class Waiter:
    """A request waiting for its response message (or for the error that ends the wait)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.done = threading.Event()
        self.message: Message | None = None
        self.error: BridgeError | None = None


class Delivery:
    """The sinks and waiters of one client; every method but `run_calls` runs under its lock.

    Args:
        url: The board's port, named in log lines and errors.
        lock: The client's lock (`run_calls` takes it to collect the calls).
        settled: Set when the handshake succeeded or was refused.
    """

    def __init__(self, url: str, lock: threading.RLock, settled: threading.Event) -> None:
        self.url = url
        self._lock = lock
        self._settled = settled
        self.subscribers: dict[str, list[MessageSink]] = {}
        self.event_sinks: list[BridgeEventSink] = []
        self.traffic_sinks: list[TrafficSink] = []
        self.waiters: list[Waiter] = []
        self._calls: list[tuple[str, Callable[[], None]]] = []

    def route(self, notice: Notice) -> None:
        """Owe each sink its call for one notice of the engine; wake the waiter it answers."""
        if isinstance(notice, TrafficRecord):
            for traffic_sink in self.traffic_sinks:
                self._calls.append(("traffic", functools.partial(traffic_sink, notice)))
        elif isinstance(notice, Message):
            self._deliver(notice)
        else:
            if isinstance(notice, Connected | Refused):
                self._settled.set()
            if isinstance(notice, Disconnected | Refused):
                self.fail_waiters(LinkDownError(f"{self.url}: {notice.reason}"))
            self.queue_event(notice)

    def _deliver(self, message: Message) -> None:
        for waiter in self.waiters:
            if waiter.name == message.name:
                waiter.message = message
                self.waiters.remove(waiter)
                waiter.done.set()
                break
        for key in (message.name, ALL_MESSAGES):
            for sink in self.subscribers.get(key, ()):
                self._calls.append((key, functools.partial(sink, message)))

    def fail_waiters(self, error: BridgeError) -> None:
        """End every wait with `error` (the link went down, or the client closed)."""
        for waiter in self.waiters:
            waiter.error = error
            waiter.done.set()
        self.waiters.clear()

    def queue_event(self, event: BridgeEvent) -> None:
        """Owe every link-event sink this event."""
        for sink in self.event_sinks:
            self._calls.append((_EVENTS, functools.partial(sink, event)))

    def run_calls(self) -> None:
        """Run the sinks collected under the lock, outside it, on the reader thread."""
        with self._lock:
            calls, self._calls = self._calls, []
        for subscription, call in calls:
            try:
                call()
            except Exception as error:
                logger.exception("%s: sink for %s failed", self.url, subscription)
                if subscription != _EVENTS:
                    with self._lock:
                        self.queue_event(SinkFailed(self.url, subscription, error))
