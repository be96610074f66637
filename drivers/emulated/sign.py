"""The progressive sign, byte for byte: it records what it shows over time and can go silent.

Speaks the `sign` board of `drivers/catalogue.toml` behind a real pty. It applies a display
command only when its `update` number is newer than the last one applied, as the real
sign must; in failsafe (the host went quiet) it alternates "LINK DOWN" with its amount.

Stimulus:
    `go_silent()` (stops answering: nothing it would send reaches the host),
    `answer_again()`, `power_cycle()` (forgets what it showed and its update number), plus
    every fault stimulus of `BoardEmulator`.

Observation:
    `display()` (what a player sees now: `(mode, amount_cents, text)`), `log` (every
    `(time, mode, amount_cents, text)` shown, in order), `last_update`, `brightness`.
"""

from __future__ import annotations

import threading
from typing import Any

from drivers.emulated.board import BoardEmulator
from firmware_bridge.codec import Message

FAILSAFE_TEXT = "LINK DOWN"


class SignEmulator(BoardEmulator):
    """The Blazing 7's sign.

    Args:
        **options: Passed to `BoardEmulator` (name, link_dir, identity, timing, ...).
    """

    def __init__(self, **options: Any) -> None:
        super().__init__("sign", **options)
        self._lock = threading.Lock()
        self.last_update = 0
        self.mode = "blank"
        self.amount = 0
        self.text = ""
        self.seat = 0
        self.brightness = 100
        self.log: list[tuple[float, str, int, str]] = []
        for name in ("show_amount", "show_win", "show_fault", "set_brightness",
                     "get_sign_state"):
            self.endpoint.on(name, getattr(self, "_on_" + name))
        self.endpoint.on_failsafe(self._on_failsafe)

    # ------------------------------------------------------------ stimulus / observation

    def go_silent(self) -> None:
        """Stop answering (the board runs on, but nothing reaches the host)."""
        self.faults.go_silent()

    def answer_again(self) -> None:
        """Answer again."""
        self.faults.resume()

    def power_cycle(self) -> None:
        """Forget the display and the update number (a power cut on the sign)."""
        with self._lock:
            self.last_update = 0
            self._show("blank", 0, "")

    def display(self) -> tuple[str, int, str]:
        """What the sign shows now: mode, amount in cents, text."""
        failsafe = self.endpoint.failsafe  # before our lock: handlers take it inside the endpoint's
        with self._lock:
            if failsafe and self.mode != "blank":
                return ("fault", self.amount, FAILSAFE_TEXT)
            return (self.mode, self.amount, self.text)

    # ------------------------------------------------------------ handlers (runner thread)

    def _fresh(self, message: Message) -> bool:
        update = message.int("update")
        if update <= self.last_update:
            return False
        self.last_update = update
        return True

    def _on_show_amount(self, message: Message) -> None:
        with self._lock:
            if self._fresh(message):
                mode = "fault" if self.text else "amount"
                self._show(mode, message.int("amount_cents"), self.text)

    def _on_show_win(self, message: Message) -> None:
        with self._lock:
            if self._fresh(message):
                self.seat = message.int("seat")
                self._show("win", message.int("amount_cents"), f"WIN SEAT {self.seat}")

    def _on_show_fault(self, message: Message) -> None:
        with self._lock:
            if self._fresh(message):
                text = message.text("text")
                self._show("fault" if text else "amount", self.amount, text)

    def _on_set_brightness(self, message: Message) -> None:
        self.brightness = message.int("level")

    def _on_get_sign_state(self, message: Message) -> None:
        with self._lock:
            fields: dict[str, int | bool | str] = {
                "update": self.last_update, "mode": self.mode, "amount_cents": self.amount,
                "fault_text": self.text if self.mode == "fault" else "",
                "brightness": self.brightness, "failsafe": self.endpoint.failsafe,
            }
        self.endpoint.send("sign_state", **fields)

    def _on_failsafe(self, active: bool) -> None:
        self.log.append((self.clock(), "failsafe" if active else "normal", self.amount,
                         FAILSAFE_TEXT if active else ""))

    def _show(self, mode: str, amount: int, text: str) -> None:
        self.mode, self.amount, self.text = mode, amount, text
        self.log.append((self.clock(), mode, amount, text))
