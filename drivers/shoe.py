"""The shoe's card scanner over firmware_bridge, on a serial port or USB bulk endpoints.

The scanner board (catalogue board `shoe`) reports, for every card, what its read head saw
(`card_read`, `card_unreadable` or `card_face_up`) and then `card_out` when the card leaves;
all are counted events, so none is lost or repeated. This driver pairs them into one
`CardDrawn` per card (preceded by a `ShoeFault` when the card was unreadable or face up) and
turns the other reports into `ShoeFault` and `ShoeLoaded`. Card codes go only into the
event records, never into a log line (R17).

With `ack_when_handled` (the controller's choice) the board's events are acknowledged only
when the owner calls `handled(record)` for the record they produced, i.e. once it has
durably recorded it: if the host loses power before that, the board repeats the events to
the next host and no card is lost. The driver keeps, for each record it posted, the board
count to acknowledge then: the count of the message that produced it, or, while a card's
read waits for its `card_out` (a `card_read` posts nothing; an unreadable or face-up card's
`ShoeFault` comes before its `CardDrawn`), the count before that card's first message, so a
card is acknowledged only with its `CardDrawn`. It keeps at most `POSTED_LIMIT` records
awaiting `handled`; reaching the limit (the owner stopped declaring records handled) is a
`DeviceFault`, and the records beyond it are still posted, never dropped.

Before the board leaves failsafe after every (re)connection the driver reconciles it
(`get_shoe_state`, PROTOCOL.md section 10): a lid or jam condition the board reports that
was not reported before is posted as a `ShoeFault` then. A board that restarted in the
middle of a shoe (a new boot id, PROTOCOL.md section 12) is a `ShoeFault` of kind
`restarted`, and its cards are numbered on from the last card posted, so none of them is
taken for a card already recorded. Every `CardDrawn`, `ShoeLoaded` and `restarted` fault
carries that numbering (`BoardNumbering`: the board's boot id and the base added to its card
numbers); the controller keeps it with the card in the same journal commit and hands it back
with `resume` before a restarted host starts, so the mapping survives the host's own restart.

Config::

    [devices.shoe]
    kind = "serial"             # or "usb" with vid, pid, serial_number
    url = "/dev/shoe-scanner"
    timeout_ms = 1000
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Final

from drivers.board import BoardConnection, BoardDriver, LinkOptions
from drivers.events import (
    BoardNumbering,
    CardDrawn,
    DeviceFault,
    DriverEvent,
    EventSink,
    ShoeFault,
    ShoeFaultKind,
    ShoeLoaded,
)
from drivers.interfaces import ShoeState
from drivers.timing import Scheduler
from firmware_bridge import EventBaseline, Message

_LOG = logging.getLogger(__name__)
POSTED_LIMIT: Final = 1024
"""Records kept awaiting `handled` at most (the board holds far fewer events unacknowledged);
beyond it the shoe reports a `DeviceFault` and posts the records untracked."""
CONDITIONS: Final = {ShoeFaultKind.LID_OPEN: "lid_open", ShoeFaultKind.JAM: "jammed"}
"""The shoe conditions reconciled with `shoe_state`, and the field that reports each."""


class BridgeShoe(BoardDriver):
    """A `ShoeScanner` on the shoe board.

    Args:
        name: The configured device name.
        link: How to reach the board (serial URL or USB transport).
        sink: Where events go.
        emulated: True when the board is an emulator (status then says EMULATED).
        scheduler: Clock for event times.
        ack_when_handled: Acknowledge the board's events only as `handled` is called for
            the records they produced (False: as they arrive, and `handled` does nothing).
    """

    def __init__(self, name: str, link: LinkOptions, sink: EventSink, *,
                 emulated: bool = False, scheduler: Scheduler | None = None,
                 ack_when_handled: bool = False) -> None:
        super().__init__(name, "shoe", link, sink, emulated=emulated, scheduler=scheduler,
                         ack_when_handled=ack_when_handled)
        self._reads: dict[int, tuple[str | None, int]] = {}
        self._cards_out = 0  # in the board's numbering
        self._base = 0  # added to the board's card numbers (after a restart mid-shoe)
        self._conditions: dict[ShoeFaultKind, bool] = {}  # lid and jam, as last posted
        self._known_boot: int | None = None  # the board boot of the last connection
        self._ack_when_handled = ack_when_handled
        self._posted: deque[tuple[DriverEvent, int | None, int]] = deque()
        self._posted_lock = threading.Lock()
        self._overflowing = False
        self._boot_id: int | None = None
        self._count = 0  # the board count of the message being handled
        self._settled = 0  # the last count after which no card waited for its card_out
        handlers = {
            "card_read": self._on_read, "card_unreadable": self._on_unreadable,
            "card_face_up": self._on_face_up, "card_out": self._on_out,
            "cut_card": self._on_cut_card, "shoe_empty": self._on_empty,
            "jam": self._on_jam, "lid": self._on_lid, "shoe_loaded": self._on_loaded,
        }
        for message, handler in handlers.items():
            self._board.handle(message, partial(self._counted, handler))
        self._board.on_connected = self._reconcile

    def query_state(self) -> ShoeState:
        """Ask the board for `shoe_state`."""
        reply = self._board.request("get_shoe_state")
        return ShoeState(cards_out=reply.int("card_no"), lid_open=reply.flag("lid_open"),
                         jammed=reply.flag("jammed"), empty=reply.flag("empty"))

    def resume(self, numbering: BoardNumbering, last: int) -> None:
        """Before `start`: number on as the journal left off (a restarted host).

        Args:
            numbering: The board boot and base of the last card (or shoe) recorded.
            last: The shoe number of the last card recorded (0: none since the shoe loaded).

        A board that answers with the same boot id maps its card numbers exactly as before
        (a card it repeats is the card recorded under the same number); one with another
        boot id restarted while the host was away: a `restarted` fault if a shoe is in play.
        """
        self._known_boot = self._boot_id = numbering.boot_id
        self._base = numbering.base
        self._cards_out = max(last - numbering.base, 0)
        if numbering.handled:  # the board's repeats of what the journal holds are not new
            self._board.resume_events(EventBaseline(numbering.boot_id, numbering.handled))

    def handled(self, record: DriverEvent) -> None:
        """The owner has durably handled `record` (and every record posted before it).

        With `ack_when_handled` the board is told (`event_ack`) up to the count noted for
        `record` when it was posted; a record this driver did not post is ignored. Safe
        from any thread.
        """
        if not self._ack_when_handled:
            return
        with self._posted_lock:
            index = next((i for i, (posted, _, _) in enumerate(self._posted)
                          if posted is record), None)
            if index is None:
                return
            for _ in range(index):
                self._posted.popleft()
            _, boot_id, count = self._posted.popleft()
            if len(self._posted) < POSTED_LIMIT // 2:
                self._overflowing = False
        self._board.acknowledge(boot_id, count)

    # ------------------------------------------------------------ reconciling (worker thread)

    def _reconcile(self, board: BoardConnection) -> None:
        identity = board.identity
        boot = identity.boot_id if identity is not None else None
        in_play = self._base + self._cards_out > 0
        if self._known_boot is not None and boot != self._known_boot and in_play:
            self._restarted(self._known_boot, boot)
        self._known_boot = boot
        reply = board.request("get_shoe_state")
        for kind, field in CONDITIONS.items():
            active = reply.flag(field)
            if self._conditions.get(kind, False) != active:
                self._fault(kind, self._base + self._cards_out, active,
                            "as the shoe reports it now (get_shoe_state)")

    def _restarted(self, old: int, new: int | None) -> None:
        last = self._base + self._cards_out
        # The new boot's counts start at 1: nothing of it is handled yet.
        self._boot_id, self._settled, self._count = new, 0, 0
        self._base, self._cards_out = last, 0
        self._reads.clear()
        self._fault(ShoeFaultKind.RESTARTED, last, True,
                    f"the shoe board restarted (boot id {old:08x} -> {new or 0:08x}) in the "
                    "middle of a shoe: cards taken while it was off were not read; its cards "
                    f"are numbered on from {last + 1}")

    def _numbering(self) -> BoardNumbering | None:
        """The board numbering the events handled now belong to (None before a handshake).

        Its `handled` is the count the record in hand is acknowledged with (`_track`).
        """
        if self._boot_id is None:
            return None
        return BoardNumbering(self._boot_id, self._base, self._ack_count(before_card=False))

    def _ack_count(self, before_card: bool) -> int:
        """The board count to acknowledge with the record posted now.

        The count of the message that produced it, or, while a card's read waits for its
        `card_out`, the count before that card's first message.
        """
        waiting = before_card or self._card_waiting()
        return self._settled if waiting else self._count

    # ------------------------------------------------------------ handlers (worker thread)

    def _counted(self, handler: Callable[[Message], None], message: Message) -> None:
        identity = self._board.identity
        boot_id = identity.boot_id if identity is not None else None
        if boot_id != self._boot_id:  # a restarted board counts from 1 again
            self._boot_id, self._settled = boot_id, 0
        self._count = message.int("count")
        handler(message)
        if not self._card_waiting():
            self._settled = self._count

    def _card_waiting(self) -> bool:
        """True while a card was read (or found unreadable) but has not left the shoe."""
        return any(card_no > self._cards_out for card_no in self._reads)

    def _post(self, record: DriverEvent, *, before_card: bool = False) -> None:
        if self._ack_when_handled and self._track(record, before_card):
            reason = (f"{POSTED_LIMIT} records await being declared handled (the controller "
                      "stopped confirming them); the board keeps their events")
            _LOG.error("%s: %s", self._name, reason)
            self._sink(DeviceFault(self._name, reason, self._clock.now()))
        self._sink(record)

    def _track(self, record: DriverEvent, before_card: bool) -> bool:
        """Note the count to acknowledge with `record`; True when the limit is first reached."""
        count = self._ack_count(before_card)
        with self._posted_lock:
            if len(self._posted) < POSTED_LIMIT:
                self._posted.append((record, self._boot_id, count))
                return False
            first, self._overflowing = not self._overflowing, True
            return first

    def _on_read(self, message: Message) -> None:
        self._reads[message.int("card_no")] = (message.text("code"), message.int("quality"))

    def _on_unreadable(self, message: Message) -> None:
        card_no = message.int("card_no")
        self._reads[card_no] = (None, 0)
        self._fault(ShoeFaultKind.UNREADABLE, self._base + card_no, True,
                    message.text("reason"), before_card=True)

    def _on_face_up(self, message: Message) -> None:
        card_no = message.int("card_no")
        self._reads[card_no] = (None, 0)
        self._fault(ShoeFaultKind.FACE_UP, self._base + card_no, True, before_card=True)

    def _on_out(self, message: Message) -> None:
        card_no = message.int("card_no")
        read = self._reads.pop(card_no, None)
        if read is None:
            # The board must report the read before the exit; a missing one is a fault
            # of the board, and the card is reported as unreadable rather than lost.
            self._fault(ShoeFaultKind.UNREADABLE, self._base + card_no, True,
                        "no read before card_out", before_card=True)
            read = (None, 0)
        self._cards_out = card_no
        code, quality = read
        self._post(CardDrawn(self._name, self._base + card_no, code, quality,
                             self._clock.now(), self._numbering()))

    def _on_cut_card(self, message: Message) -> None:
        self._fault(ShoeFaultKind.CUT_CARD, self._base + message.int("card_no"), True)

    def _on_empty(self, message: Message) -> None:
        self._fault(ShoeFaultKind.SHOE_EMPTY, self._base + message.int("card_no"), True)

    def _on_jam(self, message: Message) -> None:
        self._fault(ShoeFaultKind.JAM, self._base + self._cards_out, message.flag("active"))

    def _on_lid(self, message: Message) -> None:
        self._fault(ShoeFaultKind.LID_OPEN, self._base + self._cards_out, message.flag("open"))

    def _on_loaded(self, message: Message) -> None:
        self._reads.clear()
        self._cards_out = self._base = 0
        _LOG.info("%s: shoe loaded", self._name)
        self._post(ShoeLoaded(self._name, self._clock.now(), self._numbering()))

    def _fault(self, kind: ShoeFaultKind, count: int, active: bool, detail: str = "", *,
               before_card: bool = False) -> None:
        if kind in CONDITIONS:
            self._conditions[kind] = active
        _LOG.info("%s: %s (active=%s) at card %d", self._name, kind, active, count)
        numbering = self._numbering() if kind is ShoeFaultKind.RESTARTED else None
        self._post(ShoeFault(self._name, kind, count, active, self._clock.now(), detail,
                             numbering), before_card=before_card)

