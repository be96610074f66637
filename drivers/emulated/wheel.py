"""A byte-level automated roulette wheel behind a real pseudo-terminal (`drivers/WHEEL.md`).

It writes what a Cammegh SlingShot 2 writes on its port 1 in arcade mode: a `*X;S;NNN;WW;F;RRR;D`
status line every status period, repeated while nothing changes (about 50 in no more bets),
the bare winning-number line just before the first result status, CR LF line ends. Seeded
(`WheelPlay`), it mixes in the hard games the field has seen (`SCENARIOS`): warning flags in
place-your-bets that end in a normal game, a misfire void (state 3 and flag 2, then a re-spin
of the same game), a no-ball void (state 4 and flag 1 for more than ten lines), a dropped
winning-number line, a stuck sensor (rotor 000, flag 1 once, flag 4 for a long while, then the
wheel powers down mid-game and restarts its count at 001), lines run together after a stall,
a bare line ended LF CR, the host's own `*P 1` echoed, and the table closed and reopened
between games. `WheelPlay.expected` is what each game must come to (the tests' ground
truth). A recording (`--replay FILE`) is put on the pty byte for byte instead.

In user-start mode (`launch_by_host`, the SlingShot's mode bit 2) each game waits in place
your bets, repeating its status line, until the host writes the start command (`*u 1`, `*u 3`
or `*K`), answered `*u OK` (`*K OK`); one written earlier in that game's place your bets is
kept for it; one at any other time is answered `*u NO`.
Only the paced thread waits: an owner stepping the wheel itself launches every game.

Stimulus:
    `send_step()` writes the next step (a run of lines that says the same: the status
    repeats of one state, or one other line) for an owner that paces the wheel itself (the
    simulation); with `pace_s` a thread writes one line every `pace_s` seconds, as a wheel
    does; `unplug()`, `replug()`.

Observation:
    `path` (what the host opens), `sent` (bytes written), `lines_sent`, `expected`, `finished`.
"""

from __future__ import annotations

import logging
import random
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from drivers.config import WheelEmulation
from drivers.emulated.pty import PtyPort
from drivers.wheel_protocol import StatusLine, parse_line

_LOG = logging.getLogger(__name__)
CRLF: Final = b"\r\n"
AWAIT_LAUNCH: Final = b""
"""In a user-start wheel's stream: hold here, in place your bets, until the host launches."""
START_COMMANDS: Final = {b"*u 1": b"*u", b"*u 3": b"*u", b"*K": b"*K"}
"""The host's start commands, each with the letter of its reply."""
GAME_WRAP: Final = 256
"""The SlingShot's spin counter runs 1-256 and wraps."""

SCENARIOS: Final = (
    ("normal", 40), ("failed_launch", 8), ("flags_before_launch", 5), ("misfire", 6),
    ("no_ball", 5), ("number_line_dropped", 6), ("status_line_dropped", 4),
    ("stuck_sensor", 4), ("garbled", 6), ("lf_cr", 5), ("echo", 4), ("closed_between", 3),
)
"""The games a wheel with `faults` plays, with their weights."""


@dataclass(frozen=True, slots=True)
class ExpectedSpin:
    """What one wheel game must come to, read through the driver.

    Attributes:
        game: The wheel's game number.
        number: The winning number; None for a void game.
        void: True when the game has no result.
        warnings: The warnings the driver must give for it, in order.
        scenario: Which kind of game it was (`SCENARIOS`).
    """

    game: int
    number: str | None
    void: bool
    warnings: tuple[str, ...]
    scenario: str


def status_text(state: int, game: int, last: str | None, flags: int = 0, rpm: int = 163,
                direction: int = 0) -> str:
    """One status line's text: `*X;4;031;17;0;163;1` (`last` None: `  `, before any result)."""
    ww = "  " if last is None else last.rjust(2)
    return f"*X;{state};{game:03d};{ww};{flags:X};{rpm:03d};{direction}"


@dataclass
class WheelPlay:
    """The seeded game plan of one emulated wheel: its lines, game after game.

    Args:
        seed: Seeds the winning numbers and the choice of games.
        pockets: 38 (double zero) or 37 (single zero).
        faults: Mix in the hard games of `SCENARIOS`; False: normal games only.
        nmb_lines: State-4 lines a game.
        spins: Games to play before the table closes for good (0: no end).
        bets_lines: State-2 (place your bets) lines a game before the launch.
        wait_lines: State-1 lines a game (the games-per-hour wait before it).
        launch_by_host: User-start mode: each game waits after its `bets_lines` for the
            host's start command (`AWAIT_LAUNCH` in the stream).
    """

    seed: int | None = None
    pockets: int = 38
    faults: bool = True
    nmb_lines: int = 50
    spins: int = 0
    bets_lines: int = 3
    wait_lines: int = 2
    launch_by_host: bool = False
    expected: list[ExpectedSpin] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.game = 0
        self.last: str | None = None
        self.direction = 0
        self.respin = False
        self.pocket_names = (("0", "00") if self.pockets == 38 else ("0",)) + tuple(
            str(n) for n in range(1, 37))

    # ------------------------------------------------------------------ the stream
    def lines(self) -> Iterator[bytes]:
        """Every line the wheel sends, with its line end: power-on, then game after game."""
        yield from self._closed(3)
        played = 0
        while not self.spins or played < self.spins:
            yield from self._play(self._scenario())
            played += 1
        yield from self._closed(4)

    def _scenario(self) -> str:
        if not self.faults:
            return "normal"
        names = [name for name, _ in SCENARIOS]
        weights = [weight for _, weight in SCENARIOS]
        return self.rng.choices(names, weights)[0]

    def _play(self, scenario: str) -> Iterator[bytes]:
        number = self.rng.choice(self.pocket_names)
        if scenario == "closed_between":
            yield from self._closed(3, echo=b"*P 0")
            yield b"*P OK" + CRLF
        rpm = self.rng.randint(140, 260)
        # the games-per-hour wait: still the last game's number
        yield from self._line(1, 0, rpm, self.wait_lines)
        if not self.respin:
            self.game = self.game % GAME_WRAP + 1  # the count steps as a new game enters 2
        self.respin = False
        self.direction ^= 1
        warnings: list[str] = []
        yield from self._place_bets(scenario, rpm, warnings)
        if scenario == "misfire":
            yield from self._line(3, 2, rpm, 4)
            self._expect(None, ["misfire"], scenario)
            self.respin = True
            return
        yield from self._line(3, 0, rpm, 4)
        yield from self._no_more_bets(scenario, rpm, warnings)
        if scenario in ("no_ball", "stuck_sensor"):
            return
        yield from self._result(scenario, number, rpm, warnings)

    def _place_bets(self, scenario: str, rpm: int, warnings: list[str]) -> Iterator[bytes]:
        yield from self._line(2, 0, rpm, self.bets_lines)
        if self.launch_by_host:
            yield AWAIT_LAUNCH
        if scenario == "echo":
            yield b"*P 1" + CRLF
        if scenario == "flags_before_launch":
            yield from self._line(2, 2, rpm, 2)
            warnings.append("misfire")
        if scenario in ("failed_launch", "flags_before_launch"):
            yield from self._line(2, 8, rpm, 6)
            warnings.append("failed_launch")
            yield from self._line(2, 0, rpm, 2)

    def _no_more_bets(self, scenario: str, rpm: int, warnings: list[str]) -> Iterator[bytes]:
        half = self.nmb_lines // 2
        yield from self._line(4, 0, rpm, half)
        if scenario == "garbled":
            text = status_text(4, self.game, self.last, 0, rpm, self.direction)
            yield (text[:7] + "*X;" + text).encode() + CRLF  # a stall: lines run together
            yield text[-9:].encode() + CRLF
            warnings.append("garbled_line")
        if scenario == "no_ball":
            yield from self._line(4, 1, rpm, 12)
            self._expect(None, ["ball_not_detected"], scenario)
            return
        if scenario == "stuck_sensor":
            yield from self._line(4, 1, 0, 1)
            yield from self._line(4, 0, 0, 3)
            yield from self._line(4, 4, 0, 30)
            yield from self._closed(3)
            self._expect(None, ["ball_not_detected", "sensor_fault"], scenario)
            self.game, self.last = 0, None  # powered down: the count restarts at 001
            yield from self._closed(2)
            return
        rest = self.nmb_lines - half
        if scenario == "status_line_dropped":
            rest -= 1
        yield from self._line(4, 0, rpm, rest)

    def _result(self, scenario: str, number: str, rpm: int,
                warnings: list[str]) -> Iterator[bytes]:
        if scenario == "number_line_dropped":
            warnings.append("number_line_missing")
        else:
            end = b"\n\r" if scenario == "lf_cr" else CRLF
            yield number.rjust(2).encode() + end
        self.last = number
        yield from self._line(5, 0, rpm, 6)
        self._expect(number, warnings, scenario)

    def _line(self, state: int, flags: int, rpm: int, count: int) -> Iterator[bytes]:
        text = status_text(state, self.game, self.last, flags, rpm, self.direction).encode()
        for _ in range(count):
            yield text + CRLF

    def _closed(self, count: int, echo: bytes = b"") -> Iterator[bytes]:
        if echo:
            yield echo + CRLF
        yield from self._line(6, 0, 0, count)

    def _expect(self, number: str | None, warnings: list[str], scenario: str) -> None:
        self.expected.append(ExpectedSpin(self.game, number, number is None, tuple(warnings),
                                          scenario))


# ---------------------------------------------------------------- steps


_LINE: Final = re.compile(rb"[^\r\n]*(?:\r\n|\n\r|\r|\n)|[^\r\n]+$")


def recorded_lines(data: bytes) -> list[bytes]:
    """A recorded byte stream cut after each line end (the bytes themselves unchanged)."""
    return [match.group(0) for match in _LINE.finditer(data) if match.group(0)]


def steps(lines: Iterator[bytes]) -> Iterator[bytes]:
    """Runs of lines that say the same (status repeats of one state, game and flags) as one write.

    Anything else (a winning-number line, a packet, garbage) is a step of its own, so an owner
    that lets the table act between steps sees every change the wheel makes.
    """
    run: list[bytes] = []
    key: tuple[int, int, int] | None = None
    for line in lines:
        if line == AWAIT_LAUNCH:  # the owner paces the wheel: it launches every game
            continue
        parsed = parse_line(line.decode("ascii", "replace").strip("\r\n"))
        now = ((parsed.state, parsed.game, parsed.flags) if isinstance(parsed, StatusLine)
               else None)
        if run and (now is None or now != key):
            yield b"".join(run)
            run = []
        run.append(line)
        key = now
        if now is None:
            yield b"".join(run)
            run, key = [], None
    if run:
        yield b"".join(run)


# ---------------------------------------------------------------- the device


class WheelEmulator:
    """The wheel's serial port: a pty carrying the wheel's lines.

    Args:
        lines: The lines to send, each with its line end.
        link_dir: Directory for the port's stable symlink.
        name: The symlink's name.
        pace_s: One line every this many seconds from a thread of its own; 0: only
            `send_step` sends.
        play: The game plan behind `lines` (its `expected`), when seeded.
    """

    def __init__(self, lines: Iterator[bytes], *, link_dir: Path | None = None,
                 name: str = "wheel", pace_s: float = 0.0, play: WheelPlay | None = None) -> None:
        self.port = PtyPort(self._from_host, name=name, link_dir=link_dir)
        self.pace_s = pace_s
        self.play = play
        self._lines = lines
        self._steps = steps(lines)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sent = 0
        self.lines_sent = 0
        self.finished = False
        self.launches = 0
        """Start commands taken (each launched a waiting game)."""
        self._from_host_buffer = b""
        self._awaiting = False
        self._placing = False
        self._gate_passed = False
        self._launched = threading.Event()
        self._last_line = b""

    @classmethod
    def from_config(cls, emulation: WheelEmulation, *, link_dir: Path | None = None,
                    name: str = "wheel", launch_by_host: bool = False) -> WheelEmulator:
        """The emulator a `[devices.wheel] kind = "emulated"` section asks for.

        `launch_by_host` (`launch = "host"`): each game waits for the host's start command.

        Raises:
            OSError: The replay file cannot be read.
        """
        pace = emulation.pace_ms / 1000
        if emulation.replay is not None:
            data = emulation.replay.read_bytes()
            return cls(iter(recorded_lines(data)), link_dir=link_dir, name=name, pace_s=pace)
        play = WheelPlay(emulation.seed, emulation.pockets, emulation.faults,
                         emulation.nmb_lines, emulation.spins, emulation.bets_lines,
                         emulation.wait_lines, launch_by_host)
        return cls(play.lines(), link_dir=link_dir, name=name, pace_s=pace, play=play)

    def _from_host(self, data: bytes) -> None:
        """Bytes the host wrote: a start command launches the waiting game; the rest is ignored."""
        self._from_host_buffer += data
        *lines, self._from_host_buffer = re.split(rb"\r\n|\r|\n", self._from_host_buffer)
        for line in filter(None, lines):
            letter = START_COMMANDS.get(line.strip())
            if letter is None:
                _LOG.debug("wheel emulator: %r from the host ignored", line)
                continue
            with self._lock:
                taken = (self._awaiting or self._placing) and not self._launched.is_set()
                if taken:
                    self._launched.set()
                    self.launches += 1
                self._write(letter + (b" OK" if taken else b" NO") + CRLF)

    @property
    def path(self) -> str:
        """What the host opens."""
        return self.port.path

    @property
    def tty_path(self) -> str:
        """The current terminal (`/dev/pts/N`)."""
        return self.port.tty_path

    @property
    def expected(self) -> list[ExpectedSpin]:
        """What each game generated so far must come to (empty for a replay)."""
        return list(self.play.expected) if self.play is not None else []

    def start(self) -> WheelEmulator:
        """Open the pty (and, with a pace, start sending); returns self."""
        self.port.open()
        if self.pace_s > 0 and self._thread is None:
            self._thread = threading.Thread(target=self._paced, name="wheel-emulator",
                                            daemon=True)
            self._thread.start()
        return self

    def send_step(self) -> bool:
        """Write the next step now; False when the wheel has nothing more to say."""
        with self._lock:
            chunk = next(self._steps, None)
            if chunk is None:
                self.finished = True
                return False
            self._write(chunk)
        return True

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (a test's own garbage or a recording's tail)."""
        with self._lock:
            self._write(data)

    def _write(self, data: bytes) -> None:
        self.port.write(data)
        self.sent += len(data)
        self.lines_sent += data.count(b"\n")

    def _paced(self) -> None:
        for line in self._lines:
            if line == AWAIT_LAUNCH:
                if not self._await_launch():
                    return
                continue
            if self._stop.wait(self.pace_s):
                return
            with self._lock:
                self._write(line)
                self._note_sent(line)
        self.finished = True
        _LOG.info("wheel emulator: the stream is finished")

    def _note_sent(self, line: bytes) -> None:
        """Keep the line to repeat while held, and whether a start command is taken now."""
        self._last_line = line
        placing = line.startswith(b"*X;2;")
        user_start = self.play is not None and self.play.launch_by_host
        self._placing = placing and user_start and not self._gate_passed
        if not placing:
            self._gate_passed = False  # the next game's place your bets takes a launch again

    def _await_launch(self) -> bool:
        """Repeat the last status line each pace until the host launches; False when closed."""
        with self._lock:
            self._awaiting = True
        try:
            while not self._launched.is_set():
                if self._stop.wait(self.pace_s):
                    return False
                with self._lock:
                    if not self._launched.is_set():
                        self._write(self._last_line)
            return True
        finally:
            with self._lock:
                self._awaiting = self._placing = False
                self._gate_passed = True
                self._launched.clear()

    @property
    def awaiting_launch(self) -> bool:
        """True while a game waits in place your bets for the host's start command."""
        with self._lock:
            return self._awaiting

    def unplug(self) -> None:
        """The cable is pulled: the pty goes away."""
        self.port.unplug()

    def replug(self) -> None:
        """The cable is back (a new pty behind the same symlink)."""
        self.port.replug()

    def stats(self) -> dict[str, int | bool]:
        """Bytes and lines sent, bytes dropped (a host not reading), whether it is over."""
        return {"sent": self.sent, "lines": self.lines_sent, "dropped": self.port.dropped,
                "finished": self.finished}

    def close(self) -> None:
        """Stop sending and close the pty (idempotent)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)
        self.port.close()

    def __enter__(self) -> WheelEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
