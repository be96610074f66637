"""The layout board, byte for byte: lamps that remember every change, inputs a test can drive.

Speaks the `layout` board of `drivers/catalogue.toml` behind a real pty, so the real layout
driver, firmware_bridge and pyserial run unchanged. The board debounces its inputs itself,
so a stimulus here is one clean, counted event.

Stimulus:
    `place_chip(spot)` / `remove_chip(spot)` (board spot ids), `press(button)` /
    `release(button)`, `turn_key("normal" | "supervisor" | "reset")`, plus every fault
    stimulus of `BoardEmulator`.

Observation:
    `lamp(lamp_id)` (current mode name), `lamp_log` (every `(time, lamp_id, mode)` set),
    `pattern` and `pattern_log` (every `(time, pattern)`, the failsafe `fault` included),
    `covered`, `pressed`, `position`.
"""

from __future__ import annotations

import threading
from typing import Any, Final

from drivers.emulated.board import BoardEmulator
from firmware_bridge.codec import Message

LAMPS: Final = 64
MODES: Final = ("off", "on", "blink_slow", "blink_fast")


class LayoutEmulator(BoardEmulator):
    """The layout board.

    Args:
        **options: Passed to `BoardEmulator` (name, link_dir, identity, timing, ...).
    """

    def __init__(self, **options: Any) -> None:
        super().__init__("layout", **options)
        self._lock = threading.Lock()
        self.modes = ["off"] * LAMPS
        self.lamp_log: list[tuple[float, int, str]] = []
        self.pattern = "fault"
        self.pattern_log: list[tuple[float, str]] = [(self.clock(), "fault")]
        self.covered: set[int] = set()
        self.pressed: set[int] = set()
        self.position = "normal"
        self.endpoint.on("set_lamp", self._on_set_lamp)
        self.endpoint.on("set_lamp_pattern", self._on_pattern)
        self.endpoint.on("get_lamp_state", self._on_get_lamps)
        self.endpoint.on("get_input_state", self._on_get_inputs)
        self.endpoint.on_failsafe(self._on_failsafe)

    # ------------------------------------------------------------ observation

    def lamp(self, lamp_id: int) -> str:
        """What the lamp's own mode is (`off`, `on`, `blink_slow`, `blink_fast`)."""
        with self._lock:
            return self.modes[lamp_id]

    def shown(self, lamp_id: int) -> str:
        """What the lamp shows now, patterns and failsafe included."""
        with self._lock:
            if self.pattern == "none":
                return self.modes[lamp_id]
            if self.pattern == "fault":
                return "blink_fast" if lamp_id == 0 else "off"
            return "off" if self.pattern == "all_off" else "chase"

    # ------------------------------------------------------------ stimulus

    def place_chip(self, spot: int) -> None:
        """A chip lands on bet spot `spot`."""
        self._sensor(spot, True)

    def remove_chip(self, spot: int) -> None:
        """The chip is taken off bet spot `spot`."""
        self._sensor(spot, False)

    def press(self, button: int) -> None:
        """A dealer presses button `button` (and holds it)."""
        self._button(button, True)

    def release(self, button: int) -> None:
        """The button is released."""
        self._button(button, False)

    def click(self, button: int) -> None:
        """Press and release."""
        self.press(button)
        self.release(button)

    def turn_key(self, position: str) -> None:
        """The supervisor turns the key to `normal`, `supervisor` or `reset`."""
        with self._lock:
            self.position = position
            self.endpoint.emit("key_switch", position=position, tick_ms=self._tick_ms())
        self.send_now()

    # ------------------------------------------------------------ internals

    def _sensor(self, spot: int, covered: bool) -> None:
        with self._lock:
            (self.covered.add if covered else self.covered.discard)(spot)
            self.endpoint.emit("bet_sensor", spot=spot, covered=covered, tick_ms=self._tick_ms())
        self.send_now()

    def _button(self, button: int, pressed: bool) -> None:
        with self._lock:
            (self.pressed.add if pressed else self.pressed.discard)(button)
            self.endpoint.emit("button", button=button, pressed=pressed, tick_ms=self._tick_ms())
        self.send_now()

    # Handlers run on the runner thread inside the endpoint's lock; they only touch the
    # lamp state (never `_lock` followed by endpoint calls), so no lock order inverts.
    def _on_set_lamp(self, message: Message) -> None:
        lamp, mode = message.int("lamp"), message.text("mode")
        self.modes[lamp] = mode
        self.lamp_log.append((self.clock(), lamp, mode))

    def _on_pattern(self, message: Message) -> None:
        self._set_pattern(message.text("pattern"))

    def _on_failsafe(self, active: bool) -> None:
        if active:
            self._set_pattern("fault")

    def _set_pattern(self, pattern: str) -> None:
        self.pattern = pattern
        self.pattern_log.append((self.clock(), pattern))

    def _on_get_lamps(self, message: Message) -> None:
        modes = bytes(MODES.index(mode) for mode in self.modes)
        self.endpoint.send("lamp_state", pattern=self.pattern, failsafe=self.endpoint.failsafe,
                           modes=modes)

    def _on_get_inputs(self, message: Message) -> None:
        covered = sum(1 << spot for spot in self.covered)
        pressed = sum(1 << button for button in self.pressed)
        self.endpoint.send("input_state", covered=covered, pressed=pressed,
                           position=self.position,
                           unacked_events=min(255, self.endpoint.stats().events_pending))
