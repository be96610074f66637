"""Counted events: board-to-host events that are never lost and never delivered twice.

The board numbers each counted event with a running count (1, 2, 3, ... since power-up),
keeps it until the host acknowledges that count with `event_ack`, and repeats it until
then. The host delivers an event only if its count is new and acknowledges cumulatively.
A board's `boot_id` (in `identify_response`) tells the host when the counting restarted.
PROTOCOL.md, "Counted events", is the normative description.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from firmware_bridge.clock import Clock

DEFAULT_CAPACITY: Final = 64
DEFAULT_REPEAT_INTERVAL: Final = 0.5


class CountVerdict(StrEnum):
    """What the host makes of a counted event."""

    NEW = "new"
    DUPLICATE = "duplicate"
    GAP = "gap"  # new, but counts were skipped: events were lost on the board


@dataclass(frozen=True, slots=True)
class Receipt:
    """The outcome of one counted event at the host.

    Attributes:
        verdict: NEW and GAP events are delivered; DUPLICATE ones are not.
        count: the event's count.
        ack: the count to acknowledge (every count up to it has been handled).
        missed: for GAP, the first and last count that never arrived.
    """

    verdict: CountVerdict
    count: int
    ack: int
    missed: tuple[int, int] | None = None

    @property
    def deliver(self) -> bool:
        """True if the event must be handed on (it was not seen before)."""
        return self.verdict is not CountVerdict.DUPLICATE


class CountedEventReceiver:
    """Host side: de-duplicates counted events by count and says what to acknowledge.

    Args:
        last_count: the last count already handled (e.g. restored from a journal), or
            None to accept whatever count comes first.
        boot_id: the board boot that `last_count` belongs to, or None if unknown.
    """

    @classmethod
    def resumed(cls, baseline: EventBaseline | None) -> CountedEventReceiver:
        """A receiver that goes on from `baseline` (a fresh one when None)."""
        if baseline is None:
            return cls()
        return cls(baseline.last_count, baseline.boot_id)

    def __init__(self, last_count: int | None = None, boot_id: int | None = None) -> None:
        self._last = last_count
        self._boot_id = boot_id

    @property
    def last_count(self) -> int | None:
        """The highest count handled so far, or None before the first."""
        return self._last

    @property
    def boot_id(self) -> int | None:
        """The board boot the counts belong to."""
        return self._boot_id

    def on_identity(self, boot_id: int) -> bool:
        """Note the board's boot id from a handshake; return True if the board restarted.

        After a restart the board counts from 1 again, so every count from 1 is new.
        """
        if self._boot_id is None or self._boot_id == boot_id:
            self._boot_id = boot_id
            return False
        self._boot_id, self._last = boot_id, 0
        return True

    def accept(self, count: int) -> Receipt:
        """Classify the event numbered `count` and record it if new."""
        last = self._last
        if last is not None and count <= last:
            return Receipt(CountVerdict.DUPLICATE, count, last)
        self._last = count
        if last is not None and count > last + 1:
            return Receipt(CountVerdict.GAP, count, count, (last + 1, count - 1))
        return Receipt(CountVerdict.NEW, count, count)


@dataclass(slots=True)
class PendingEvent:
    """One counted event a board holds until the host acknowledges its count.

    Attributes:
        count: the event's count.
        payload: its encoded message.
        ticket: the link's number for its latest copy in this session (None: no copy was
            sent in this session).
        delivered_at: when the host's link was seen to have acknowledged that copy (None:
            not yet).
    """

    count: int
    payload: bytes
    ticket: int | None = None
    delivered_at: float | None = None


class CountedEventSender:
    """Board side: numbers counted events, keeps them until acknowledged, repeats them.

    An event is sent once in each session as soon as the board is identified, and sent
    again only `repeat_interval` after the host's link acknowledged its latest copy while
    `event_ack` has still not covered it; so the board's link never holds two copies of
    one event, and its send queue never holds more than one copy of each event it keeps.

    Args:
        clock: monotonic seconds.
        capacity: events kept unacknowledged at most; beyond it new events are dropped
            (their counts are still used, so the host sees the gap).
        repeat_interval: seconds between the host's link acknowledging an event's copy and
            the next copy.
    """

    def __init__(
        self,
        clock: Clock,
        capacity: int = DEFAULT_CAPACITY,
        repeat_interval: float = DEFAULT_REPEAT_INTERVAL,
    ) -> None:
        self._clock = clock
        self._capacity = capacity
        self._repeat_interval = repeat_interval
        self._pending: deque[PendingEvent] = deque()
        self._next_count = 1
        self.dropped = 0

    def next_count(self) -> int:
        """Take the next count for a new event."""
        count, self._next_count = self._next_count, self._next_count + 1
        return count

    def add(self, count: int, payload: bytes) -> bool:
        """Keep the encoded event `payload` numbered `count`; False if it had to be dropped."""
        if len(self._pending) >= self._capacity:
            self.dropped += 1
            return False
        self._pending.append(PendingEvent(count, payload))
        return True

    def acknowledge(self, count: int) -> None:
        """Forget every event up to and including `count`."""
        while self._pending and self._pending[0].count <= count:
            self._pending.popleft()

    def resend_all(self, delivered: int | None = None) -> None:
        """Have every pending event sent again at once (a new session, or `identify` again).

        Args:
            delivered: for an `identify` answered again in the same session, the link's count
                of delivered messages (`Link.delivered`): an event whose latest copy is still
                in this session's send queue or window keeps it (that copy is on its way, and
                the link never holds two). None for a new session: every event is sent.
        """
        for item in self._pending:
            if delivered is None or item.ticket is None or item.ticket < delivered:
                item.ticket = item.delivered_at = None

    def due(self, delivered: int) -> list[PendingEvent]:
        """The events to send now, oldest first.

        Args:
            delivered: the link's count of this session's messages its peer acknowledged
                (`Link.delivered`): a copy whose ticket is below it has reached the host.
        """
        now = self._clock()
        found = []
        for item in self._pending:
            if item.ticket is None:
                found.append(item)
            elif item.ticket < delivered:
                if item.delivered_at is None:
                    item.delivered_at = now
                if now - item.delivered_at >= self._repeat_interval:
                    found.append(item)
        return found

    @staticmethod
    def sent(item: PendingEvent, ticket: int) -> None:
        """Note that a copy of `item` was handed to the link as message number `ticket`."""
        item.ticket, item.delivered_at = ticket, None

    @property
    def pending(self) -> int:
        """Events kept and not yet acknowledged."""
        return len(self._pending)


@dataclass(frozen=True, slots=True)
class EventBaseline:
    """Where counted events stood when the host last ran (e.g. from the audit journal).

    Attributes:
        boot_id: the board boot the counts belong to.
        last_count: the last count delivered to the owner.
        handled: with `ack_on="handled"`, the last count the owner had declared handled
            when that was behind `last_count` (0: none yet); None: every count up to
            `last_count` was handled.
    """

    boot_id: int
    last_count: int
    handled: int | None = None


class HandledCounts:
    """The counts a host's owner has declared handled (`ack_on="handled"`, PROTOCOL.md 9).

    Args:
        receiver: the host's receiver (what was delivered, and of which boot).
        handled_mode: False when events are acknowledged on receipt (nothing to keep).
        baseline: where counted events stood when the host last ran, if known.
    """

    def __init__(self, receiver: CountedEventReceiver, handled_mode: bool,
                 baseline: EventBaseline | None) -> None:
        self._receiver = receiver
        self._handled_mode = handled_mode
        self.count: int | None = None
        """The last count the owner declared handled (None: none yet)."""
        if baseline is not None:
            self.count = baseline.last_count if baseline.handled is None else baseline.handled

    def declare(self, count: int, boot_id: int | None) -> int | None:
        """Every event up to `count` is handled; the count to acknowledge now, if any.

        Never beyond the last count delivered, never going backwards. `boot_id`, when
        given, names the board boot that `count` belongs to; a count of another boot is
        ignored (a restarted board counts from 1 again).
        """
        last = self._receiver.last_count
        if not self._handled_mode or last is None or count <= 0:
            return None
        if boot_id is not None and boot_id != self._receiver.boot_id:
            return None
        count = min(count, last)
        if self.count is not None and count <= self.count:
            return None
        self.count = count
        return count

    def restarted(self) -> None:
        """The board restarted: nothing of its new boot is handled yet."""
        self.count = 0

    def position(self) -> EventBaseline | None:
        """The counted-event position to persist, to pass as `event_baseline` next run."""
        boot_id, last = self._receiver.boot_id, self._receiver.last_count
        if boot_id is None or last is None:
            return None
        handled = self.count or 0
        if not self._handled_mode or handled >= last:
            return EventBaseline(boot_id, last)
        return EventBaseline(boot_id, last, handled)
