"""The host end of the protocol as pure logic: feed bytes in, take bytes and notices out.

`HostEndpoint` is to the host what `DeviceEndpoint` is to a board: frame decoder, `Link` in
the HOST role, handshake check, catalogue codec and counted-event de-duplication, with an
injected clock and no threads or I/O. `BridgeClient` wraps it with a serial port and a
reader thread; tests and simulations wire it straight to a `DeviceEndpoint`.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from typing import Literal

from firmware_bridge import auth
from firmware_bridge import catalogue as cat
from firmware_bridge.auth import PairingKey
from firmware_bridge.catalogue import BoardCatalogue, Catalogue
from firmware_bridge.clock import Clock
from firmware_bridge.codec import Codec, FieldValue, Message
from firmware_bridge.errors import BridgeError, CodecError, HandshakeMismatch, LinkDownError
from firmware_bridge.events import CountedEventReceiver, EventBaseline, HandledCounts
from firmware_bridge.framing import BadFrame, Frame, FrameDecoder
from firmware_bridge.guard import LiveLinkWatch, authentication_problem
from firmware_bridge.handshake import BoardIdentity, Expectation
from firmware_bridge.link import Delivered, Link, LinkEnd, LinkLost, LinkTiming, SessionUp
from firmware_bridge.status import (
    AuthenticationFailed,
    BoardReportedError,
    BridgeEvent,
    BridgeStats,
    ClientState,
    Connected,
    Disconnected,
    EventsMissed,
    Refused,
    TrafficDirection,
    TrafficRecord,
    Undecodable,
)

logger = logging.getLogger(__name__)

IDENTIFY_RETRY = 1.0
LINK_ONLY = BoardCatalogue("link", ())
Notice = Message | BridgeEvent | TrafficRecord
"""What the host endpoint hands its owner, in order: messages, link events, traffic."""
AckOn = Literal["receipt", "handled"]
"""When the host acknowledges a counted event: on receipt, or once its owner handled it."""
ACK_ON: tuple[AckOn, ...] = ("receipt", "handled")


class HostEndpoint:
    """The host's protocol engine for one board. Not thread-safe: the owner serialises calls.

    Args:
        where: names the board in every error and event (usually the port URL).
        catalogue: the message catalogue (all board kinds).
        expect: what the board must report in the handshake.
        clock: monotonic seconds.
        timing: link parameters (defaults: PROTOCOL.md's).
        event_baseline: counted events already handled before this run, if known.
        history: traffic records kept for the post-mortem.
        reveal_secrets: show secret fields, and the bytes of damaged frames, in traffic
            records (bench use only, R17).
        ack_on: "receipt" acknowledges each new counted event as it is delivered;
            "handled" delivers it unacknowledged and acknowledges only what the owner
            declares handled with `acknowledge_handled` (PROTOCOL.md, "Counted events").
        pairing: the key the board is paired with; None for auth mode `none` (a board
            without a key, accepted only where its configuration says so).

    Raises:
        ValueError: if `ack_on` is neither "receipt" nor "handled".
    """

    def __init__(  # noqa: PLR0913 - independent, defaulted options
        self, where: str, catalogue: Catalogue, expect: Expectation, clock: Clock, *,
        timing: LinkTiming | None = None, event_baseline: EventBaseline | None = None,
        history: int = 200, reveal_secrets: bool = False, ack_on: AckOn = "receipt",
        pairing: PairingKey | None = None,
    ) -> None:
        if ack_on not in ACK_ON:
            raise ValueError(f"{where}: ack_on must be 'receipt' or 'handled', not {ack_on!r}")
        self.where = where
        self._catalogue = catalogue
        self._expect = expect
        self._clock = clock
        self._reveal = reveal_secrets
        self.pairing = pairing
        self.auth = auth.auth_status(pairing)  # for status lines: "paired (key ...)" or "none ..."
        self._link = Link(LinkEnd.HOST, clock, timing, pairing=pairing)
        self._decoder = FrameDecoder()
        self._codec = Codec(LINK_ONLY)
        self.state = ClientState.IDLE
        self.identity: BoardIdentity | None = None
        self.refusal: HandshakeMismatch | None = None
        self._identify_sent = 0.0
        self._receiver = CountedEventReceiver.resumed(event_baseline)
        self._ack_on = ack_on
        self._handled = HandledCounts(self._receiver, ack_on == "handled", event_baseline)
        self._live = LiveLinkWatch()
        self._history: deque[TrafficRecord] = deque(maxlen=history)
        self._notices: list[Notice] = []
        self._output: list[bytes] = []
        self._counts = dict.fromkeys(
            ("sent", "received", "duplicates", "missed", "undecodable", "board_errors"), 0
        )

    @property
    def board(self) -> BoardCatalogue:
        """The catalogue in use: the board's after a handshake, else only link messages."""
        return self._codec.board

    def auth_problem(self) -> str | None:
        """Why no session opened, if authentication is the reason (None: it is not)."""
        return authentication_problem(self._link.stats(), self.pairing)

    def start(self) -> None:
        """Start opening sessions (RESET every 200 ms until a board answers)."""
        self.state = ClientState.CONNECTING
        self._link.start()
        self._collect()

    def feed(self, data: bytes) -> None:
        """Handle bytes received from the board (any chunking, garbage included)."""
        for item in self._decoder.feed(data):
            if isinstance(item, Frame):
                self._link.on_frame(item)
            else:
                self._record(TrafficDirection.ERROR, _describe_bad(item, self._reveal))
        self._process()

    def poll(self) -> None:
        """Run the timers: link liveness, retransmission, heartbeat, identify retry."""
        self._link.poll()
        self._process()
        waited = self._clock() - self._identify_sent
        if self.state is ClientState.HANDSHAKING and waited >= IDENTIFY_RETRY:
            self._send_identify()
            self._collect()

    def send(self, name: str, fields: Mapping[str, FieldValue] | None = None) -> None:
        """Queue message `name` for reliable, in-order delivery.

        Raises:
            LinkDownError: if the board is not connected and identified right now.
            CodecError: if the message or a field is wrong (names which).
            SendQueueFullError: if too many messages wait for the link.
        """
        if self.state is not ClientState.READY:
            raise LinkDownError(f"{self.where}: cannot send {name!r}: the board is {self.state}")
        values = dict(fields or {})
        payload = self._codec.encode(name, values)
        self._link.send(payload)
        self._counts["sent"] += 1
        text = self._codec.describe(Message(name, values), reveal_secrets=self._reveal)
        self._record(TrafficDirection.OUT, text)
        self._collect()

    def stop(self, reason: str) -> None:
        """Ask a ready board to go failsafe (best effort), then fall silent."""
        if self.state is ClientState.READY:
            try:
                self.send(cat.FAILSAFE, {"active": True})
            except BridgeError as error:
                logger.warning("%s: could not ask for failsafe: %s", self.where, error)
        self._collect()
        self._link.stop(reason)
        self.state = ClientState.CLOSED

    def take_output(self) -> bytes:
        """Return and forget the bytes to write to the board."""
        self._collect()
        output, self._output = b"".join(self._output), []
        return output

    def take_notices(self) -> list[Notice]:
        """Return and forget received messages, link events and traffic records, in order."""
        notices, self._notices = self._notices, []
        return notices

    def acknowledge_handled(self, count: int, boot_id: int | None = None) -> None:
        """Declare every counted event up to `count` handled (with `ack_on="handled"`).

        The board is sent `event_ack` for the highest count declared so far
        (`HandledCounts.declare`); while it is not connected the count is kept and sent
        when the board repeats an event. With `ack_on="receipt"` this does nothing.
        """
        declared = self._handled.declare(count, boot_id)
        if declared is not None and self.state is ClientState.READY:
            self._acknowledge(declared)

    def event_position(self) -> EventBaseline | None:
        """The counted-event position to persist, to pass as `event_baseline` next run."""
        return self._handled.position()

    def history(self) -> list[TrafficRecord]:
        """The last traffic records, oldest first (the post-mortem dump)."""
        return list(self._history)

    def stats(self) -> BridgeStats:
        """Return a snapshot of every counter."""
        counts = self._counts
        return BridgeStats(
            self.state, self._link.stats(), self._decoder.stats(), counts["sent"],
            counts["received"], counts["duplicates"], counts["missed"],
            counts["undecodable"], counts["board_errors"], self.auth,
        )

    # ------------------------------------------------------------------ internals

    def _process(self) -> None:
        for event in self._link.take_events():
            if isinstance(event, Delivered):
                self._on_payload(event.payload)
            elif isinstance(event, SessionUp):
                self._live.session_up()
                self.state = ClientState.HANDSHAKING
                self._codec = Codec(LINK_ONLY)
                self._record(TrafficDirection.LINK,
                             f"session {event.session[:4].hex()} up, auth {self.auth}")
                self._send_identify()
            else:
                self._on_link_lost(event)
        self._link.poll()
        self._check_authentication()
        self._collect()

    def _check_authentication(self) -> None:
        """Refuse a board that stopped proving the key since its session went down."""
        last = self.identity.describe() if self.identity is not None else ""
        reason = self._live.refusal(self._link.stats(), self.pairing, last)
        if reason is not None:
            logger.error("%s: %s", self.where, reason)
            self._record(TrafficDirection.ERROR, reason)
            self._notices.append(AuthenticationFailed(self.where, reason))

    def _on_link_lost(self, event: LinkLost) -> None:
        self._live.session_down(self._link.stats())
        was_ready = self.state is ClientState.READY
        if self.state in (ClientState.READY, ClientState.HANDSHAKING):
            self.state = ClientState.CONNECTING
        self._record(TrafficDirection.LINK, f"link down: {event.reason}")
        if was_ready:
            logger.warning("%s: link down: %s", self.where, event.reason)
            self._notices.append(Disconnected(self.where, event.reason, event.discarded))

    def _on_payload(self, payload: bytes) -> None:
        try:
            message = self._codec.decode(payload)
        except CodecError as error:
            self._counts["undecodable"] += 1
            self._record(TrafficDirection.ERROR, str(error))
            self._notices.append(Undecodable(self.where, str(error)))
            return
        self._counts["received"] += 1
        text = self._codec.describe(message, reveal_secrets=self._reveal)
        self._record(TrafficDirection.IN, text)
        if message.name == cat.IDENTIFY_RESPONSE:
            self._on_identity(message)
        elif self.state is not ClientState.READY:
            return
        elif message.name == cat.COMMAND_ERROR:
            self._counts["board_errors"] += 1
            reason = message.text("reason")
            logger.warning("%s: board reports: %s", self.where, reason)
            self._notices.append(BoardReportedError(self.where, message.int("message_id"), reason))
        elif self._codec.board.spec(message.name).counted:
            self._on_counted(message)
        else:
            self._notices.append(message)

    def _on_identity(self, message: Message) -> None:
        if self.state is not ClientState.HANDSHAKING:
            return
        identity = BoardIdentity.from_message(message)
        try:
            board = self._expect.check(identity, self._catalogue, self.where)
        except HandshakeMismatch as error:
            self._refuse(error)
            return
        self._codec = Codec(board)
        self.identity = identity
        self.state = ClientState.READY
        restarted = self._receiver.on_identity(identity.boot_id)
        if restarted:
            self._handled.restarted()
        self._record(TrafficDirection.LINK,
                     f"handshake passed: {identity.describe()} auth={self.auth}")
        logger.info("%s: connected: %s auth=%s", self.where, identity.describe(), self.auth)
        key_id = self.pairing.key_id if self.pairing else None
        self._notices.append(Connected(self.where, identity, restarted, key_id))

    def _refuse(self, error: HandshakeMismatch) -> None:
        logger.error("%s", error)
        self.state = ClientState.REFUSED
        self.refusal = error
        self._record(TrafficDirection.ERROR, str(error))
        self._link.stop("handshake refused")
        self._notices.append(Refused(self.where, str(error)))

    def _on_counted(self, message: Message) -> None:
        receipt = self._receiver.accept(message.int(cat.COUNT_FIELD))
        if self._ack_on == "receipt":
            self._acknowledge(receipt.ack)
        elif not receipt.deliver and self._handled.count:
            # Handled mode: a new event waits for `acknowledge_handled`; a repeated one is
            # answered with what the owner has handled, never more.
            self._acknowledge(min(self._handled.count, receipt.ack))
        if not receipt.deliver:
            self._counts["duplicates"] += 1
            return
        if receipt.missed is not None:
            first, last = receipt.missed
            self._counts["missed"] += last - first + 1
            logger.error("%s: counted events %d..%d were lost", self.where, first, last)
            self._notices.append(EventsMissed(self.where, message.name, first, last))
        self._notices.append(message)

    def _acknowledge(self, count: int) -> None:
        try:
            self.send(cat.EVENT_ACK, {cat.COUNT_FIELD: count})
        except BridgeError as error:  # the board repeats the event; it is acknowledged then
            self._record(TrafficDirection.ERROR, f"event_ack not sent: {error}")

    def _send_identify(self) -> None:
        self._identify_sent = self._clock()
        try:
            self._link.send(self._codec.encode(cat.IDENTIFY))
        except BridgeError as error:
            self._record(TrafficDirection.ERROR, f"identify not sent: {error}")
            return
        self._record(TrafficDirection.OUT, cat.IDENTIFY)

    def _collect(self) -> None:
        self._output += self._link.take_output()

    def _record(self, direction: TrafficDirection, text: str) -> None:
        record = TrafficRecord(self._clock(), direction, text)
        self._history.append(record)
        self._notices.append(record)


def _describe_bad(bad: BadFrame, reveal_secrets: bool) -> str:
    # A damaged frame cannot be decoded, so its secret fields cannot be masked: its bytes
    # are shown only where secrets may be (R17).
    text = f"{bad.kind}: {bad.detail}"
    return f"{text} ({bad.raw.hex(' ')})" if reveal_secrets else text
