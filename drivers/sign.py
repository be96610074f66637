"""The Blazing 7's progressive sign over firmware_bridge.

Every display command carries an update number one higher than the last; the sign applies
only newer numbers, so a repeated or stale command never changes what it shows. The driver
remembers what the sign should show; on every (re)connect it reads the sign's state, carries
on from its update number, and shows the amount (and any fault text) again before reporting
`LinkUp` (R15: reconcile on reconnect). One lock covers remembering what to show, taking its
update number and sending it, for the controller's commands and the reconciliation alike: a
command carrying an older amount can never get a higher update number than a newer one.
When the sign stops answering, the link layer declares it down after `timeout_ms` and a
`LinkDown` is reported, so the controller can refuse progressive wagers; the sign meanwhile
alternates "LINK DOWN" with its amount.

Config::

    [devices.sign]
    kind = "serial"
    url = "/dev/jackpot-sign"
    timeout_ms = 750
"""

from __future__ import annotations

import logging
import threading
from typing import Final

from drivers.board import BoardConnection, BoardDriver, LinkOptions
from drivers.config import SignConfig
from drivers.errors import DriverError
from drivers.events import EventSink
from drivers.timing import Scheduler

_LOG = logging.getLogger(__name__)
MAX_CENTS: Final = 0xFFFF_FFFF
MAX_TEXT: Final = 16


class BridgeSign(BoardDriver):
    """A `JackpotSign` on the sign board.

    Args:
        config: The `[devices.sign]` record.
        link: How to reach the sign.
        sink: Where events go.
        scheduler: Clock for event times.
    """

    def __init__(self, config: SignConfig, link: LinkOptions, sink: EventSink, *,
                 scheduler: Scheduler | None = None) -> None:
        super().__init__(config.name, "sign", link, sink, emulated=config.kind != "serial",
                         scheduler=scheduler)
        self._lock = threading.Lock()
        self._update = 0
        self._amount: int | None = None
        self._fault_text = ""
        self._board.on_connected = self._reconcile

    def show_amount(self, cents: int) -> None:
        """Show the progressive amount (remembered and shown again after a reconnect)."""
        check_amount(self.name, cents)
        with self._lock:
            self._amount = cents
            self._board.send("show_amount", update=self._next_update(), amount_cents=cents)

    def show_win(self, seat: int, cents: int, hold_s: int = 20) -> None:
        """Show `WIN`, the seat and the amount for `hold_s` seconds, then the amount."""
        check_win(self.name, seat, cents, hold_s)
        with self._lock:
            self._board.send("show_win", update=self._next_update(), seat=seat,
                             amount_cents=cents, hold_s=hold_s)

    def show_fault(self, text: str) -> None:
        """Alternate `text` with the amount ("" stops it)."""
        check_fault_text(self.name, text)
        with self._lock:
            self._fault_text = text
            self._board.send("show_fault", update=self._next_update(), text=text)

    def _next_update(self) -> int:
        """The next update number (the caller holds `_lock` until the command is sent)."""
        self._update += 1
        return self._update

    def _reconcile(self, board: BoardConnection) -> None:
        state = board.request("get_sign_state")  # outside the lock: it may take a while
        _LOG.info("%s: sign at update %d, showing %s", self.name, state.int("update"),
                  state.text("mode"))
        with self._lock:  # what to show again is decided on what is remembered now
            self._update = max(self._update, state.int("update"))
            amount, fault = self._amount, self._fault_text
            if amount is not None and (state.text("mode") == "blank"
                                       or state.int("amount_cents") != amount):
                board.send("show_amount", update=self._next_update(), amount_cents=amount)
            if fault != state.text("fault_text"):
                board.send("show_fault", update=self._next_update(), text=fault)


# What any `JackpotSign` accepts (the sign board's limits); the in-process fake checks the same.
def check_amount(device: str, cents: int) -> None:
    """Refuse an amount the sign cannot show.

    Raises:
        DriverError: Naming `device` and the amount.
    """
    if not 0 <= cents <= MAX_CENTS:
        raise DriverError(device, f"amount: {cents} cents is out of range 0..{MAX_CENTS}")


def check_win(device: str, seat: int, cents: int, hold_s: int) -> None:
    """Refuse a win the sign cannot show (seat 1-9, hold 1-30 s, amount as `check_amount`).

    Raises:
        DriverError: Naming `device` and the value at fault.
    """
    check_amount(device, cents)
    if not 1 <= seat <= 9:
        raise DriverError(device, f"seat: {seat} is out of range 1..9")
    if not 1 <= hold_s <= 30:
        raise DriverError(device, f"hold_s: {hold_s} is out of range 1..30")


def check_fault_text(device: str, text: str) -> None:
    """Refuse a fault text the sign cannot show (at most 16 printable ASCII characters).

    Raises:
        DriverError: Naming `device` and the text.
    """
    if len(text) > MAX_TEXT or not text.isascii() or not text.isprintable():
        raise DriverError(device, f"text: {text!r} is not at most {MAX_TEXT} "
                          "printable ASCII characters")
