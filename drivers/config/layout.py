"""`[devices.layout]`: lamps, bet sensors, buttons and key switches, on GPIO or a board."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from confkeys import Section
from drivers.config.boards import (
    DEFAULT_TIMEOUT_MS,
    BoardTrust,
    SerialPortConfig,
    read_serial_port,
    read_timeout,
    read_trust,
)

# BCM numbers of the 40-pin header's general-purpose pins; 0 and 1 are the HAT ID EEPROM.
GPIO_PINS: Final = range(2, 28)


def _numbers(section: Section, key: str, low: int, high: int) -> dict[str, int]:
    """A `{name = number}` table, each number in [low, high].

    Nested tables flatten to dotted names, so `seat3.turn = 17` (which TOML reads as
    `{seat3 = {turn = 17}}`) names the lamp `seat3.turn`.
    """
    table: Mapping[str, Any] = section.get(key, dict, {})
    result: dict[str, int] = {}
    for label, number in _flatten(table):
        if isinstance(number, bool) or not isinstance(number, int):
            raise section.error(f"{key}.{label}", f"expected an integer, got {number!r}")
        if not low <= number <= high:
            raise section.error(f"{key}.{label}", f"{number} is out of range {low}..{high}")
        result[label] = number
    return result


def _flatten(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for label, value in table.items():
        name = f"{prefix}{label}"
        items += _flatten(value, name + ".") if isinstance(value, Mapping) else [(name, value)]
    return items


@dataclass(frozen=True, slots=True)
class LayoutConfig:
    """`[devices.layout]`: lamps, bet sensors, buttons and key switches of the layout.

    With `kind = "gpio"` the numbers are BCM pin numbers; with `serial` they are the layout
    board's lamp (0-63), bet spot (0-31) and button (0-31) numbers. Names are the
    controller's (`seat1.bet`, `no_more_bets`, ...). Key switches are the positions of the
    supervisor key besides `normal`: on GPIO one input pin per position's contact; the
    layout board reports its own positions (`supervisor`, `reset`), so a `serial` layout
    takes no `key_switches` key.

    Attributes:
        name: Section name.
        kind: `gpio`, `serial`, `emulated` (a layout board behind a pseudo-terminal) or
            `emulated-gpio` (the GPIO driver on an emulated RPi.GPIO module).
        lamps: Lamp name to pin or channel.
        bet_sensors: Bet sensor name to pin or channel.
        buttons: Button name to pin or channel.
        key_switches: Key position name to pin (the board's are fixed).
        port: The layout board's serial port (`serial` only).
        timeout_ms: Silence after which the board's link is declared down.
        debounce_ms: Input debounce time (GPIO; the board debounces by itself).
        pull: `up` (inputs active low) or `down` (active high); GPIO only.
        lamps_active: `high` (a lamp is lit by a high output, as through a driver transistor)
            or `low` (lit by a low output, as on most relay boards); GPIO only.
        blink_hz: Blink rate of a blinking lamp (GPIO; the board blinks by itself).
        trust: The layout board's pairing key and accepted firmware (not for GPIO).
    """

    name: str
    kind: str
    lamps: Mapping[str, int]
    bet_sensors: Mapping[str, int] = field(default_factory=dict)
    buttons: Mapping[str, int] = field(default_factory=dict)
    key_switches: Mapping[str, int] = field(default_factory=dict)
    port: SerialPortConfig | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    debounce_ms: int = 20
    pull: str = "up"
    blink_hz: float = 2.0
    lamps_active: str = "high"
    trust: BoardTrust = field(default_factory=BoardTrust)

    def inputs(self) -> dict[str, int]:
        """Every input (sensors, buttons, key switches) by name."""
        return {**self.bet_sensors, **self.buttons, **self.key_switches}


_LAYOUT_TABLES: Final = ("lamps", "bet_sensors", "buttons", "key_switches")


_BOARD_CHANNELS: Final = {"lamps": 63, "bet_sensors": 31, "buttons": 31}


KEY_NORMAL: Final = "normal"
"""The key switch position with no contact closed (every other position has one)."""


BOARD_KEY_POSITIONS: Final = (("supervisor", 1), ("reset", 2))
"""The layout board's key switch positions besides `normal`, with their wire values."""


def read_layout(section: Section, kind: str) -> LayoutConfig:
    """Build the layout's record, refusing bad pins and pins or channels used twice."""
    gpio = kind in ("gpio", "emulated-gpio")
    if gpio:
        low, high = GPIO_PINS.start, GPIO_PINS.stop - 1
        tables = {key: _numbers(section, key, low, high) for key in _LAYOUT_TABLES}
    else:
        tables = {key: _numbers(section, key, 0, top) for key, top in _BOARD_CHANNELS.items()}
        tables["key_switches"] = dict(BOARD_KEY_POSITIONS)
    if KEY_NORMAL in tables["key_switches"]:
        raise section.error(f"key_switches.{KEY_NORMAL}",
                            f"`{KEY_NORMAL}` is the position with no contact")
    _refuse_duplicates(section, tables, shared=gpio)
    _refuse_duplicate_names(section, tables)
    if not tables["lamps"]:
        raise section.error("lamps", "at least one lamp is required")
    port = read_serial_port(section) if kind == "serial" else None
    timeout = read_timeout(section) if not gpio else DEFAULT_TIMEOUT_MS
    debounce = section.integer("debounce_ms", 20, minimum=0, maximum=1000) if gpio else 20
    pull = section.choice("pull", ("up", "down"), "up") if gpio else "up"
    blink = float(section.get("blink_hz", (float, int), 2.0)) if gpio else 2.0
    if not 0.1 <= blink <= 20.0:
        raise section.error("blink_hz", f"{blink} is out of range 0.1..20")
    lamps_active = section.choice("lamps_active", ("high", "low"), "high") if gpio else "high"
    trust = BoardTrust() if gpio else read_trust(section, kind)
    return LayoutConfig(section.name, kind, tables["lamps"], tables["bet_sensors"],
                        tables["buttons"], tables["key_switches"], port, timeout, debounce, pull,
                        blink, lamps_active, trust)


def _refuse_duplicates(section: Section, tables: dict[str, dict[str, int]], shared: bool) -> None:
    # A GPIO pin is one wire: it may appear once in the whole section. A board channel
    # number is per function (lamp channel 3 and sensor channel 3 are different things).
    seen: dict[tuple[str, int], str] = {}
    for key, table in tables.items():
        for label, number in table.items():
            slot = ("pin" if shared else key, number)
            if slot in seen:
                what = "pin" if shared else "channel"
                raise section.error(f"{key}.{label}",
                                    f"{what} {number} is already used by {seen[slot]}")
            seen[slot] = f"{key}.{label}"


def _refuse_duplicate_names(section: Section, tables: dict[str, dict[str, int]]) -> None:
    inputs: dict[str, str] = {}
    for key in _LAYOUT_TABLES[1:]:
        for label in tables[key]:
            if label in inputs:
                raise section.error(f"{key}.{label}", f"name also used in {inputs[label]}")
            inputs[label] = key
