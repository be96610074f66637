"""One board over firmware_bridge, kept connected: the base of the shoe, layout and sign drivers.

`BoardDriver` is that base: the `Device` surface (name, link state, start, close) of a driver
whose device is one board. `BoardConnection` owns a `BridgeClient` for one board kind of
`drivers/catalogue.toml`. It reads the board's pairing key at `start()` (a missing or unsafe
key file is a `PairingError` naming it), connects, authenticates and checks the handshake (a
refused board is a `HandshakeError` naming the device and every mismatching field, or why
authentication failed), releases the board's failsafe once the driver has reconciled the
board, and reports `LinkUp` / `LinkDown`. When the port vanishes (cable pulled), or the
reconciliation after a reconnection fails (a request unanswered), it opens a new connection
after `RECONNECT_INTERVAL`, doubling the wait after each failed attempt up to
`RECONNECT_MAX` and back once the board is reconciled; meanwhile the link is reported down,
never as a device fault. The counted-event position is carried over, so no event is lost or
delivered twice across the gap. With `ack_when_handled` the board's counted events are
acknowledged only when the driver's owner has handled what they reported (`acknowledge`),
so an event the host received but never handled (the host lost power) is repeated to the
next host.

Threads: the bridge's reader thread only queues work; one worker thread per device runs
every message handler, reconciliation and reconnection in order, so `LinkUp` always comes
before the messages of the session it opens, and the driver's sink sees one thread.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from drivers.errors import (
    DeviceClosedError,
    DeviceUnavailableError,
    DriverError,
    HandshakeError,
    PairingError,
)
from drivers.events import DeviceFault, EventSink, LinkDown, LinkUp
from drivers.timing import MonotonicScheduler, Scheduler
from firmware_bridge import (
    BoardIdentity,
    BridgeClient,
    BridgeError,
    Catalogue,
    EventBaseline,
    Expectation,
    HandshakeMismatch,
    KeyFileError,
    LinkTiming,
    Message,
    PairingKey,
    load_catalogue,
    read_key_file,
)
from firmware_bridge.auth import auth_status
from firmware_bridge.codec import FieldValue
from firmware_bridge.framing import FrameErrorKind
from firmware_bridge.status import (
    AuthenticationFailed,
    BoardReportedError,
    BridgeEvent,
    BridgeStats,
    Connected,
    Disconnected,
    EventsMissed,
    ReaderFailed,
    Refused,
)
from firmware_bridge.transport import DEFAULT_BAUDRATE, Transport

_LOG = logging.getLogger(__name__)
CATALOGUE_PATH: Final = Path(__file__).resolve().parent / "catalogue.toml"
RECONNECT_INTERVAL: Final = 0.2
RECONNECT_MAX: Final = 5.0
HANDSHAKE_TIMEOUT: Final = 3.0
REQUEST_TIMEOUT: Final = 1.0

TransportFactory = Callable[[], Transport]
"""Makes a fresh transport for each connection attempt (None: the client's own serial one)."""


def table_catalogue() -> Catalogue:
    """The table's message catalogue (`drivers/catalogue.toml`)."""
    return load_catalogue(CATALOGUE_PATH)


def link_timing(timeout_ms: int, base: LinkTiming | None = None) -> LinkTiming:
    """The link timing for a device whose silence limit is `timeout_ms`."""
    base = base or LinkTiming()
    timeout = timeout_ms / 1000
    heartbeat = min(base.heartbeat_interval, timeout / 3)
    return LinkTiming(heartbeat_interval=heartbeat, link_timeout=timeout,
                      retransmit_timeout=min(base.retransmit_timeout, timeout / 4),
                      max_retransmit_timeout=min(base.max_retransmit_timeout, timeout / 2),
                      max_retransmits=base.max_retransmits, window=base.window,
                      queue_limit=base.queue_limit)


@dataclass(frozen=True, slots=True)
class FrameFaults:
    """Frames from a board's line that failed a check, since the driver started.

    Attributes:
        bad_mac: frames whose tag did not match (forged, or under another key).
        replayed: authentic frames whose counter was not fresh (a replay).
        counter_error: authentic frames carrying a counter no sender may use (FFFF0000 up).
        auth_mismatch: RESET or NO_SESSION frames announcing another auth mode.
        crc: frames whose CRC did not match (damaged on the line).
    """

    bad_mac: int = 0
    replayed: int = 0
    counter_error: int = 0
    auth_mismatch: int = 0
    crc: int = 0

    KINDS = ("bad_mac", "replayed", "counter_error", "auth_mismatch", "crc")
    """The counters, in the order every report lists them."""

    @classmethod
    def of(cls, stats: BridgeStats) -> FrameFaults:
        """The counters of one bridge client."""
        link = stats.link
        return cls(link.bad_macs, link.replayed, link.counter_errors, link.auth_mismatches,
                   stats.decoder.errors.get(FrameErrorKind.BAD_CRC, 0))

    def __add__(self, other: FrameFaults) -> FrameFaults:
        return FrameFaults(*(a + b for a, b in zip(self.counts(), other.counts(), strict=True)))

    def __sub__(self, other: FrameFaults) -> FrameFaults:
        return FrameFaults(*(a - b for a, b in zip(self.counts(), other.counts(), strict=True)))

    def counts(self) -> tuple[int, ...]:
        """The counters in `KINDS` order."""
        return tuple(getattr(self, kind) for kind in self.KINDS)

    @property
    def total(self) -> int:
        """Every frame refused, whatever the check."""
        return sum(self.counts())

    def as_dict(self) -> dict[str, int]:
        """`{kind: count}` in `KINDS` order (journal records, JSON)."""
        return dict(zip(self.KINDS, self.counts(), strict=True))

    def line(self) -> str:
        """One line for people: `bad_mac=12 replayed=6 counter_error=0 ...`."""
        return " ".join(f"{kind}={count}" for kind, count in self.as_dict().items())


@dataclass(frozen=True, slots=True)
class LinkOptions:
    """How to reach a board.

    Attributes:
        url: The pyserial URL (or, for USB, a description of the device for messages).
        catalogue: The table's message catalogue.
        timing: Link timing (see `link_timing`).
        baudrate: Line speed.
        transport_factory: Makes the transport of each attempt (USB); None for serial.
        firmware_versions: Firmware versions accepted; None accepts any, an empty set none.
        key_file: The board's pairing key file, read at `start()`.
        pairing: The board's pairing key itself (an emulator's); used when no `key_file`.
            Neither: the board has no key and is accepted unauthenticated (auth mode
            `none`, only where its device section says `auth = "none"`).
    """

    url: str
    catalogue: Catalogue
    timing: LinkTiming
    baudrate: int = DEFAULT_BAUDRATE
    transport_factory: TransportFactory | None = None
    firmware_versions: frozenset[str] | None = None
    key_file: Path | None = None
    pairing: PairingKey | None = None


def load_pairing(device: str, link: LinkOptions) -> PairingKey | None:
    """The board's pairing key: read from `link.key_file`, else `link.pairing` (or None).

    Raises:
        PairingError: The key file is missing, unreadable, open to every user or malformed.
    """
    if link.key_file is None:
        if link.pairing is None:
            _LOG.warning("%s: UNAUTHENTICATED board (auth = \"none\"): accepted without a "
                         "pairing key; bench rigs only", device)
        return link.pairing
    try:
        return read_key_file(link.key_file)
    except KeyFileError as exc:
        raise PairingError(device, f"key_file: {exc}; pair the board (shoectl bridge pair "
                           f"{device}), or on a bench rig set auth = \"none\"") from exc


def missed_events(event: EventsMissed) -> str:
    """The fault line for lost counts: counts and the message that showed the gap, as such."""
    return (f"board events {event.first}..{event.last} were lost before it reported them "
            f"(its event queue overflowed); the next event, {event.last + 1}, is a "
            f"{event.message}")


def attempt(step: Callable[[], None], device: str) -> BaseException | None:
    """Run a set-up step on the worker thread; the error it failed with, or None.

    A driver error (a request unanswered, the link lost meanwhile) is expected and only
    returned; anything else is a bug, logged in full first (a thread boundary, C8).
    """
    try:
        step()
    except DriverError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - a thread boundary: report, never die (C8)
        _LOG.exception("%s: set-up after connect failed", device)
        return exc
    return None


class Backoff:
    """Waits that double from `first` up to `cap`, and start again from `first` on `reset`."""

    def __init__(self, first: float, cap: float) -> None:
        self._first, self._cap, self._wait = first, cap, first

    def next(self) -> float:
        """The wait to use now; the next one is twice as long (at most `cap`)."""
        wait, self._wait = self._wait, min(self._wait * 2, self._cap)
        return wait

    def reset(self) -> None:
        """Start again from the first wait."""
        self._wait = self._first


class DeviceWorker:
    """A device's worker thread: runs the jobs put to it, one after the other, in order.

    A job that raises is logged in full and handed to `on_error`; the thread goes on (a
    thread boundary, C8).

    Args:
        device: The device's name (the thread's, and every log line's).
        on_error: Called on the worker thread with what a job raised.
    """

    def __init__(self, device: str, on_error: Callable[[BaseException], None]) -> None:
        self._device = device
        self._on_error = on_error
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread."""
        self._thread = threading.Thread(target=self._run, name=f"driver-{self._device}",
                                        daemon=True)
        self._thread.start()

    def put(self, job: Callable[[], None]) -> None:
        """Run `job` after the jobs before it (safe from any thread)."""
        self._jobs.put(job)

    def stop(self) -> None:
        """Run the jobs already put, then stop (waits up to 5 s, but not on itself)."""
        self._jobs.put(None)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - a thread boundary: report, never die (C8)
                _LOG.exception("%s: worker job failed", self._device)
                self._on_error(exc)


class BoardConnection:
    """A kept-up connection to one board.

    Args:
        device: The configured device name (every error and event names it).
        board_kind: The catalogue board kind the device must identify as.
        link: How to reach it.
        sink: Where `LinkUp`, `LinkDown` and `DeviceFault` go.
        scheduler: Clock for event times.
        ack_when_handled: Acknowledge counted events only as `acknowledge` is told (False:
            as they arrive).
    """

    def __init__(self, device: str, board_kind: str, link: LinkOptions, sink: EventSink,
                 scheduler: Scheduler | None = None, *, ack_when_handled: bool = False) -> None:
        self.device = device
        self.url = link.url
        self._link = link
        self._sink = sink
        self._scheduler = scheduler or MonotonicScheduler()
        self._expect = Expectation(board_kind, link.firmware_versions)
        self._handlers: dict[str, Callable[[Message], None]] = {}
        self.on_connected: Callable[[BoardConnection], None] = lambda connection: None
        self._client: BridgeClient | None = None
        self._baseline: EventBaseline | None = None
        self._ack_when_handled = ack_when_handled
        self._ack_lock = threading.Lock()
        self._handled: tuple[int | None, int] | None = None  # (boot id, count) declared
        self._jobs = DeviceWorker(device, lambda error: self._fault(f"driver error: {error!r}"))
        self._closed = threading.Event()
        self._up = False
        self._settled = threading.Event()
        self._setup_error: BaseException | None = None
        self._retry = Backoff(RECONNECT_INTERVAL, RECONNECT_MAX)
        self._faults_before = FrameFaults()  # of the clients already closed
        self._pairing = link.pairing
        self.identity: BoardIdentity | None = None
        self.handshake_authenticated: bool | None = None
        """The last passed handshake's auth: True paired, False `none`, None: no handshake."""

    # ------------------------------------------------------------ owner API

    def handle(self, name: str, handler: Callable[[Message], None]) -> None:
        """Run `handler(message)` on the worker thread for every `name` message."""
        self._handlers[name] = handler

    @property
    def timing(self) -> LinkTiming:
        """The link timing in use (its `link_timeout` is the silence limit)."""
        return self._link.timing

    @property
    def up(self) -> bool:
        """True while the board is connected, reconciled and out of failsafe."""
        return self._up

    @property
    def pairing(self) -> PairingKey | None:
        """The key the board is authenticated with (None: auth mode `none`)."""
        return self._pairing

    def start(self) -> None:
        """Read the pairing key, connect, authenticate, check the handshake, reconcile.

        Raises:
            PairingError: The key file is missing, unsafe or malformed (naming it).
            DeviceUnavailableError: The port cannot be opened or is held, or no answer.
            HandshakeError: The board is not the one expected (naming every field), or it
                failed authentication.
        """
        if self._closed.is_set():
            raise DeviceClosedError(self.device, "the device is closed")
        self._pairing = load_pairing(self.device, self._link)
        self._jobs.start()
        self._connect()
        # The client's `Connected` event runs `_establish` on the worker; wait for it.
        if not self._settled.wait(HANDSHAKE_TIMEOUT + REQUEST_TIMEOUT * 4):
            raise DeviceUnavailableError(self.device, "set-up after connect did not finish")
        if self._setup_error is not None:
            raise DeviceUnavailableError(
                self.device, f"set-up after connect failed: {self._setup_error}")

    def send(self, name: str, **fields: FieldValue) -> None:
        """Send a command.

        Raises:
            DriverError: The link is down or the command is malformed (naming the device).
        """
        client = self._ready_client()
        try:
            client.send(name, **fields)
        except BridgeError as exc:
            raise DeviceUnavailableError(self.device, f"{name}: {exc}") from exc

    def request(self, name: str, timeout: float = REQUEST_TIMEOUT) -> Message:
        """Send a request and wait for its response (never call from a handler).

        Raises:
            DriverError: No answer in time, or the link is down.
        """
        client = self._ready_client()
        try:
            return client.request(name, timeout=timeout)
        except BridgeError as exc:
            raise DeviceUnavailableError(self.device, f"{name}: {exc}") from exc

    def release_failsafe(self) -> None:
        """Tell the board the host is in control (after reconciling it)."""
        self.send("failsafe", active=False)

    def acknowledge(self, boot_id: int | None, count: int) -> None:
        """Every counted event of board boot `boot_id` up to `count` is handled (any thread).

        Only with `ack_when_handled`: the board is sent `event_ack` for it (cumulative and
        never backwards; kept across a reconnection and sent to the new session).
        """
        if not self._ack_when_handled:
            return
        with self._ack_lock:
            known = self._handled
            if known is None or known[0] != boot_id or count > known[1]:
                self._handled = (boot_id, count)
            client = self._client
            if client is not None:
                client.acknowledge_handled(count, boot_id)

    def stats(self) -> BridgeStats | None:
        """The bridge's counters for the current connection (None while reconnecting)."""
        client = self._client
        return client.stats() if client is not None else None

    def frame_faults(self) -> FrameFaults:
        """Every frame refused on this board's line since `start`, across reconnections."""
        client = self._client
        current = FrameFaults.of(client.stats()) if client is not None else FrameFaults()
        return self._faults_before + current

    def resume_events(self, baseline: EventBaseline) -> None:
        """Before `start`: events up to `baseline` were handled before (repeats: duplicates)."""
        self._baseline = baseline

    def event_position(self) -> EventBaseline | None:
        """Where counted events stand (to persist and pass back after a restart)."""
        client = self._client
        return client.event_position() if client is not None else self._baseline

    def close(self) -> None:
        """Put the board in failsafe (best effort) and stop (idempotent)."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._up = False
        client, self._client = self._client, None
        if client is not None:
            client.close()
        self._jobs.stop()

    # ------------------------------------------------------------ connecting

    def _connect(self) -> BridgeClient:
        client = self._new_client()
        with self._ack_lock:
            self._client = client  # before connect: its `Connected` event may run at once
            if self._handled is not None:  # declared while no client was there to take it
                boot_id, count = self._handled
                client.acknowledge_handled(count, boot_id)
        try:
            client.connect(timeout=HANDSHAKE_TIMEOUT)
        except HandshakeMismatch as exc:
            self._client = None
            self._faults_before += FrameFaults.of(client.stats())
            raise HandshakeError(self.device, str(exc)) from exc
        except BridgeError as exc:
            self._client = None
            self._faults_before += FrameFaults.of(client.stats())
            raise DeviceUnavailableError(self.device, f"url: {exc}") from exc
        self.identity = client.identity
        return client

    def _new_client(self) -> BridgeClient:
        link = self._link
        transport = None if link.transport_factory is None else link.transport_factory()
        client = BridgeClient(link.url, link.catalogue, self._expect, baudrate=link.baudrate,
                              timing=link.timing, event_baseline=self._baseline,
                              transport=transport, pairing=self._pairing,
                              ack_on="handled" if self._ack_when_handled else "receipt")
        client.subscribe("*", lambda message: self._jobs.put(lambda: self._dispatch(message)))
        client.subscribe_events(lambda event: self._jobs.put(lambda: self._on_bridge(event)))
        return client

    def _establish(self) -> None:
        """Reconcile the board, release its failsafe, report the link up (worker thread)."""
        self.on_connected(self)
        self.release_failsafe()
        self.handshake_authenticated = self._pairing is not None
        self._retry.reset()
        if self._up:
            return
        self._up = True
        identity = self.identity.describe() if self.identity else ""
        detail = f"{identity} auth={auth_status(self._pairing)}".strip()
        _LOG.info("%s: link up (%s)", self.device, detail)
        self._sink(LinkUp(self.device, detail, self._scheduler.now()))

    def _reconnect(self, first_wait: float = RECONNECT_INTERVAL) -> None:
        wait = first_wait
        while not self._closed.wait(wait):
            wait = RECONNECT_INTERVAL  # a port that is not there yet is looked for often
            try:
                client = self._connect()
            except HandshakeError as exc:
                self._fault(str(exc))
                return
            except DriverError as exc:
                _LOG.debug("%s: still unavailable: %s", self.device, exc)
                continue
            if self._closed.is_set():
                client.close()
            return  # the client's `Connected` event, queued behind us, establishes the link

    # ------------------------------------------------------------ worker thread

    def _safely_establish(self) -> None:
        first = not self._settled.is_set()
        error = attempt(self._establish, self.device)
        self._setup_error = error
        self._settled.set()
        if error is None:
            return
        self._down(f"set-up after connect failed: {error}")
        if first:  # start() reports the first failure as a device that cannot start
            return
        # Later: the board stays failsafe, its link down; tried again with back-off, no fault.
        wait = self._retry.next()
        _LOG.warning("%s: set-up after reconnect failed (%s); trying again in %.1f s",
                     self.device, error, wait)
        self._restart(f"set-up failed: {error}", wait)

    def _dispatch(self, message: Message) -> None:
        handler = self._handlers.get(message.name)
        if handler is not None and not self._closed.is_set():
            handler(message)

    def _on_bridge(self, event: BridgeEvent) -> None:
        if self._closed.is_set():
            return
        if isinstance(event, Connected):
            self.identity = event.identity
            self._safely_establish()
        elif isinstance(event, Disconnected):
            self._down(event.reason)
        elif isinstance(event, ReaderFailed):
            self._lost_port(event)
        elif isinstance(event, Refused):
            self._down("board refused")
            self._fault(event.reason)
        elif isinstance(event, AuthenticationFailed):
            # As at a cold start, the table holds for the supervisor; the client goes on
            # opening sessions, so the paired board is taken back once it answers.
            self._down("board refused: it failed authentication")
            self._fault(event.reason)
        elif isinstance(event, EventsMissed):
            self._fault(missed_events(event))
        elif isinstance(event, BoardReportedError):
            _LOG.warning("%s: board rejected message id %d: %s", self.device,
                         event.message_id, event.reason)

    def _lost_port(self, event: ReaderFailed) -> None:
        self._down(f"port lost: {event.error}")
        self._restart(f"port lost: {event.error}")

    def _restart(self, reason: str, wait: float = RECONNECT_INTERVAL) -> None:
        """Drop the client (keeping the event position); connect anew after `wait` s."""
        client, self._client = self._client, None
        if client is not None:
            self._baseline = client.event_position() or self._baseline
            self._faults_before += FrameFaults.of(client.stats())
            client.close()
        _LOG.info("%s: reconnecting (%s)", self.device, reason)
        self._reconnect(wait)

    def _down(self, reason: str) -> None:
        if not self._up:
            return
        self._up = False
        _LOG.warning("%s: link down: %s", self.device, reason)
        self._sink(LinkDown(self.device, reason, self._scheduler.now()))

    def _fault(self, reason: str) -> None:
        _LOG.error("%s: %s", self.device, reason)
        self._sink(DeviceFault(self.device, reason, self._scheduler.now()))

    def _ready_client(self) -> BridgeClient:
        if self._closed.is_set():
            raise DeviceClosedError(self.device, "the device is closed")
        client = self._client
        if client is None:
            raise DeviceUnavailableError(self.device, "the link is down")
        return client


class BoardDriver:
    """The `Device` life cycle of a driver whose device is one board (shoe, layout, sign).

    Args:
        name: The configured device name.
        board_kind: The catalogue board kind the device must identify as.
        link: How to reach the board.
        sink: Where events go.
        emulated: True when the board is an emulator (status then says EMULATED).
        scheduler: Clock for event times.
        ack_when_handled: Acknowledge the board's counted events only once the owner has
            handled what they reported (`BoardConnection.acknowledge`).
    """

    def __init__(self, name: str, board_kind: str, link: LinkOptions, sink: EventSink, *,
                 emulated: bool, scheduler: Scheduler | None = None,
                 ack_when_handled: bool = False) -> None:
        self._name = name
        self._emulated = emulated
        self._sink = sink
        self._clock = scheduler or MonotonicScheduler()
        self._board = BoardConnection(name, board_kind, link, sink, self._clock,
                                      ack_when_handled=ack_when_handled)

    @property
    def name(self) -> str:
        """The configured device name."""
        return self._name

    @property
    def emulated(self) -> bool:
        """True when the board is an emulator."""
        return self._emulated

    @property
    def link_up(self) -> bool:
        """True while the board is connected and answering."""
        return self._board.up

    @property
    def connection(self) -> BoardConnection:
        """The board connection (event position, identity)."""
        return self._board

    @property
    def authenticated(self) -> bool:
        """True when the board proves its pairing key (False: `auth = "none"`)."""
        return self._board.pairing is not None

    def frame_faults(self) -> FrameFaults:
        """Frames refused on the board's line since `start` (`BoardConnection.frame_faults`)."""
        return self._board.frame_faults()

    @property
    def running_unauthenticated(self) -> bool:
        """True once a handshake passed in auth mode `none` (for UNAUTHENTICATED lines).

        Decided by the handshake, never before it: a board whose key is read from its key
        file at start is not called unauthenticated while it connects.
        """
        return self._board.handshake_authenticated is False

    @property
    def auth(self) -> str:
        """For status lines: `paired (key <id>)` or `none (UNAUTHENTICATED)`."""
        return auth_status(self._board.pairing)

    def start(self) -> None:
        """Connect, check the handshake and reconcile the board (`BoardConnection.start`)."""
        self._board.start()

    def close(self) -> None:
        """Disconnect; the board goes to its failsafe state (idempotent)."""
        self._board.close()
