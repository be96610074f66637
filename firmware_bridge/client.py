"""The host's bridge to one board: connect and handshake, send, request, subscribe.

`BridgeClient` puts a `HostEndpoint` (the pure protocol engine) behind a `SerialTransport`
(a port opened by URL, with a reader thread). The reader thread only decodes and hands
messages to the subscribers' sinks, which must be quick and non-blocking (e.g. `queue.put`
or the controller loop's `post`); sinks run outside the client's lock, and an exception in
one becomes a `SinkFailed` event. After a lost session the client reconnects by itself and
repeats the handshake; each success is a `Connected` event, on which the owner reconciles
the board's state and then releases its failsafe (`send("failsafe", active=False)`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

from firmware_bridge.auth import PairingKey
from firmware_bridge.catalogue import BoardCatalogue, Catalogue
from firmware_bridge.clock import Clock, monotonic
from firmware_bridge.codec import FieldValue, Message
from firmware_bridge.delivery import BridgeEventSink, Delivery, MessageSink, TrafficSink, Waiter
from firmware_bridge.errors import (
    AuthenticationError,
    BridgeClosedError,
    BridgeError,
    CodecError,
    HandshakeTimeoutError,
    LinkDownError,
    RequestTimeoutError,
)
from firmware_bridge.events import EventBaseline
from firmware_bridge.handshake import BoardIdentity, Expectation
from firmware_bridge.host import AckOn, HostEndpoint
from firmware_bridge.link import LinkTiming
from firmware_bridge.status import (
    BridgeStats,
    ClientState,
    ReaderFailed,
    TrafficRecord,
)
from firmware_bridge.transport import DEFAULT_BAUDRATE, SerialTransport, Transport

logger = logging.getLogger(__name__)

class BridgeClient:
    """The host end of the link to one board, over a serial port.

    Args:
        url: the board's port, any pyserial URL.
        catalogue: the message catalogue (all board kinds).
        expect: what the board must report in the handshake (default: any kind of the
            catalogue, any firmware version; the catalogue hash is always checked).
        baudrate: line speed.
        clock: monotonic seconds.
        timing: link parameters (defaults: PROTOCOL.md's).
        event_baseline: counted events already handled before this run, if known.
        history: traffic records kept for the post-mortem.
        reveal_secrets: show secret fields, and the bytes of damaged frames, in traffic
            records (bench use only, R17).
        transport: the transport to use (default: a `SerialTransport` for `url`); any
            object with `Transport`'s three methods.
        ack_on: when counted events are acknowledged to the board: "receipt" (as they
            arrive) or "handled" (only what the owner declares with `acknowledge_handled`).
        pairing: the key the board is paired with; None accepts a board without a key
            (auth mode `none`: where the configuration says so, and nowhere else).
    """

    def __init__(  # noqa: PLR0913 - independent, defaulted options
        self, url: str, catalogue: Catalogue, expect: Expectation | None = None, *,
        baudrate: int = DEFAULT_BAUDRATE, clock: Clock = monotonic,
        timing: LinkTiming | None = None, event_baseline: EventBaseline | None = None,
        history: int = 200, reveal_secrets: bool = False,
        transport: Transport | None = None, ack_on: AckOn = "receipt",
        pairing: PairingKey | None = None,
    ) -> None:
        self.url = url
        self._engine = HostEndpoint(
            url, catalogue, expect or Expectation(), clock, timing=timing,
            event_baseline=event_baseline, history=history, reveal_secrets=reveal_secrets,
            ack_on=ack_on, pairing=pairing,
        )
        self._transport: Transport = transport or SerialTransport(url, baudrate=baudrate)
        self._lock = threading.RLock()
        self._settled = threading.Event()
        self._failure: BridgeError | None = None
        self._delivery = Delivery(url, self._lock, self._settled)

    # ------------------------------------------------------------------ public API

    def connect(self, timeout: float = 3.0) -> BoardIdentity:
        """Open the port, open a session and pass the handshake within `timeout` seconds.

        Raises:
            TransportError: if the port cannot be opened (names the URL); `PortInUseError`
                if another program holds it (naming that program when it can be found).
            HandshakeMismatch: if the board is not the one expected (names each field);
                `AuthenticationError` if it failed authentication (wrong key or auth mode).
            HandshakeTimeoutError: if no session or no answer came in time.
            BridgeError: if the client was already connected or closed.
        """
        with self._lock:
            if self._engine.state is not ClientState.IDLE:
                raise BridgeError(f"{self.url}: connect() called in state {self._engine.state}")
            self._engine.state = ClientState.CONNECTING
        try:
            self._transport.open(self._on_bytes, self._on_tick, self._on_reader_error)
        except BridgeError:
            with self._lock:
                self._engine.state = ClientState.CLOSED
            raise
        with self._lock:
            self._engine.start()
            self._flush()
        self._settled.wait(timeout)
        return self._connect_result(timeout)

    def send(self, name: str, /, **fields: FieldValue) -> None:
        """Send message `name` with `fields`, reliably and in order.

        Raises:
            LinkDownError: if the board is not connected and identified right now.
            CodecError: if the message or a field is wrong (names which).
            SendQueueFullError: if too many messages wait for the link.
        """
        with self._lock:
            self._engine.send(name, fields)
            self._flush()

    def request(
        self, name: str, /, fields: Mapping[str, FieldValue] | None = None, *,
        timeout: float = 1.0,
    ) -> Message:
        """Send request `name` and wait for the response the catalogue names for it.

        Raises:
            RequestTimeoutError: if no response came within `timeout` seconds.
            LinkDownError: if the link was or went down.
            CodecError: if `name` has no response in the catalogue, or a field is wrong.
        """
        with self._lock:
            response = self._engine.board.spec(name).response
            if response is None:
                raise CodecError(f"{self.url}: {name!r} has no response in the catalogue")
            waiter = Waiter(response)
            self._delivery.waiters.append(waiter)
            try:
                self._engine.send(name, fields)
            except BridgeError:
                self._delivery.waiters.remove(waiter)
                raise
            self._flush()
        return self._await(waiter, name, timeout)

    def subscribe(self, name: str, sink: MessageSink) -> None:
        """Hand every received `name` message to `sink` (on the reader thread; be quick).

        `name` "*" subscribes to every message. Counted events arrive once each (with
        `ack_on="handled"` the board repeats them until `acknowledge_handled`, across host
        restarts too).
        """
        with self._lock:
            self._delivery.subscribers.setdefault(name, []).append(sink)

    def subscribe_events(self, sink: BridgeEventSink) -> None:
        """Hand every link event (`Connected`, `Disconnected`, ...) to `sink`."""
        with self._lock:
            self._delivery.event_sinks.append(sink)

    def subscribe_traffic(self, sink: TrafficSink) -> None:
        """Hand every traffic record (decoded, secrets masked) to `sink`."""
        with self._lock:
            self._delivery.traffic_sinks.append(sink)

    @property
    def state(self) -> ClientState:
        """Where the client is in its life."""
        with self._lock:
            return self._engine.state

    @property
    def board(self) -> BoardCatalogue:
        """The board's catalogue once the handshake passed (before: the link messages only)."""
        with self._lock:
            return self._engine.board

    @property
    def auth(self) -> str:
        """The link's authentication for status lines: `paired (key ...)` or `none (...)`."""
        return self._engine.auth

    @property
    def identity(self) -> BoardIdentity | None:
        """What the board reported in the last successful handshake."""
        with self._lock:
            return self._engine.identity

    def acknowledge_handled(self, count: int, boot_id: int | None = None) -> None:
        """Declare every counted event up to `count` handled (safe from any thread).

        With `ack_on="handled"` the board is sent `event_ack` for it (cumulative, never
        beyond what was delivered, never backwards; `HostEndpoint.acknowledge_handled`).
        """
        with self._lock:
            self._engine.acknowledge_handled(count, boot_id)
            self._flush()

    def event_position(self) -> EventBaseline | None:
        """The counted-event position to persist, to pass as `event_baseline` next run."""
        with self._lock:
            return self._engine.event_position()

    def history(self) -> list[TrafficRecord]:
        """The last traffic records, oldest first (the post-mortem dump)."""
        with self._lock:
            return self._engine.history()

    def stats(self) -> BridgeStats:
        """Return a snapshot of every counter."""
        with self._lock:
            return self._engine.stats()

    def close(self) -> None:
        """Ask the board to go failsafe (best effort), stop the link, close the port.

        Idempotent; waiting requests fail with `LinkDownError`.
        """
        with self._lock:
            if self._engine.state is ClientState.CLOSED:
                return
            self._engine.stop("closed by the host")
            self._flush()
            self._delivery.fail_waiters(LinkDownError(f"{self.url}: client closed"))
        self._settled.set()
        self._transport.close()

    def __enter__(self) -> BridgeClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reader thread

    def _on_bytes(self, data: bytes) -> None:
        with self._lock:
            self._engine.feed(data)
            self._dispatch()
        self._delivery.run_calls()

    def _on_tick(self) -> None:
        with self._lock:
            self._engine.poll()
            self._dispatch()
        self._delivery.run_calls()

    def _on_reader_error(self, error: BaseException) -> None:
        with self._lock:
            if self._engine.state is ClientState.CLOSED:
                return
            self._engine.stop(f"reader failed: {error}")
            self._engine.state = ClientState.FAILED
            self._failure = LinkDownError(f"{self.url}: reader failed: {error}")
            self._delivery.fail_waiters(self._failure)
            self._delivery.queue_event(ReaderFailed(self.url, error))
        self._settled.set()
        self._delivery.run_calls()

    def _dispatch(self) -> None:
        for notice in self._engine.take_notices():
            self._delivery.route(notice)
        self._flush()

    # ------------------------------------------------------------------ helpers

    def _connect_result(self, timeout: float) -> BoardIdentity:
        with self._lock:
            engine, failure = self._engine, self._failure
            identity = engine.identity if engine.state is ClientState.READY else None
            frames = engine.stats().link.frames_received
            problem = engine.auth_problem()
        if identity is not None:
            return identity
        self.close()
        if engine.refusal is not None:
            raise engine.refusal
        if failure is not None:
            raise failure
        if problem is not None:
            raise AuthenticationError(f"{self.url}: board refused: {problem}")
        raise HandshakeTimeoutError(
            f"{self.url}: no session and handshake within {timeout} s "
            f"({frames} frames received)"
        )

    def _flush(self) -> None:
        output = self._engine.take_output()
        if not output:
            return
        try:
            self._transport.write(output)
        except BridgeClosedError:
            return
        except BridgeError as error:
            logger.warning("%s: %s", self.url, error)

    def _await(self, waiter: Waiter, name: str, timeout: float) -> Message:
        waiter.done.wait(timeout)
        with self._lock:
            if waiter in self._delivery.waiters:
                self._delivery.waiters.remove(waiter)
        if waiter.message is not None:
            return waiter.message
        if waiter.error is not None:
            raise waiter.error
        raise RequestTimeoutError(
            f"{self.url}: no {waiter.name!r} answered {name!r} in {timeout} s"
        )
