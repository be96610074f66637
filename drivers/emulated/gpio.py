"""An emulated `RPi.GPIO` module: the API surface the GPIO driver uses, on simulated pins.

Pass an `EmulatedGpio` wherever the driver takes the `RPi.GPIO` module. It refuses what the
real library refuses (no `setmode`, output to an input pin, a pin set up twice as different
directions), records every call, and keeps a timestamped history of every pin level.

Stimulus:
    `drive(pin, level)` sets an input's electrical level and fires its edge callbacks on the
    calling thread (the real library fires them on its own thread); `bounce(pin, levels)`
    drives a burst of levels, as a contact bounces.

Observation:
    `calls` (every API call with its arguments), `level(pin)`, `history(pin)` (every
    `(time, level)` an output was set to), `is_output(pin)`, `callbacks(pin)`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, Final

from drivers.timing import MonotonicScheduler, Scheduler


class EmulatedGpio:
    """A software stand-in for the `RPi.GPIO` module object (BCM numbering only)."""

    BCM: Final = 11
    BOARD: Final = 10
    OUT: Final = 0
    IN: Final = 1
    LOW: Final = 0
    HIGH: Final = 1
    PUD_OFF: Final = 20
    PUD_DOWN: Final = 21
    PUD_UP: Final = 22
    RISING: Final = 31
    FALLING: Final = 32
    BOTH: Final = 33

    def __init__(self, scheduler: Scheduler | None = None) -> None:
        self._scheduler = scheduler or MonotonicScheduler()
        self._lock = threading.RLock()
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self._mode: int | None = None
        self._direction: dict[int, int] = {}
        self._level: dict[int, int] = {}
        self._history: dict[int, list[tuple[float, int]]] = {}
        self._callbacks: dict[int, list[Callable[[int], None]]] = {}

    # ------------------------------------------------------------ the RPi.GPIO surface

    def setmode(self, mode: int) -> None:
        """Choose pin numbering; only BCM is emulated."""
        self._record("setmode", mode)
        if mode != self.BCM:
            raise ValueError("EmulatedGpio emulates BCM numbering only")
        self._mode = mode

    def setwarnings(self, flag: bool) -> None:
        """Accepted and recorded; warnings are not emulated."""
        self._record("setwarnings", flag)

    def setup(self, channel: int, direction: int, pull_up_down: int = PUD_OFF,
              initial: int = -1) -> None:
        """Configure a pin as input (with its pull) or output (with its initial level)."""
        self._record("setup", channel, direction, pull_up_down, initial)
        self._require_mode()
        with self._lock:
            self._direction[channel] = direction
            if direction == self.OUT:
                self._set_output(channel, self.LOW if initial == -1 else initial)
            else:
                self._level.setdefault(channel, self.LOW if pull_up_down == self.PUD_DOWN
                                       else self.HIGH)

    def output(self, channel: int, value: int | bool) -> None:
        """Set an output pin's level."""
        self._record("output", channel, int(value))
        with self._lock:
            if self._direction.get(channel) != self.OUT:
                raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
            self._set_output(channel, int(bool(value)))

    def input(self, channel: int) -> int:
        """Read a pin's level."""
        self._record("input", channel)
        with self._lock:
            if channel not in self._direction:
                raise RuntimeError("You must setup() the GPIO channel first")
            return self._level[channel]

    def add_event_detect(self, channel: int, edge: int,
                         callback: Callable[[int], None] | None = None,
                         bouncetime: int = 0) -> None:
        """Call `callback(channel)` on every edge of an input pin."""
        self._record("add_event_detect", channel, edge, bouncetime)
        with self._lock:
            if self._direction.get(channel) != self.IN:
                raise RuntimeError("You must setup() the GPIO channel as an input first")
            if channel in self._callbacks:
                raise RuntimeError("Conflicting edge detection already enabled for this GPIO")
            self._callbacks[channel] = [callback] if callback else []

    def remove_event_detect(self, channel: int) -> None:
        """Stop edge callbacks on a pin."""
        self._record("remove_event_detect", channel)
        with self._lock:
            self._callbacks.pop(channel, None)

    def cleanup(self, channel: int | Iterable[int] | None = None) -> None:
        """Return pins (all when `channel` is None) to unconfigured inputs."""
        self._record("cleanup", channel)
        with self._lock:
            pins = (list(self._direction) if channel is None
                    else [channel] if isinstance(channel, int) else list(channel))
            for pin in pins:
                self._direction.pop(pin, None)
                self._callbacks.pop(pin, None)

    def close(self) -> None:
        """Nothing to release (an emulator's life cycle, like the board emulators')."""

    # ------------------------------------------------------------ stimulus

    def drive(self, pin: int, level: int | bool) -> None:
        """Drive an input pin's electrical level; fire its callbacks on a change."""
        with self._lock:
            if self._direction.get(pin) == self.OUT:
                raise RuntimeError(f"pin {pin} is an output; it cannot be driven from outside")
            changed = self._level.get(pin) != int(bool(level))
            self._level[pin] = int(bool(level))
            callbacks = list(self._callbacks.get(pin, ())) if changed else []
        for callback in callbacks:
            callback(pin)

    def bounce(self, pin: int, levels: Iterable[int | bool]) -> None:
        """Drive a burst of levels in quick succession (a bouncing contact)."""
        for level in levels:
            self.drive(pin, level)

    # ------------------------------------------------------------ observation

    def level(self, pin: int) -> int:
        """The pin's current level (without recording a call)."""
        with self._lock:
            return self._level.get(pin, self.LOW)

    def history(self, pin: int) -> list[tuple[float, int]]:
        """Every `(time, level)` an output pin was set to, oldest first."""
        with self._lock:
            return list(self._history.get(pin, ()))

    def is_output(self, pin: int) -> bool:
        """True when the pin is set up as an output."""
        with self._lock:
            return self._direction.get(pin) == self.OUT

    def is_setup(self, pin: int) -> bool:
        """True when the pin is set up (and not cleaned up)."""
        with self._lock:
            return pin in self._direction

    def callbacks(self, pin: int) -> int:
        """How many edge callbacks the pin has."""
        with self._lock:
            return len(self._callbacks.get(pin, ()))

    def names(self) -> list[str]:
        """Names of the calls made, in order."""
        return [name for name, _ in self.calls]

    # ------------------------------------------------------------ internals

    def _record(self, name: str, *args: Any) -> None:
        with self._lock:
            self.calls.append((name, args))

    def _require_mode(self) -> None:
        if self._mode is None:
            raise RuntimeError("Please set pin numbering mode using GPIO.setmode()")

    def _set_output(self, pin: int, level: int) -> None:
        self._level[pin] = level
        self._history.setdefault(pin, []).append((self._scheduler.now(), level))
