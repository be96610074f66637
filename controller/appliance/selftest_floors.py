"""Who works the table during the self-test: the floorperson at a terminal, or the emulators.

`ConsoleFloor` prints each instruction and reads y/n answers with a timeout; `AutoFloor`
(`--auto`, emulated rigs only) performs each action on the emulators and judges lamps and the
sign by what the emulators received over their links.
"""

from __future__ import annotations

import io
import select
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol, TextIO

from controller.appliance.selftest import Answer, FloorAction
from drivers.config import KEY_NORMAL, LayoutConfig
from drivers.errors import DriverError
from drivers.interfaces import LampMode

# ---------------------------------------------------------------- who answers


_YES: Final = frozenset({"y", "yes"})
_NO: Final = frozenset({"n", "no"})


class ConsoleFloor:
    """The floorperson at a terminal: instructions printed, y/n answers read with a timeout.

    Args:
        stdin: Where answers come from (a terminal, or a pipe).
        stdout: Where instructions and results go.
        timeout_s: How long to wait for each answer before it counts as no answer.
    """

    def __init__(self, stdin: TextIO, stdout: TextIO, timeout_s: float) -> None:
        self._in = stdin
        self._out = stdout
        self._timeout = timeout_s

    def say(self, text: str) -> None:
        """Print one line."""
        self._out.write(text + "\n")
        self._out.flush()

    def act(self, action: FloorAction, name: str) -> None:
        """Ask the floorperson to do something to an input (the driver's event answers)."""
        self.say(f">>> {action} {name!r} (within {self._timeout:g} s)")

    def lamp_lit(self, lamp: str) -> Answer:
        """Ask about one lamp."""
        return self._ask(f"??? Is lamp {lamp!r} lit, and no other? [y/n]")

    def sign_shows(self, text: str, cents: int) -> Answer:
        """Ask about the sign."""
        return self._ask(f"??? Does the progressive sign show {text}? [y/n]")

    def _ask(self, question: str) -> Answer:
        self.say(question)
        deadline = time.monotonic() + self._timeout
        while (left := deadline - time.monotonic()) > 0:
            line = _read_line(self._in, left)
            if line is None:
                return Answer.NO_ANSWER
            answer = line.strip().lower()
            if answer in _YES:
                return Answer.YES
            if answer in _NO:
                return Answer.NO
            self.say("    please answer y or n")
        return Answer.NO_ANSWER


def _read_line(stream: TextIO, timeout_s: float) -> str | None:
    """One line within the timeout; None on timeout or end of input."""
    try:
        ready, _, _ = select.select([stream], [], [], timeout_s)
    except (OSError, ValueError, io.UnsupportedOperation):
        ready = [stream]  # not selectable (a test's StringIO): read what is there
    if not ready:
        return None
    line = stream.readline()
    return line if line else None


@dataclass(frozen=True, slots=True)
class AutoFloor:
    """An emulated rig's stand-in for the floorperson (`--auto`).

    It performs each action on the emulator instead of asking, and judges lamps and the
    sign by what the emulators received over their links.

    Attributes:
        stimulate: Performs an action on the layout emulator.
        lamp_state: What the layout emulator shows for a lamp (None: unknown lamp).
        sign_amount: The amount the sign emulator shows (None: nothing shown).
        settle_s: How long to wait for a command to reach the emulator before judging.
    """

    stimulate: Callable[[FloorAction, str], None]
    lamp_state: Callable[[str], LampMode | None]
    sign_amount: Callable[[], int | None]
    settle_s: float = 2.0

    def act(self, action: FloorAction, name: str) -> None:
        """Do the action on the emulator."""
        self.stimulate(action, name)

    def lamp_lit(self, lamp: str) -> Answer:
        """YES once the emulator shows the lamp on (within the settle time)."""
        return self._settle(lambda: self.lamp_state(lamp) is LampMode.ON)

    def sign_shows(self, text: str, cents: int) -> Answer:
        """YES once the sign emulator shows exactly this amount."""
        return self._settle(lambda: self.sign_amount() == cents)

    def _settle(self, seen: Callable[[], bool]) -> Answer:
        deadline = time.monotonic() + self.settle_s
        while not seen():
            if time.monotonic() >= deadline:
                return Answer.NO
            time.sleep(0.02)
        return Answer.YES


# ---------------------------------------------------------------- emulated rigs (--auto)


class LayoutBoardTwin(Protocol):
    """What `--auto` uses of the layout board emulator (board channel numbers)."""

    def lamp(self, lamp_id: int) -> str:
        """The lamp's mode: `off`, `on`, `blink_slow`, `blink_fast`."""

    def place_chip(self, spot: int) -> None:
        """A chip lands on a bet spot."""

    def remove_chip(self, spot: int) -> None:
        """The chip is taken off."""

    def click(self, button: int) -> None:
        """A button is pressed and released."""

    def turn_key(self, position: str) -> None:
        """The key switch is turned to a position (`normal` included)."""


class SignTwin(Protocol):
    """What `--auto` uses of the sign emulator."""

    def display(self) -> tuple[str, int, str]:
        """What the sign shows: mode, amount in cents, text."""


class GpioTwin(Protocol):
    """What `--auto` uses of the emulated RPi.GPIO module (BCM pin numbers)."""

    def drive(self, pin: int, level: int | bool) -> None:
        """Drive an input pin's level."""

    def level(self, pin: int) -> int:
        """A pin's current level."""


def input_kinds(layout: LayoutConfig) -> dict[str, str]:
    """Each input's kind (`sensor`, `button`, `key switch`), by name."""
    kinds = dict.fromkeys(layout.bet_sensors, "sensor")
    kinds.update(dict.fromkeys(layout.buttons, "button"))
    kinds.update(dict.fromkeys(layout.key_switches, "key switch"))
    return kinds


def board_floor(layout: LayoutConfig, board: LayoutBoardTwin | None,
                sign: SignTwin | None) -> AutoFloor:
    """The `--auto` floor of a rig with byte-level layout and sign emulators."""

    def stimulate(action: FloorAction, name: str) -> None:
        if board is None:
            raise DriverError(layout.name, "no layout emulator to stimulate")
        if action is FloorAction.PLACE_CHIP:
            board.place_chip(layout.bet_sensors[name])
        elif action is FloorAction.REMOVE_CHIP:
            board.remove_chip(layout.bet_sensors[name])
        elif action is FloorAction.PRESS:
            board.click(layout.buttons[name])
        else:
            board.turn_key(name if action is FloorAction.TURN_KEY else KEY_NORMAL)

    def lamp_state(lamp: str) -> LampMode | None:
        if board is None or lamp not in layout.lamps:
            return None
        mode = board.lamp(layout.lamps[lamp])
        return LampMode.ON if mode == "on" else LampMode.OFF

    return AutoFloor(stimulate, lamp_state, _sign_reader(sign))


def gpio_floor(layout: LayoutConfig, gpio: GpioTwin, sign: SignTwin | None) -> AutoFloor:
    """The `--auto` floor of a rig whose layout is on (emulated) GPIO pins."""
    active = 0 if layout.pull == "up" else 1  # pulled-up inputs are active low
    hold_s = 3 * layout.debounce_ms / 1000 + 0.02  # long enough to pass the debounce

    def stimulate(action: FloorAction, name: str) -> None:
        pin = layout.inputs()[name]
        if action in (FloorAction.PLACE_CHIP, FloorAction.TURN_KEY, FloorAction.PRESS):
            gpio.drive(pin, active)
        if action is FloorAction.PRESS:
            time.sleep(hold_s)
        if action in (FloorAction.REMOVE_CHIP, FloorAction.TURN_KEY_BACK, FloorAction.PRESS):
            gpio.drive(pin, 1 - active)

    def lamp_state(lamp: str) -> LampMode | None:
        if lamp not in layout.lamps:
            return None
        return LampMode.ON if gpio.level(layout.lamps[lamp]) else LampMode.OFF

    return AutoFloor(stimulate, lamp_state, _sign_reader(sign))


def _sign_reader(sign: SignTwin | None) -> Callable[[], int | None]:
    def sign_amount() -> int | None:
        if sign is None:
            return None
        mode, cents, _text = sign.display()
        return cents if mode == "amount" else None
    return sign_amount


