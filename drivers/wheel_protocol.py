"""The automated wheel's result feed as text: lines, their grammar, and what they add up to.

Pure (no I/O, no clock of its own): `LineSplitter` cuts the byte stream into lines,
`parse_line` reads one line by the grammar of `drivers/WHEEL.md`, and `WheelTracker` turns the
lines into device facts (`drivers.events`): one `WheelStatus` per change of (state, game,
flags), one `WheelResult` per game, `WheelVoid` for a game that ends without one, a
`WheelWarning` per warning per game, and `DeviceFault` when the wheel contradicts itself
(its winning-number line and its status disagree). The serial driver (`drivers/wheel.py`)
feeds it; the tests feed it directly and through the emulator.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from drivers.events import (
    DeviceFault,
    DriverEvent,
    WheelPhase,
    WheelResult,
    WheelStatus,
    WheelVoid,
    WheelWarning,
)

MAX_LINE: Final = 128
"""A line longer than this is noise (the longest the grammar allows is the extended status)."""

STATUS: Final = re.compile(
    r"\*X;(?P<state>[1-7]);(?P<game>\d{3});(?P<last>[ \d]\d|  );(?P<flags>[0-9A-Fa-f]);"
    r"(?P<rpm>\d{3});(?P<direction>[01])"
    r"(?P<extended>;[0-9A-Fa-f]{4};[0-9A-Fa-f]{2};[?01];(?:[0-9A-Fa-f]{5}|\?{5});(?:\d\d|\?\?))?")
"""The status line `*X;S;NNN;WW;F;RRR;D`, with Mercury's extended fields optional."""
NUMBER: Final = re.compile(r"[ \d]\d")
"""The bare winning-number line: two characters, ` 7`, `23`, `00`."""

PHASES: Final = {1: WheelPhase.BEFORE_GAME, 2: WheelPhase.PLACE_BETS, 3: WheelPhase.BALL_IN_RIM,
                 4: WheelPhase.NO_MORE_BETS, 5: WheelPhase.WINNING_NUMBER, 6: WheelPhase.CLOSED}

FLAG_NAMES: Final = ((1, "ball_not_detected"), (2, "misfire"), (4, "sensor_fault"),
                     (8, "failed_launch"))
"""The warning flags, bit by bit, as `WheelWarning.warning` names them."""
FLAG_WORDS: Final = {"ball_not_detected": "ball not detected or removed",
                     "misfire": "ball moving with the rotor (misfire)",
                     "sensor_fault": "a sensor stuck on or off, or a motor or encoder fault",
                     "failed_launch": "failed launch: the ball is not in the rim, retrying"}
DIALECTS: Final = ("ss2", "mercury")
_IN_GAME: Final = (2, 3, 4)


def pocket_text(two: str) -> str | None:
    """`" 7"` -> `"7"`, `"00"` -> `"00"`, `"23"` -> `"23"`; None otherwise (`"37"`, `"07"`)."""
    if two == "00":
        return "00"
    if len(two) == 2 and two[0] == " " and two[1].isdigit():
        return two[1]
    if len(two) == 2 and two.isdigit() and 10 <= int(two) <= 36:
        return two
    return None


@dataclass(frozen=True, slots=True)
class StatusLine:
    """A `*X` status line, read."""

    state: int
    game: int
    last: str | None
    flags: int
    rpm_tenths: int
    direction: int


@dataclass(frozen=True, slots=True)
class NumberLine:
    """The bare winning-number line, read."""

    number: str


@dataclass(frozen=True, slots=True)
class OtherPacket:
    """A `*` packet that is no status line: a reply (`*P OK`), an echo (`*P 1`), a setup read."""

    text: str


WheelLine = StatusLine | NumberLine | OtherPacket


def parse_line(text: str) -> WheelLine | None:
    """Read one line (its terminator removed) by the grammar; None when it fits none of it."""
    if text.startswith("*X") and text != "*X":  # a bare `*X` is the host's poll, echoed
        match = STATUS.fullmatch(text)
        if match is None:
            return None
        last = match["last"]
        pocket = None if last == "  " else pocket_text(last)
        if last != "  " and pocket is None:
            return None
        return StatusLine(int(match["state"]), int(match["game"]), pocket,
                          int(match["flags"], 16), int(match["rpm"]), int(match["direction"]))
    if NUMBER.fullmatch(text):
        number = pocket_text(text)
        return None if number is None else NumberLine(number)
    if text.startswith("*") and text.isprintable() and "*" not in text[1:]:
        return OtherPacket(text)
    return None


class LineSplitter:
    """Bytes in, lines out: split on any CR or LF, empty lines dropped, overlong lines cut.

    Wheels end lines CR LF; older installations LF CR; a lone CR or LF is a line end too.
    """

    def __init__(self) -> None:
        self._partial = bytearray()

    def feed(self, data: bytes) -> list[str]:
        """The complete lines `data` finishes (decoded as ASCII; other bytes become `?`)."""
        lines = []
        for byte in data:
            if byte in (0x0D, 0x0A):
                if self._partial:
                    lines.append(self._partial.decode("ascii", "replace").replace("\ufffd", "?"))
                    self._partial.clear()
            elif len(self._partial) < MAX_LINE:
                self._partial.append(byte)
            else:
                self._partial.extend(b"~")  # overlong: it can no longer fit the grammar
                del self._partial[MAX_LINE:]
        return lines


@dataclass
class _Game:
    """What the tracker knows of the wheel game in progress."""

    game: int
    decided: bool = False
    faulted: bool = False
    no_ball_lines: int = 0
    number_line: str | None = None
    reached_rim: bool = False


class WheelTracker:
    """The lines of one wheel, turned into device facts.

    Args:
        device: The configured device name the facts carry.
        clock: The driver's clock (the facts' `at`).
        expect_number_line: The wheel sends the bare winning-number line (port 1, mode bit 16
            off); a result without it is then warned `number_line_missing`.
        no_ball_lines: State-4 lines with flag 1 in a row that void the game (10: 5 s of
            status at 500 ms; the wheel's own guidance is to ignore it that long first).
        dialect: `ss2` (Cammegh SlingShot) or `mercury` (Cammegh Mercury, where flag 8 in
            play voids the game).
    """

    def __init__(self, device: str, clock: Callable[[], float], *,
                 expect_number_line: bool = True, no_ball_lines: int = 10,
                 dialect: str = "ss2") -> None:
        self.device = device
        self.clock = clock
        self.expect_number_line = expect_number_line
        self.no_ball_lines = no_ball_lines
        self.dialect = dialect
        self.last: StatusLine | None = None
        self.current: _Game | None = None
        self.decided_game: int | None = None
        self.decided_number: str | None = None
        self._warned: set[tuple[int, str]] = set()
        self.last_line: WheelLine | None = None
        """The last line fed, as read (None: it fit no grammar)."""
        self.garbled = 0
        self.unknown = 0
        self.lines = 0
        self.statuses = 0

    # ------------------------------------------------------------------ input
    def feed(self, text: str) -> list[DriverEvent]:
        """The facts one line adds (none for a repeat)."""
        self.lines += 1
        line = self.last_line = parse_line(text)
        if line is None:
            self.garbled += 1
            return self._warn_once("garbled_line", f"dropped a line that fits no grammar: "
                                                   f"{text[:40]!r}")
        if isinstance(line, OtherPacket):
            self.unknown += 1
            return []
        if isinstance(line, NumberLine):
            return self._number_line(line.number)
        self.statuses += 1
        return self._status(line)

    # ------------------------------------------------------------------ status lines
    def _status(self, line: StatusLine) -> list[DriverEvent]:
        """The previous game's outcome (if this line ends it), the change, then this line's."""
        before = self.last
        self.last = line
        if line.state in _IN_GAME:
            ended, facts = self._in_game(line, before)
        elif line.state == 5:
            ended, facts = [], self._decided(line)
        else:
            ended, facts = self._out_of_game(line), []
        if before is None or (before.state, before.game, before.flags) != (
                line.state, line.game, line.flags):
            ended.append(WheelStatus(self.device, PHASES.get(line.state, WheelPhase.OTHER),
                                     line.state, line.game, line.flags, self.clock()))
        return [*ended, *facts]

    def _in_game(self, line: StatusLine,
                 before: StatusLine | None) -> tuple[list[DriverEvent], list[DriverEvent]]:
        ended: list[DriverEvent] = []
        game = self.current
        fresh = line.state == 2 and (before is None or before.state != 2
                                     or before.game != line.game)
        if game is not None and fresh:
            ended = self._abandon(game, f"the wheel started game {line.game:03d} instead")
            game = None
        if game is None:
            game = self._start(line.game)
        game.reached_rim = game.reached_rim or line.state >= 3
        facts = self._flags(game, line)
        if not game.decided:
            facts += self._voids(game, line)
        return ended, facts

    def _start(self, number: int) -> _Game:
        self.current = _Game(number)
        self._warned.clear()
        return self.current

    def _flags(self, game: _Game, line: StatusLine) -> list[DriverEvent]:
        facts: list[DriverEvent] = []
        for bit, name in FLAG_NAMES:
            if line.flags & bit:
                facts += self._warn_once(name, f"{FLAG_WORDS[name]} (state {line.state})")
        return facts

    def _voids(self, game: _Game, line: StatusLine) -> list[DriverEvent]:
        if line.state == 3 and line.flags & 2:
            return self._void(game, "misfire: the ball moved with the rotor")
        if line.state == 4 and line.flags & 1:
            game.no_ball_lines += 1
            if game.no_ball_lines >= self.no_ball_lines:
                return self._void(game, f"no ball: not detected for {game.no_ball_lines} "
                                        "status lines in a row")
        elif line.state == 4:
            game.no_ball_lines = 0
        if self.dialect == "mercury" and line.state in (3, 4) and line.flags & 8:
            return self._void(game, "void flag: the ball left the wheel or the rotor changed")
        return []

    def _decided(self, line: StatusLine) -> list[DriverEvent]:
        game = self.current
        if game is None and line.last is not None and self.decided_game != line.game:
            game = self._start(line.game)  # the first line seen is a result (started mid-game)
        if game is None or game.decided:
            return self._crosscheck_late(game)
        if line.last is None:
            game.decided = game.faulted = True
            return [self._fault(f"game {line.game:03d}: a winning-number status without a "
                                "number")]
        game.game = line.game  # a state-5 line carries the decided game's number
        return self._result(game, line.last, "status")

    def _out_of_game(self, line: StatusLine) -> list[DriverEvent]:
        game = self.current
        if game is None or game.decided:
            self.current = None if line.state == 6 else game
            return []
        self.current = None
        if game.number_line is not None and game.reached_rim:
            return self._result(game, game.number_line, "number_line")
        if line.state == 6:
            return self._void(game, "closed mid-game: no result")
        if game.reached_rim:
            return self._void(game, f"the wheel left the game in state {line.state}")
        return []

    # ------------------------------------------------------------------ number lines
    def _number_line(self, number: str) -> list[DriverEvent]:
        game = self.current
        if game is not None and not game.decided:
            if game.number_line is not None and game.number_line != number:
                return [self._fault(f"game {game.game:03d}: two winning-number lines, "
                                    f"{game.number_line} then {number}")]
            game.number_line = number
            return []
        if game is not None and game.faulted:
            return []  # this game's contradiction is reported already
        if self.decided_game is not None and self.decided_number != number:
            if game is not None:
                game.faulted = True
            return [self._fault(f"game {self.decided_game:03d}: the winning-number line says "
                                f"{number} but the status said {self.decided_number}")]
        return []

    def _crosscheck_late(self, game: _Game | None) -> list[DriverEvent]:
        if game is None or game.number_line is None or game.faulted:
            return []
        if game.number_line != self.decided_number:
            game.faulted = True
            return [self._fault(f"game {game.game:03d}: the winning-number line says "
                                f"{game.number_line} but the status says {self.decided_number}")]
        return []

    # ------------------------------------------------------------------ outcomes
    def _result(self, game: _Game, number: str, source: str) -> list[DriverEvent]:
        sources: tuple[str, ...] = (source,)
        facts: list[DriverEvent] = []
        if source == "status" and game.number_line is not None:
            if game.number_line != number:
                game.decided = game.faulted = True
                self.decided_game, self.decided_number = game.game, number
                return [self._fault(f"game {game.game:03d}: the winning-number line says "
                                    f"{game.number_line} but the status says {number}")]
            sources = ("number_line", "status")
        elif source == "status" and self.expect_number_line:
            facts += self._warn_once("number_line_missing", "no bare winning-number line came "
                                     "before the result status")
        game.decided = True
        self.decided_game, self.decided_number = game.game, number
        return [*facts, WheelResult(self.device, game.game, number, sources, self.clock())]

    def _void(self, game: _Game, reason: str) -> list[DriverEvent]:
        game.decided = True
        self.decided_game, self.decided_number = None, None
        return [WheelVoid(self.device, game.game, reason, self.clock())]

    def _abandon(self, game: _Game, reason: str) -> list[DriverEvent]:
        self.current = None
        if game.decided or not game.reached_rim:
            return []
        if game.number_line is not None:
            return self._result(game, game.number_line, "number_line")
        return self._void(game, reason)

    def _warn_once(self, name: str, detail: str) -> list[DriverEvent]:
        """One warning per game: of the game in progress, else of the last game seen."""
        game = self.current
        number = game.game if game is not None else (self.last.game if self.last else 0)
        if (number, name) in self._warned:
            return []
        self._warned.add((number, name))
        return [WheelWarning(self.device, number, name, detail, self.clock())]

    def _fault(self, reason: str) -> DeviceFault:
        return DeviceFault(self.device, f"wheel contradicts itself: {reason}", self.clock())
