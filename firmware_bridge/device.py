"""The board end of the protocol in Python: what the byte-level board emulators sit on.

`DeviceEndpoint` does everything a board's firmware does for the link, so an emulator
only adds what its board is for: it registers handlers for the commands it understands,
sends reports, and emits counted events. The endpoint answers `identify`, runs the link
layer as `LinkEnd.BOARD`, repeats counted events until acknowledged, and keeps the failsafe
state (entered at power-up and whenever the host goes quiet, left only when the host sends
`failsafe active=false`). It is pure and thread-safe: feed it bytes, poll it, write what
`take_output` returns (`runner.DeviceRunner` does that over a pty or serial port).

Message and failsafe handlers run on the caller of `feed`/`poll` with the endpoint's
(re-entrant) lock held, so they may call `send` and `emit`; an emulator that also has a lock
of its own must not hold it while calling into the endpoint if its handlers take it.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge import catalogue as cat
from firmware_bridge.auth import PairingKey, new_nonce
from firmware_bridge.catalogue import BoardCatalogue, Direction
from firmware_bridge.clock import Clock
from firmware_bridge.codec import Codec, FieldValue, Message
from firmware_bridge.errors import BridgeError, CodecError, SendQueueFullError
from firmware_bridge.events import DEFAULT_CAPACITY, DEFAULT_REPEAT_INTERVAL, CountedEventSender
from firmware_bridge.faults import FaultInjector
from firmware_bridge.framing import PROTOCOL_VERSION, DecoderStats, Frame, FrameDecoder
from firmware_bridge.link import (
    Delivered,
    Link,
    LinkEnd,
    LinkLost,
    LinkState,
    LinkStats,
    LinkTiming,
    SessionUp,
)

logger = logging.getLogger(__name__)

Handler = Callable[[Message], None]
FailsafeHandler = Callable[[bool], None]


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """What a board says about itself in `identify_response`.

    Attributes:
        firmware_version: the board's firmware version text.
        board_kind: the kind reported; None reports the catalogue's kind.
        catalogue_hash: the hash reported; None reports the catalogue's true hash (a
            correctly built firmware). Emulators set it to test a mismatch.
        protocol_version: the protocol version reported.
        boot_id: this power-up's id; None draws a random one.
    """

    firmware_version: str
    board_kind: str | None = None
    catalogue_hash: bytes | None = None
    protocol_version: int = PROTOCOL_VERSION
    boot_id: int | None = None


@dataclass(frozen=True, slots=True)
class DeviceStats:
    """Counters of a `DeviceEndpoint`."""

    link: LinkStats
    decoder: DecoderStats
    events_pending: int
    events_dropped: int
    command_errors: int
    failsafe: bool
    identified: bool


class DeviceEndpoint:
    """One board's protocol engine.

    Args:
        board: the catalogue of this board kind.
        identity: what to answer to `identify`.
        clock: monotonic seconds (a hand-driven clock in tests).
        timing: link parameters (defaults: PROTOCOL.md's).
        event_capacity: counted events kept unacknowledged at most.
        event_repeat: seconds after the host's link acknowledged an event's frame before the
            event, still unacknowledged by `event_ack`, is sent again.
        pairing: the key this board is paired with; None for a board without a key (auth
            mode `none`, bench rigs).
        nonce_source: makes the board's 16-byte session nonces (tests inject fixed ones).
    """

    def __init__(
        self,
        board: BoardCatalogue,
        identity: DeviceIdentity,
        clock: Clock,
        *,
        timing: LinkTiming | None = None,
        event_capacity: int = DEFAULT_CAPACITY,
        event_repeat: float = DEFAULT_REPEAT_INTERVAL,
        pairing: PairingKey | None = None,
        nonce_source: Callable[[], bytes] = new_nonce,
    ) -> None:
        self.board = board
        self.codec = Codec(board)
        self.faults = FaultInjector(clock)
        self.boot_id = identity.boot_id if identity.boot_id is not None else secrets.randbits(32)
        self._identity = identity
        self._lock = threading.RLock()
        self._decoder = FrameDecoder()
        self.pairing = pairing
        self._clock = clock
        self._nonce_source = nonce_source
        self._events_capacity, self._events_repeat = event_capacity, event_repeat
        self._link = Link(LinkEnd.BOARD, clock, timing, nonce_source, pairing)
        self._events = CountedEventSender(clock, event_capacity, event_repeat)
        self._handlers: dict[str, Handler] = {}
        self._failsafe_handlers: list[FailsafeHandler] = []
        self._failsafe = True
        self._identified = False
        self._command_errors = 0

    # ------------------------------------------------------------------ application side

    def on(self, name: str, handler: Handler) -> None:
        """Call `handler(message)` for every `name` command the host sends (one per name).

        Raises:
            BridgeError: if `name` is not a to_board message of this board.
        """
        spec = self.board.spec(name)
        if spec.direction is not Direction.TO_BOARD or name in cat.RESERVED_NAMES:
            raise BridgeError(f"board {self.board.kind!r}: {name!r} is not a command to handle")
        with self._lock:
            self._handlers[name] = handler

    def on_failsafe(self, handler: FailsafeHandler) -> None:
        """Call `handler(active)` whenever the failsafe state changes."""
        with self._lock:
            self._failsafe_handlers.append(handler)

    def send(self, name: str, **fields: FieldValue) -> bool:
        """Send a plain to_host message (a report or a response).

        Returns:
            False if the host has not identified the board in the current session (the
            message is not sent), True if it was queued.

        Raises:
            CodecError: if the message or a field is wrong.
            SendQueueFullError: if the link's send queue is full.
        """
        payload = self.codec.encode(name, fields)
        with self._lock:
            if not self._identified:
                return False
            self._link.send(payload)
            return True

    def emit(self, name: str, **fields: FieldValue) -> int:
        """Record a counted event (its `count` is assigned here) and send it when possible.

        Returns:
            The event's count.

        Raises:
            CatalogueError: if the board has no message `name`.
            CodecError: if `name` is not a counted message or a field is wrong.
        """
        if not self.board.spec(name).counted:
            raise CodecError(f"board {self.board.kind!r}: {name!r} is not a counted event")
        with self._lock:
            count = self._events.next_count()
            if not self._events.add(count, self.codec.encode(name, {"count": count, **fields})):
                logger.warning("%s: event queue full, event %d dropped", self.board.kind, count)
            self._flush_events()
            return count

    @property
    def failsafe(self) -> bool:
        """True while the board must show its failsafe state."""
        with self._lock:
            return self._failsafe

    @property
    def identified(self) -> bool:
        """True once the host has sent `identify` in the current session."""
        with self._lock:
            return self._identified

    def stats(self) -> DeviceStats:
        """Return a snapshot of the link, decoder and event counters."""
        with self._lock:
            return DeviceStats(
                self._link.stats(), self._decoder.stats(), self._events.pending,
                self._events.dropped, self._command_errors, self._failsafe, self._identified,
            )

    # ------------------------------------------------------------------ byte side

    def start(self) -> None:
        """Power up: announce NO_SESSION until the host opens a session."""
        with self._lock:
            self._link.start()

    def reboot(self) -> None:
        """Lose power and start again (what a board does after a brown-out).

        A new boot id, no session, no events kept, counts from 1 again, failsafe.
        """
        with self._lock:
            self.boot_id = secrets.randbits(32)
            self._events = CountedEventSender(self._clock, self._events_capacity,
                                              self._events_repeat)
            self._identified = False
            self._set_failsafe(True)
            self._link = Link(LinkEnd.BOARD, self._clock, self._link.timing,
                              self._nonce_source, self.pairing)
            self._link.start()

    def reflash(self, pairing: PairingKey | None) -> None:
        """Start again holding another pairing key (a board re-flashed, or swapped in).

        As `reboot`, with `pairing` from now on; None for a board without a key.
        """
        with self._lock:
            self.pairing = pairing
        self.reboot()

    def feed(self, data: bytes) -> None:
        """Handle bytes received from the host (any chunking, garbage included)."""
        with self._lock:
            for item in self._decoder.feed(data):
                if isinstance(item, Frame):
                    self._link.on_frame(item)
            self._drain()

    def poll(self) -> None:
        """Run the timers (heartbeat, retransmission, liveness, event repetition)."""
        with self._lock:
            self._link.poll()
            self._drain()

    def take_output(self) -> bytes:
        """Return the bytes to write now, after fault injection."""
        with self._lock:
            frames = self._link.take_output()
        return b"".join(self.faults.apply(frames))

    # ------------------------------------------------------------------ internals

    def _drain(self) -> None:
        for event in self._link.take_events():
            if isinstance(event, Delivered):
                self._on_payload(event.payload)
            elif isinstance(event, SessionUp):
                self._identified = False
                self._events.resend_all()
            elif isinstance(event, LinkLost):
                logger.info("%s: link lost: %s", self.board.kind, event.reason)
                self._identified = False
                self._set_failsafe(True)
        self._flush_events()
        self._link.poll()

    def _on_payload(self, payload: bytes) -> None:
        try:
            message = self.codec.decode(payload)
        except CodecError as error:
            self._command_error(payload[0] if payload else 0, str(error))
            return
        spec = self.board.spec(message.name)
        if spec.direction is not Direction.TO_BOARD:
            self._command_error(spec.id, f"{message.name!r} is not sent to a board")
        elif message.name == cat.IDENTIFY:
            self._answer_identify()
        elif not self._identified:
            self._command_error(spec.id, "identify must come first in a session")
        else:
            self._dispatch(message, spec.id)

    def _dispatch(self, message: Message, message_id: int) -> None:
        if message.name == cat.EVENT_ACK:
            self._events.acknowledge(message.int("count"))
        elif message.name == cat.FAILSAFE:
            self._set_failsafe(message.flag("active"))
        elif message.name in self._handlers:
            self._handlers[message.name](message)
        else:
            self._command_error(message_id, f"{message.name!r} is not supported by this board")

    def _answer_identify(self) -> None:
        identity = self._identity
        self._link.send(self.codec.encode(cat.IDENTIFY_RESPONSE, {
            "protocol_version": identity.protocol_version,
            "board_kind": identity.board_kind or self.board.kind,
            "firmware_version": identity.firmware_version,
            "catalogue_hash": identity.catalogue_hash or self.board.hash(),
            "boot_id": self.boot_id,
        }))
        self._identified = True
        # Every held event once more, but for a copy still on its way in this session.
        self._events.resend_all(self._link.delivered)

    def _command_error(self, message_id: int, reason: str) -> None:
        self._command_errors += 1
        logger.warning("%s: command error: %s", self.board.kind, reason)
        if self._link.state is LinkState.UP:
            printable = "".join(c if " " <= c <= "~" else "?" for c in reason)[:64]
            fields: dict[str, FieldValue] = {"message_id": message_id, "reason": printable}
            with contextlib.suppress(SendQueueFullError):
                self._link.send(self.codec.encode(cat.COMMAND_ERROR, fields))

    def _flush_events(self) -> None:
        if not self._identified:
            return
        for item in self._events.due(self._link.delivered):
            try:
                self._events.sent(item, self._link.send(item.payload))
            except SendQueueFullError:
                return  # the rest go out when the queue drains

    def _set_failsafe(self, active: bool) -> None:
        if active == self._failsafe:
            return
        self._failsafe = active
        for handler in list(self._failsafe_handlers):
            handler(active)
