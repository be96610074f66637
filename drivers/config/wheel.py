"""`[devices.wheel]`: the automated roulette wheel's result feed, real or emulated."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from confkeys import Section
from drivers.config.boards import read_port_url

WHEEL_BAUD_RATES: Final = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)


WHEEL_DIALECTS: Final = ("ss2", "mercury")


@dataclass(frozen=True, slots=True)
class LineSettings:
    """A vendor device's serial line: speed, framing and flow control (9600 8N1, none).

    Attributes:
        baud: Line speed.
        bytesize: 7 or 8 data bits.
        parity: `none`, `even` or `odd`.
        stopbits: 1 or 2.
        flow: `none`, `rtscts` or `xonxoff`.
    """

    baud: int = 9600
    bytesize: int = 8
    parity: str = "none"
    stopbits: int = 1
    flow: str = "none"


@dataclass(frozen=True, slots=True)
class WheelEmulation:
    """What an emulated wheel plays (`drivers/emulated/wheel.py`).

    Attributes:
        seed: Seed of the winning numbers and of the irregular games; None: random.
        pockets: 38 (double zero) or 37 (single zero).
        pace_ms: One line this often (a real wheel's status period is 500 ms); 0: the
            emulator's owner sends each step (the simulation).
        faults: Mix in the hard games (warnings, void spins, a dropped line, a stuck
            sensor, garbled lines); False: clean games only.
        nmb_lines: State-4 (no more bets) lines a game (a wheel sends about 50).
        spins: Games to play, then the table closes; 0: no end.
        replay: Play this recorded byte stream instead (the wheel's own bytes).
        bets_lines: Place-your-bets (state 2) lines a game before the ball is launched:
            with `pace_ms` the betting window (a real table bets for tens of seconds).
        wait_lines: Before-game (state 1) lines a game: the wheel's games-per-hour wait.
    """

    seed: int | None = None
    pockets: int = 38
    pace_ms: int = 500
    faults: bool = True
    nmb_lines: int = 50
    spins: int = 0
    replay: Path | None = None
    bets_lines: int = 3
    wait_lines: int = 2


@dataclass(frozen=True, slots=True)
class WheelConfig:
    """`[devices.wheel]`: the automated roulette wheel's result feed (`drivers/WHEEL.md`).

    Attributes:
        name: Section name.
        kind: `serial` or `emulated`.
        url: The port (any pyserial URL); "" when emulated.
        line: The serial line's settings.
        timeout_ms: No line that fits the grammar for this long: the wheel is down.
        number_line: The wheel sends the bare winning-number line (its port 1, mode bit 16
            off): a result without one is warned `number_line_missing`.
        no_ball_lines: State-4 lines with the no-ball flag in a row that void the game.
        dialect: `ss2` (SlingShot) or `mercury` (flag 8 in play voids the game).
        emulation: The emulated wheel's game plan; None for a real wheel.
        launch: `wheel`: the wheel launches each game itself (arcade mode); `host`: it
            waits in place your bets for the host's start command (`*u 1`, mode bit 2), which
            the croupier gives at the console.
    """

    name: str
    kind: str
    url: str = ""
    line: LineSettings = LineSettings()
    timeout_ms: int = 3000
    number_line: bool = True
    no_ball_lines: int = 10
    dialect: str = "ss2"
    emulation: WheelEmulation | None = None
    launch: str = "wheel"


WHEEL_LAUNCHES: Final = ("wheel", "host")
"""Who starts each game: the wheel itself (arcade) or the host's command (user start)."""


def read_wheel(section: Section, kind: str) -> WheelConfig:
    """Build the wheel's record from its section."""
    url = ""
    line = LineSettings()
    if kind == "serial":
        url = read_port_url(section)
        line = _read_line_settings(section)
    return WheelConfig(
        section.name, kind, url, line,
        timeout_ms=section.integer("timeout_ms", 3000, minimum=500, maximum=60_000),
        number_line=bool(section.get("number_line", bool, True)),
        no_ball_lines=section.integer("no_ball_lines", 10, minimum=1, maximum=1000),
        dialect=section.choice("dialect", WHEEL_DIALECTS, "ss2"),
        launch=section.choice("launch", WHEEL_LAUNCHES, "wheel"),
        emulation=_read_wheel_emulation(section) if kind != "serial" else None)


def _read_line_settings(section: Section) -> LineSettings:
    baud = section.integer("baud", 9600, minimum=300, maximum=4_000_000)
    if baud not in WHEEL_BAUD_RATES:
        raise section.error("baud", f"{baud} is not one of "
                                    f"{', '.join(map(str, WHEEL_BAUD_RATES))}")
    bytesize = section.integer("bytesize", 8, minimum=5, maximum=8)
    if bytesize not in (7, 8):
        raise section.error("bytesize", f"{bytesize} is not 7 or 8")
    stopbits = section.integer("stopbits", 1, minimum=1, maximum=2)
    return LineSettings(baud, bytesize, section.choice("parity", ("none", "even", "odd"), "none"),
                        stopbits, section.choice("flow", ("none", "rtscts", "xonxoff"), "none"))


def _read_wheel_emulation(section: Section) -> WheelEmulation:
    pockets = section.integer("pockets", 38, minimum=37, maximum=38)
    named = section.path("replay")
    replay = Path(named) if named is not None else None
    if replay is not None and not replay.is_file():
        raise section.error("replay", f"no such file: {replay}")
    return WheelEmulation(
        seed=section.get("seed", int, None), pockets=pockets,
        pace_ms=section.integer("pace_ms", 500, minimum=0, maximum=10_000),
        faults=bool(section.get("faults", bool, True)),
        nmb_lines=section.integer("nmb_lines", 50, minimum=1, maximum=500),
        spins=section.integer("spins", 0, minimum=0, maximum=1_000_000),
        replay=replay,
        bets_lines=section.integer("bets_lines", 3, minimum=1, maximum=1000),
        wait_lines=section.integer("wait_lines", 2, minimum=1, maximum=1000))
