"""The link layer: sessions, sequence numbers, acknowledgements, retransmission, liveness.

Pure logic with an injected clock and no I/O, used unchanged at both ends: the host runs
it as `LinkEnd.HOST` (it opens sessions with RESET), a board as `LinkEnd.BOARD` (it answers
RESET and announces NO_SESSION while it has none). The owner feeds decoded frames to
`on_frame`, calls `poll` after every feed and at least every few tens of milliseconds,
writes what `take_output` returns, and handles what `take_events` returns. Every frame
passes the link's `FrameGuard` first (authentication: tag, frame counter, auth mode), so a
forged or replayed frame is counted and dropped before it can touch a sequence number. The
rules are PROTOCOL.md's "Authentication" and "Link layer" sections; the constants are
`LinkTiming`'s defaults.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from firmware_bridge.auth import AuthMode, PairingKey, SessionKeys, new_nonce
from firmware_bridge.clock import Clock
from firmware_bridge.errors import LinkDownError, SendQueueFullError
from firmware_bridge.framing import (
    DELIMITER,
    Frame,
    FrameKind,
    encode_frame,
    no_session_payload,
    reset_ack_payload,
    reset_payload,
)
from firmware_bridge.guard import FrameGuard, GuardStats

SEQ_MODULO: Final = 256
MAX_WINDOW: Final = 127  # half the sequence space, so "behind" and "ahead" never overlap


class LinkEnd(StrEnum):
    """Which end of the link this is."""

    HOST = "host"
    BOARD = "board"


class LinkState(StrEnum):
    """Whether a session is established."""

    DOWN = "down"
    UP = "up"


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """The link's timing and size parameters (PROTOCOL.md, "Timing").

    Attributes:
        heartbeat_interval: send a frame at least this often (an ACK if nothing else).
        link_timeout: declare the link down after this long with no valid frame.
        retransmit_timeout: first wait for an acknowledgement before retransmitting.
        max_retransmit_timeout: the back-off (doubling) stops at this wait.
        max_retransmits: consecutive timeouts without progress before the link is down.
        window: DATA frames in flight (sent, not yet acknowledged).
        queue_limit: messages waiting for room in the window before `send` refuses.
        reset_interval_max: a host without a session waits `heartbeat_interval` before its
            second RESET and twice as long before each one after, up to this (section 5.1).
    """

    heartbeat_interval: float = 0.20
    link_timeout: float = 0.75
    retransmit_timeout: float = 0.10
    max_retransmit_timeout: float = 0.40
    max_retransmits: int = 6
    window: int = 4
    queue_limit: int = 64
    reset_interval_max: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.window <= MAX_WINDOW:
            raise ValueError(f"window {self.window} must be 1..{MAX_WINDOW}")


@dataclass(frozen=True, slots=True)
class Delivered:
    """A message payload received in order, exactly once within the session."""

    payload: bytes


@dataclass(frozen=True, slots=True)
class SessionUp:
    """A session started (`session` is the host's nonce that opened it)."""

    session: bytes


@dataclass(frozen=True, slots=True)
class LinkLost:
    """The session ended: why, and how many unacknowledged messages were dropped with it."""

    reason: str
    discarded: int = 0


LinkEvent = Delivered | SessionUp | LinkLost


@dataclass(frozen=True, slots=True)
class LinkStats:
    """Counters of one `Link` since it was made."""

    state: LinkState
    sessions: int
    link_downs: int
    data_sent: int
    retransmissions: int
    data_received: int
    duplicates: int
    out_of_order: int
    acks_sent: int
    frames_received: int
    bad_acks: int
    ignored_frames: int
    in_flight: int
    queued: int
    auth: AuthMode = AuthMode.NONE
    bad_macs: int = 0
    replayed: int = 0
    auth_mismatches: int = 0
    peer_auth: AuthMode | None = None
    counter_errors: int = 0


@dataclass(slots=True)
class _Counters:
    sessions: int = 0
    link_downs: int = 0
    data_sent: int = 0
    retransmissions: int = 0
    data_received: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    acks_sent: int = 0
    frames_received: int = 0
    bad_acks: int = 0
    ignored_frames: int = 0

    def snapshot(self, state: LinkState, guard: GuardStats, in_flight: int,
                 queued: int) -> LinkStats:
        """The counters, with the link's state, its window and its guard's refusals."""
        return LinkStats(
            state, self.sessions, self.link_downs, self.data_sent, self.retransmissions,
            self.data_received, self.duplicates, self.out_of_order, self.acks_sent,
            self.frames_received, self.bad_acks, self.ignored_frames, in_flight, queued,
            guard.mode, guard.bad_macs, guard.replayed, guard.auth_mismatches,
            guard.peer_mode, guard.counter_errors,
        )


class ResetBackoff:
    """When a host without a session sends its next RESET (section 5.1).

    After the heartbeat interval at first, then twice as long after each unanswered RESET, up
    to `LinkTiming.reset_interval_max`; back to the first wait when a session opens or an
    authentic NO_SESSION shows that a board is on the line.
    """

    def __init__(self, timing: LinkTiming) -> None:
        self._timing = timing
        self._wait = timing.heartbeat_interval

    def restart(self) -> None:
        """Start again from the heartbeat interval."""
        self._wait = self._timing.heartbeat_interval

    def due(self, quiet: float) -> bool:
        """True when `quiet` seconds since the host last sent are enough for the next RESET."""
        return quiet >= self._wait

    def sent(self) -> None:
        """A RESET went out unanswered so far: wait twice as long for the next one."""
        self._wait = min(self._wait * 2, self._timing.reset_interval_max)


class Link:
    """One end of a link. Not thread-safe: its owner serialises calls.

    Args:
        role: HOST opens sessions; BOARD answers them.
        clock: monotonic seconds.
        timing: timing and window parameters.
        nonce_source: makes 16-byte session nonces (tests inject a predictable one).
        pairing: the pairing key shared with the peer; None for auth mode `none`.
    """

    def __init__(self, role: LinkEnd, clock: Clock, timing: LinkTiming | None = None,
                 nonce_source: Callable[[], bytes] = new_nonce,
                 pairing: PairingKey | None = None) -> None:
        self.role = role
        self.timing = timing or LinkTiming()
        self._clock = clock
        self._nonce_source = nonce_source
        self._guard = FrameGuard(host=role is LinkEnd.HOST, key=pairing)
        self._state = LinkState.DOWN
        self._session = self._pending_nonce = self._board_nonce = b""
        self._queued_total = self._acked_total = 0
        self._tx_seq = self._rx_seq = 0
        self._in_flight: deque[tuple[int, bytes]] = deque()
        self._waiting: deque[bytes] = deque()
        self._ack_due = False
        self._no_session_due = False
        self._retransmit_at: float | None = None
        self._rto = self.timing.retransmit_timeout
        self._retries = 0
        self._backoff = ResetBackoff(self.timing)
        self._last_rx = self._last_tx = clock()
        self._output: list[bytes] = []
        self._events: list[LinkEvent] = []
        self._count = _Counters()
        self._stopped = True

    @property
    def state(self) -> LinkState:
        """UP while a session is established."""
        return self._state

    @property
    def session(self) -> bytes:
        """The host nonce of the current (or last) session; empty before the first."""
        return self._session

    @property
    def delivered(self) -> int:
        """Messages of this session the peer's link has acknowledged (`send` numbers below)."""
        return self._acked_total

    def start(self) -> None:
        """Begin: a HOST sends RESET (and keeps doing so until answered); a BOARD NO_SESSION."""
        self._stopped = False
        self._output.append(DELIMITER)
        self._begin_down()

    def send(self, payload: bytes) -> int:
        """Queue one message payload for reliable, in-order delivery.

        Returns:
            The message's number in this session (0, 1, 2, ...): it is delivered (the
            peer's link acknowledged it) once `delivered` is above it.

        Raises:
            LinkDownError: if no session is up.
            SendQueueFullError: if `timing.queue_limit` messages already wait for the window.
        """
        if self._state is not LinkState.UP:
            raise LinkDownError("the link is down; nothing can be sent until a session is up")
        if len(self._waiting) >= self.timing.queue_limit:
            raise SendQueueFullError(f"{len(self._waiting)} messages already wait for the link")
        self._waiting.append(payload)
        number, self._queued_total = self._queued_total, self._queued_total + 1
        self._fill_window()
        return number

    def on_frame(self, frame: Frame) -> None:
        """Handle one frame the decoder accepted."""
        self._count.frames_received += 1
        if self._stopped:
            self._count.ignored_frames += 1
        elif frame.kind in (FrameKind.RESET, FrameKind.RESET_ACK, FrameKind.NO_SESSION):
            self._on_session_frame(frame)
        elif self._state is not LinkState.UP:
            self._count.ignored_frames += 1
            self._no_session_due = self.role is LinkEnd.BOARD
        elif self._guard.admit(frame):
            self._last_rx = self._clock()
            self._apply_ack(frame.ack)
            if frame.kind is FrameKind.DATA:
                self._on_data(frame)

    def poll(self) -> None:
        """Run the timers: liveness, retransmission, heartbeat, pending acknowledgements."""
        if self._stopped:
            return
        now = self._clock()
        if self._state is LinkState.UP:
            self._poll_up(now)
        if self._state is LinkState.DOWN:
            self._poll_down(now)

    def take_output(self) -> list[bytes]:
        """Return and forget the wire bytes to write, one complete frame per item."""
        output, self._output = self._output, []
        return output

    def take_events(self) -> list[LinkEvent]:
        """Return and forget the events since the last call, in order."""
        events, self._events = self._events, []
        return events

    def stats(self) -> LinkStats:
        """Return a snapshot of the counters."""
        return self._count.snapshot(self._state, self._guard.stats(), len(self._in_flight),
                                    len(self._waiting))

    def stop(self, reason: str) -> None:
        """End any session and fall silent until `start` (e.g. the peer failed the handshake).

        The peer then sees silence and goes to its failsafe state; nothing is retried.
        """
        if self._state is LinkState.UP:
            self._go_down(reason)
        self._stopped = True
        self._output.clear()

    # ------------------------------------------------------------------ sessions

    def _on_session_frame(self, frame: Frame) -> None:
        if self.role is LinkEnd.BOARD and frame.kind is FrameKind.RESET:
            if self._guard.admit_beacon(frame):
                self._answer_reset(frame.host_nonce)
        elif self.role is LinkEnd.HOST and frame.kind is FrameKind.RESET_ACK:
            self._on_reset_ack(frame)
        elif self.role is LinkEnd.HOST and frame.kind is FrameKind.NO_SESSION:
            if not self._guard.admit_beacon(frame):
                return
            self._last_rx = self._clock()
            if self._state is LinkState.UP:
                self._go_down("the board has no session (it restarted or timed out)")
            else:
                self._backoff.restart()  # a board is there: the next RESET goes soon
        else:
            self._count.ignored_frames += 1

    def _answer_reset(self, nonce: bytes) -> None:
        if not any(nonce):
            self._count.ignored_frames += 1  # an all-zero nonce opens nothing
            return
        # Repeated for the session that is up (the host missed the RESET_ACK): answer again
        # and go on unchanged; a RESET (which anyone may replay) does not count for liveness.
        if not (self._state is LinkState.UP and nonce == self._session):
            self._last_rx = self._clock()
            if self._state is LinkState.UP:
                self._go_down("the host started a new session", beacon=False)
            self._board_nonce = self._nonce_source()
            self._open_session(nonce, self._guard.session_keys(nonce, self._board_nonce))
        self._emit(Frame(FrameKind.RESET_ACK, payload=reset_ack_payload(
            self._guard.mode, nonce, self._board_nonce)))

    def _on_reset_ack(self, frame: Frame) -> None:
        if self._state is not LinkState.DOWN or frame.host_nonce != self._pending_nonce:
            self._count.ignored_frames += 1
            return
        keys = self._guard.admit_reset_ack(frame)
        if keys is not None:
            self._last_rx = self._clock()
            self._open_session(frame.host_nonce, keys)

    def _open_session(self, host_nonce: bytes, keys: SessionKeys) -> None:
        self._state = LinkState.UP
        self._session = host_nonce
        self._guard.open(keys)
        self._tx_seq = self._rx_seq = 0
        self._queued_total = self._acked_total = 0
        self._ack_due = self._no_session_due = False
        self._reset_retransmission()
        self._count.sessions += 1
        self._events.append(SessionUp(host_nonce))

    def _go_down(self, reason: str, *, beacon: bool = True) -> None:
        discarded = len(self._in_flight) + len(self._waiting)
        self._in_flight.clear()
        self._waiting.clear()
        self._state = LinkState.DOWN
        self._count.link_downs += 1
        self._events.append(LinkLost(reason, discarded))
        if beacon:
            self._begin_down()

    def _begin_down(self) -> None:
        self._state = LinkState.DOWN
        self._backoff.restart()
        self._send_down_beacon()

    def _send_down_beacon(self) -> None:
        mode = self._guard.mode
        if self.role is LinkEnd.HOST:
            # A fresh nonce for every attempt: a RESET_ACK answering an earlier one is
            # ignored (section 5.1), and no two RESETs of this host look alike.
            self._pending_nonce = self._nonce_source()
            self._emit(Frame(FrameKind.RESET, payload=reset_payload(mode, self._pending_nonce)))
        else:
            self._emit(Frame(FrameKind.NO_SESSION, payload=no_session_payload(mode)))
        self._no_session_due = False

    def _poll_down(self, now: float) -> None:
        if self.role is LinkEnd.HOST:
            if self._backoff.due(now - self._last_tx):
                self._send_down_beacon()
                self._backoff.sent()
        elif self._no_session_due or now - self._last_tx >= self.timing.heartbeat_interval:
            self._send_down_beacon()

    # ------------------------------------------------------------------ data

    def _on_data(self, frame: Frame) -> None:
        distance = (frame.seq - self._rx_seq) % SEQ_MODULO
        if distance == 0:
            self._rx_seq = (self._rx_seq + 1) % SEQ_MODULO
            self._count.data_received += 1
            self._events.append(Delivered(frame.payload))
        elif distance >= SEQ_MODULO // 2:
            self._count.duplicates += 1
        else:
            self._count.out_of_order += 1
        self._ack_due = True

    def _apply_ack(self, ack: int) -> None:
        if not self._in_flight:
            if ack != self._tx_seq:
                self._count.bad_acks += 1
            return
        acked = (ack - self._in_flight[0][0]) % SEQ_MODULO
        if acked > len(self._in_flight):
            self._count.bad_acks += 1
            return
        for _ in range(acked):
            self._in_flight.popleft()
        self._acked_total += acked
        if acked:
            self._reset_retransmission()
            self._fill_window()

    def _fill_window(self) -> None:
        while self._waiting and len(self._in_flight) < self.timing.window:
            payload = self._waiting.popleft()
            self._in_flight.append((self._tx_seq, payload))
            self._tx_seq = (self._tx_seq + 1) % SEQ_MODULO
            self._count.data_sent += 1
            self._emit_data(self._in_flight[-1])

    def _emit_data(self, entry: tuple[int, bytes]) -> None:
        self._emit(Frame(FrameKind.DATA, entry[0], self._rx_seq, entry[1]))
        self._ack_due = False
        if self._retransmit_at is None:
            self._retransmit_at = self._clock() + self._rto

    def _reset_retransmission(self) -> None:
        self._retries = 0
        self._rto = self.timing.retransmit_timeout
        self._retransmit_at = self._clock() + self._rto if self._in_flight else None

    # ------------------------------------------------------------------ timers

    def _poll_up(self, now: float) -> None:
        if self._guard.exhausted:
            self._go_down("frame counter exhausted; a new session starts")
            return
        if now - self._last_rx > self.timing.link_timeout:
            silent_ms = round((now - self._last_rx) * 1000)
            self._go_down(f"nothing received for {silent_ms} ms")
            return
        if self._retransmit_at is not None and now >= self._retransmit_at:
            if self._retries >= self.timing.max_retransmits:
                self._go_down(f"no acknowledgement after {self._retries} retransmissions")
                return
            self._retransmit(now)
        if self._ack_due or now - self._last_tx >= self.timing.heartbeat_interval:
            self._emit(Frame(FrameKind.ACK, self._tx_seq, self._rx_seq))
            self._count.acks_sent += 1
            self._ack_due = False

    def _retransmit(self, now: float) -> None:
        self._retries += 1
        self._rto = min(self._rto * 2, self.timing.max_retransmit_timeout)
        self._retransmit_at = now + self._rto
        for entry in self._in_flight:
            self._count.retransmissions += 1
            self._emit_data(entry)

    def _emit(self, frame: Frame) -> None:
        if frame.kind in (FrameKind.DATA, FrameKind.ACK) and self._guard.exhausted:
            return  # never a counter at the limit (section 4.3); the next poll ends the session
        self._output.append(encode_frame(self._guard.seal(frame)))
        self._last_tx = self._clock()
