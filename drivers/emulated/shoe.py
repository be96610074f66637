"""The shoe's card-scanner MCU, byte for byte: a shoe of cards the dealer pulls one at a time.

The emulator speaks the `shoe` board of `drivers/catalogue.toml` behind a real pty (or an
emulated USB device), so the real shoe driver, firmware_bridge and pyserial run unchanged.
For each card the dealer pulls it reports what a real scanner does: `card_read` (or
`card_unreadable` / `card_face_up`), then `card_out` with the same card number; the cut
card gives `cut_card`, the last card `shoe_empty`.

Stimulus:
    `load(contents)` (a new shoe: `ShoeContents.shuffled(plan)` or `.scripted(codes)`;
    reports `shoe_loaded`), `draw()` (the dealer pulls the next card), `unreadable_next()`,
    `face_up_next()`, `quality_next(q)`, `jam()` / `clear_jam()`, `open_lid()` /
    `close_lid()`, `restart()` (a power cut mid-shoe), plus every fault stimulus of
    `BoardEmulator` (corrupt, drop, duplicate, delay, garbage, silence, unplug and replug).

Observation:
    `cards_out`, `drawn` (every `(card_no, code or None)` pulled), `contents` (what is
    left), `wait_for_room()` (until the board can queue more events), `stats()`.
"""

from __future__ import annotations

import threading
from typing import Any, Final

from drivers.emulated.board import BoardEmulator
from drivers.emulated.shoe_model import CUT_CARD, ShoeContents, ShoePlan
from firmware_bridge.codec import Message

EVENT_ROOM: Final = 48
"""Unacknowledged events the emulated board keeps before `wait_for_room` holds the dealer."""


class ShoeEmulator(BoardEmulator):
    """The shoe board, with a shoe of cards in it.

    Args:
        contents: The first shoe (a shuffled 6-deck shoe when omitted).
        **options: Passed to `BoardEmulator` (name, link_dir, usb, identity, timing, ...).
    """

    def __init__(self, contents: ShoeContents | None = None, **options: Any) -> None:
        super().__init__("shoe", **options)
        self.contents = contents or ShoeContents.shuffled(ShoePlan())
        self.cards_out = 0
        self.drawn: list[tuple[int, str | None]] = []
        self._lock = threading.Lock()
        self._next_read: str | None = None
        self._next_quality = 100
        self._lid_open = False
        self._jammed = False
        self.endpoint.on("get_shoe_state", self._answer_state)

    # ------------------------------------------------------------ stimulus

    def load(self, contents: ShoeContents | None = None) -> None:
        """Load a new shoe (the same plan reshuffled when omitted) and report `shoe_loaded`."""
        with self._lock:
            if contents is not None:
                self.contents = contents
            self.cards_out = 0
            self._next_read = None
            self.endpoint.emit("shoe_loaded")
        self.send_now()

    def draw(self) -> str | None:
        """The dealer pulls the next card.

        Returns:
            The card's code (also for an unreadable or face-up card), `CUT_CARD`, or None
            when the shoe is empty.
        """
        with self._lock:
            item = self.contents.take()
            if item is None:
                return None
            if item == CUT_CARD:
                self.endpoint.emit("cut_card", card_no=self.cards_out)
            else:
                self._report_card(item)
            if self.contents.peek() is None:
                self.endpoint.emit("shoe_empty", card_no=self.cards_out)
        self.send_now()
        return item

    def unreadable_next(self) -> None:
        """The read head will fail to read the next card."""
        self._next_read = "unreadable"

    def face_up_next(self) -> None:
        """The next card is face up in the shoe."""
        self._next_read = "face_up"

    def quality_next(self, quality: int) -> None:
        """The next card is read with this quality (0-100)."""
        self._next_quality = quality

    def jam(self) -> None:
        """A card sticks in the exit."""
        self._set_condition("jam", active=True)

    def clear_jam(self) -> None:
        """The stuck card is freed."""
        self._set_condition("jam", active=False)

    def open_lid(self) -> None:
        """The lid is opened."""
        self._set_condition("lid", open=True)

    def close_lid(self) -> None:
        """The lid is closed."""
        self._set_condition("lid", open=False)

    def restart(self) -> None:
        """The scanner loses power mid-shoe; the cards stay in the shoe.

        The board forgets how many left (its card numbers start at 1 again) and its
        unacknowledged events.
        """
        with self._lock:
            self.cards_out = 0
            self._next_read = None
        super().restart()

    def wait_for_room(self, timeout: float = 10.0) -> bool:
        """Wait until the board has room for more events (the host is keeping up)."""
        if self.endpoint.stats().events_pending < EVENT_ROOM:
            return True
        return self.wait_until(lambda: self.endpoint.stats().events_pending < EVENT_ROOM,
                               timeout)

    def wait_until_acknowledged(self, timeout: float = 10.0) -> bool:
        """Wait until the host has acknowledged every event."""
        return self.wait_until(lambda: self.endpoint.stats().events_pending == 0, timeout)

    # ------------------------------------------------------------ internals

    def _report_card(self, code: str) -> None:
        self.cards_out += 1
        card_no, how = self.cards_out, self._next_read
        self._next_read = None
        if how == "unreadable":
            self.endpoint.emit("card_unreadable", card_no=card_no, reason="damaged")
        elif how == "face_up":
            self.endpoint.emit("card_face_up", card_no=card_no)
        else:
            self.endpoint.emit("card_read", card_no=card_no, code=code,
                               quality=self._next_quality)
        self._next_quality = 100
        self.drawn.append((card_no, code if how is None else None))
        self.endpoint.emit("card_out", card_no=card_no, tick_ms=self._tick_ms())

    def _set_condition(self, name: str, **field: bool) -> None:
        with self._lock:
            if name == "jam":
                self._jammed = field["active"]
            else:
                self._lid_open = field["open"]
            self.endpoint.emit(name, **field)
        self.send_now()

    def _answer_state(self, message: Message) -> None:
        # Runs on the runner thread inside the endpoint's lock: taking self._lock here
        # would invert the lock order of draw(), so read the (atomic) fields directly.
        self.endpoint.send("shoe_state", card_no=self.cards_out, lid_open=self._lid_open,
                           jammed=self._jammed, empty=self.contents.peek() is None,
                           unacked_events=min(255, self.endpoint.stats().events_pending))

