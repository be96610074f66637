"""What the controller may ask of each device: small `typing.Protocol` interfaces.

`Device` (`drivers.device`) and `CameraSource` (defined beside the camera sources, in
`drivers.camera`) are re-exported here. Every real driver, every emulated device and every
in-process fake satisfies one of these, and one contract suite per interface
(`tests/drivers/`) runs against all of them. The controller depends on this module (and
`drivers.events`), never on a concrete driver; only its composition root calls
`drivers.registry`.

Life cycle, common to all: build (validates, refuses pin conflicts, opens nothing) ->
`start()` (opens the port, checks the handshake, starts reporting to the sink) -> commands
and events -> `close()` (idempotent; outputs to their safe state first).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from drivers.camera import CameraSource
from drivers.device import Device
from drivers.errors import (
    DeviceClosedError,
    DeviceConfigError,
    DeviceUnavailableError,
    DriverError,
    HandshakeError,
)
from drivers.events import (
    BetSensorChanged,
    BoardNumbering,
    ButtonPressed,
    CardDrawn,
    DeviceFault,
    DriverEvent,
    EventSink,
    KeySwitchTurned,
    LinkDown,
    LinkUp,
    ShoeFault,
    ShoeFaultKind,
    ShoeLoaded,
)

__all__ = [
    "BetSensorChanged",
    "BoardNumbering",
    "ButtonPressed",
    "CameraSource",
    "CardDrawn",
    "DeviceConfigError",
    "Device",
    "DeviceClosedError",
    "DeviceFault",
    "DeviceUnavailableError",
    "DriverError",
    "DriverEvent",
    "EventSink",
    "HandshakeError",
    "JackpotSign",
    "KeySwitchTurned",
    "LampMode",
    "LayoutInputs",
    "LayoutLamps",
    "LinkDown",
    "LinkUp",
    "ShoeFault",
    "ShoeFaultKind",
    "ShoeLoaded",
    "ShoeScanner",
    "ShoeState",
    "WheelFeed",
]


class LampMode(StrEnum):
    """What a lamp shows (the values match the controller's lamp effects)."""

    OFF = "off"
    ON = "on"
    FLASH = "flash"


@dataclass(frozen=True, slots=True)
class ShoeState:
    """The shoe as it reports itself now.

    Attributes:
        cards_out: Cards out since the shoe was loaded.
        lid_open: The lid is open.
        jammed: A card is stuck in the exit.
        empty: No card is left.
    """

    cards_out: int
    lid_open: bool
    jammed: bool
    empty: bool


@runtime_checkable
class ShoeScanner(Device, Protocol):
    """The dealing shoe's card scanner.

    It reports `CardDrawn` for every card that leaves the shoe (exactly once, in number
    order, also across a lost and recovered link), a `ShoeFault` just before an unreadable
    or face-up card's `CardDrawn` and for the cut card, an empty shoe, a jam or the lid,
    `ShoeLoaded` when a new shoe starts, and `LinkUp`/`LinkDown`.
    """

    def query_state(self) -> ShoeState:
        """Ask the shoe how it is now (used to reconcile after a reconnect).

        Raises:
            DriverError: The shoe did not answer in time or the link is down.
        """

    def resume(self, numbering: BoardNumbering, last: int) -> None:
        """Before `start`: go on numbering the cards as the journal left off.

        `numbering` is the one the last recorded card (or shoe, or board restart) carried,
        `last` the shoe number of the last card recorded. A shoe whose board still runs the
        same boot maps its card numbers exactly as before; any other shoe ignores this.
        """

    def handled(self, record: DriverEvent) -> None:
        """Say that `record` and every record this shoe reported before it are durably handled.

        `record` is a `CardDrawn`, `ShoeFault` or `ShoeLoaded` this shoe reported. A shoe
        built to acknowledge only handled records (the controller's, which calls this once
        the journal holds the record) tells its board only then, so the board repeats to the
        next run whatever was never handled; any other shoe, and any record it did not
        report, ignores this. Never raises; safe from any thread.
        """


@runtime_checkable
class LayoutLamps(Device, Protocol):
    """The lamps of the table layout: betting spots, accepted wagers, status lamps."""

    @property
    def lamp_names(self) -> tuple[str, ...]:
        """Every configured lamp."""

    def set_lamp(self, lamp: str, state: LampMode) -> None:
        """Set one lamp.

        Raises:
            DriverError: The lamp is not configured, or the device is closed or down.
        """

    def all_safe(self) -> None:
        """Every lamp off: the failsafe pattern the halt path uses."""


@runtime_checkable
class LayoutInputs(Device, Protocol):
    """Bet sensors, dealer buttons and supervisor key switches on the layout.

    Changes are reported as `BetSensorChanged`, `ButtonPressed` and `KeySwitchTurned`.
    """

    @property
    def input_names(self) -> tuple[str, ...]:
        """Every configured sensor, button and key switch."""

    def input_states(self) -> Mapping[str, bool]:
        """The last known (debounced) state of every input: True = occupied/pressed/on."""


@runtime_checkable
class JackpotSign(Device, Protocol):
    """The progressive jackpot sign.

    Commands are absolute and idempotent (a repeated command never doubles anything). When
    the sign stops answering, `LinkDown` is reported within its configured timeout so the
    controller can refuse progressive wagers (R15); on reconnect the driver re-sends what
    the sign should show before reporting `LinkUp`.
    """

    def show_amount(self, cents: int) -> None:
        """Show the progressive amount."""

    def show_win(self, seat: int, cents: int, hold_s: int = 20) -> None:
        """Show `WIN`, the seat and the amount for `hold_s` seconds, then the amount (R13)."""

    def show_fault(self, text: str) -> None:
        """Alternate `text` (<= 16 printable ASCII chars) with the amount; "" stops it (R15)."""


@runtime_checkable
class WheelFeed(Device, Protocol):
    """An automated roulette wheel's result feed (`drivers/WHEEL.md`).

    It reports `WheelStatus` on every change of the wheel's state, game number or warning
    flags (never a repeat), exactly one `WheelResult` per game that has a winning number,
    `WheelVoid` for a game that ends without one, `WheelWarning` once per warning per game,
    `DeviceFault` when the wheel contradicts itself, and `LinkUp`/`LinkDown`. It sends the
    wheel one command, `launch()`, and only when the wheel waits for its host to start each
    game (`launch = "host"`).
    """

    def launch(self) -> None:
        """Start the game the wheel holds in place your bets (a user-start wheel only)."""

    @property
    def bytes_handled(self) -> int:
        """Bytes read from the wheel whose facts have all been reported."""

    def wait_handled(self, count: int, timeout: float) -> bool:
        """Wait until `bytes_handled` reaches `count`; False when `timeout` seconds passed."""
