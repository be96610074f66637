"""The shoe's card scanner over firmware_bridge, on a serial port or USB bulk endpoints.

The scanner board (catalogue board `shoe`) reports, for every card, what its read head saw
(`card_read`, `card_unreadable` or `card_face_up`) and then `card_out` when the card leaves;
all are counted events, so none is lost or repeated. This driver pairs them into one
`CardDrawn` per card (preceded by a `ShoeFault` when the card was unreadable or face up) and
turns the other reports into `ShoeFault` and `ShoeLoaded`. Card codes go only into the
event records, never into a log line (R17).

Config::

    [devices.shoe]
    kind = "serial"             # or "usb" with vid, pid, serial_number
    url = "/dev/shoe-scanner"
    timeout_ms = 1000
"""

from __future__ import annotations

import logging

from drivers.board import BoardDriver, LinkOptions
from drivers.events import CardDrawn, EventSink, ShoeFault, ShoeFaultKind, ShoeLoaded
from drivers.interfaces import ShoeState
from drivers.timing import Scheduler
from firmware_bridge import Message

_LOG = logging.getLogger(__name__)


class BridgeShoe(BoardDriver):
    """A `ShoeScanner` on the shoe board.

    Args:
        name: The configured device name.
        link: How to reach the board (serial URL or USB transport).
        sink: Where events go.
        emulated: True when the board is an emulator (status then says EMULATED).
        scheduler: Clock for event times.
    """

    def __init__(self, name: str, link: LinkOptions, sink: EventSink, *,
                 emulated: bool = False, scheduler: Scheduler | None = None) -> None:
        super().__init__(name, "shoe", link, sink, emulated=emulated, scheduler=scheduler)
        self._reads: dict[int, tuple[str | None, int]] = {}
        self._cards_out = 0
        handlers = {
            "card_read": self._on_read, "card_unreadable": self._on_unreadable,
            "card_face_up": self._on_face_up, "card_out": self._on_out,
            "cut_card": self._on_cut_card, "shoe_empty": self._on_empty,
            "jam": self._on_jam, "lid": self._on_lid, "shoe_loaded": self._on_loaded,
        }
        for message, handler in handlers.items():
            self._board.handle(message, handler)

    def query_state(self) -> ShoeState:
        """Ask the board for `shoe_state`."""
        reply = self._board.request("get_shoe_state")
        return ShoeState(cards_out=reply.int("card_no"), lid_open=reply.flag("lid_open"),
                         jammed=reply.flag("jammed"), empty=reply.flag("empty"))

    # ------------------------------------------------------------ handlers (worker thread)

    def _on_read(self, message: Message) -> None:
        self._reads[message.int("card_no")] = (message.text("code"), message.int("quality"))

    def _on_unreadable(self, message: Message) -> None:
        card_no = message.int("card_no")
        self._reads[card_no] = (None, 0)
        self._fault(ShoeFaultKind.UNREADABLE, card_no, True, message.text("reason"))

    def _on_face_up(self, message: Message) -> None:
        card_no = message.int("card_no")
        self._reads[card_no] = (None, 0)
        self._fault(ShoeFaultKind.FACE_UP, card_no, True)

    def _on_out(self, message: Message) -> None:
        card_no = message.int("card_no")
        read = self._reads.pop(card_no, None)
        if read is None:
            # The board must report the read before the exit; a missing one is a fault
            # of the board, and the card is reported as unreadable rather than lost.
            self._fault(ShoeFaultKind.UNREADABLE, card_no, True, "no read before card_out")
            read = (None, 0)
        self._cards_out = card_no
        code, quality = read
        self._sink(CardDrawn(self._name, card_no, code, quality, self._clock.now()))

    def _on_cut_card(self, message: Message) -> None:
        self._fault(ShoeFaultKind.CUT_CARD, message.int("card_no"), True)

    def _on_empty(self, message: Message) -> None:
        self._fault(ShoeFaultKind.SHOE_EMPTY, message.int("card_no"), True)

    def _on_jam(self, message: Message) -> None:
        self._fault(ShoeFaultKind.JAM, self._cards_out, message.flag("active"))

    def _on_lid(self, message: Message) -> None:
        self._fault(ShoeFaultKind.LID_OPEN, self._cards_out, message.flag("open"))

    def _on_loaded(self, message: Message) -> None:
        self._reads.clear()
        self._cards_out = 0
        _LOG.info("%s: shoe loaded", self._name)
        self._sink(ShoeLoaded(self._name, self._clock.now()))

    def _fault(self, kind: ShoeFaultKind, count: int, active: bool, detail: str = "") -> None:
        _LOG.info("%s: %s (active=%s) at card %d", self._name, kind, active, count)
        self._sink(ShoeFault(self._name, kind, count, active, self._clock.now(), detail))

