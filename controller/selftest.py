"""`shoectl selftest`: the start-of-day check the floorperson runs before opening the table (R2).

In order: the installed software against its manifest (tamper check, R16), the audit
journal's hash chain and meters, the shoe scanner (handshake, state), every layout lamp
lit in turn, every bet sensor, button and key switch read, the progressive sign answering
and showing the meter, and the cross-check's camera giving a frame. The floorperson is
prompted for each step and answers within a timeout (a lamp nobody confirms has failed);
`--auto` drives the emulators of an emulated rig instead. The result (who, when, pass or
fail, every failed item by device) is appended to the audit journal as `selftest:result`,
and the exit status is non-zero on any failure.
"""

from __future__ import annotations

import argparse
import datetime
import io
import os
import pwd
import queue
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Protocol, TextIO

from controller import audit, integrity, statedir
from controller.effects import Journal as JournalRecord
from controller.journal import DB_NAME, JournalError, JournalStore
from controller.rules.errors import ConfigError as RulesConfigError
from controller.rules.money import format_cents
from controller.tableconfig import load_table_file
from drivers.camera import CameraSource
from drivers.config import KEY_NORMAL, LayoutConfig, Role, is_emulated, parse_devices
from drivers.errors import ConfigError, DriverError
from drivers.events import BetSensorChanged, ButtonPressed, DriverEvent, KeySwitchTurned
from drivers.interfaces import JackpotSign, LampState, LayoutInputs, LayoutLamps, ShoeScanner
from drivers.registry import BuildOptions, Devices, build_devices
from drivers.registry import kinds as device_kinds

JOURNAL_KIND: Final = "selftest:result"


class Verdict(StrEnum):
    """The floorperson's (or the emulator's) answer to one question."""

    YES = "yes"
    NO = "no"
    NO_ANSWER = "no answer"


class Action(StrEnum):
    """What the floorperson is asked to do to one input."""

    PLACE_CHIP = "place a chip on bet sensor"
    REMOVE_CHIP = "take the chip off bet sensor"
    PRESS = "press the button"
    TURN_KEY = "turn the key switch to"
    TURN_KEY_BACK = "turn the key switch back from"


@dataclass(frozen=True, slots=True)
class Check:
    """One checked item.

    Attributes:
        device: `software`, `journal`, or the configured device name (`shoe`, `layout`...).
        item: What was checked (`lamp spot_1`, `button no_more_bets`, `handshake`...).
        passed: The outcome.
        detail: Why it failed, or what was seen.
    """

    device: str
    item: str
    passed: bool
    detail: str = ""

    def line(self) -> str:
        """One report line."""
        mark = "PASS" if self.passed else "FAIL"
        return f"{mark}  {self.device:<8} {self.item}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True, slots=True)
class Report:
    """The outcome of one self-test run."""

    operator: str
    mode: str
    started: str
    finished: str
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        """True when every check passed (and there was at least one)."""
        return bool(self.checks) and all(check.passed for check in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        """The failed checks."""
        return tuple(check for check in self.checks if not check.passed)

    def failed_devices(self) -> tuple[str, ...]:
        """Every device with a failed check, in check order."""
        return tuple(dict.fromkeys(check.device for check in self.failures))

    def journal_data(self) -> dict[str, Any]:
        """The `selftest:result` record's data."""
        return {
            "operator": self.operator, "mode": self.mode, "started": self.started,
            "finished": self.finished, "passed": self.passed, "checks": len(self.checks),
            "failed_devices": list(self.failed_devices()),
            "failures": [f"{c.device}: {c.item}: {c.detail}" for c in self.failures],
        }

    def lines(self) -> list[str]:
        """The printed report."""
        verdict = "PASSED" if self.passed else "FAILED: " + ", ".join(self.failed_devices())
        head = [f"shoectl self-test by {self.operator} ({self.mode}), {self.started} - "
                f"{self.finished}"]
        return head + [check.line() for check in self.checks] + [f"self-test {verdict}"]


class Floor(Protocol):
    """Whoever works the table during the test: the floorperson, or the emulators (--auto)."""

    def act(self, action: Action, name: str) -> None:
        """Ask for (or perform) one action on an input."""

    def lamp_lit(self, lamp: str) -> Verdict:
        """Is this lamp lit now (and no other)?"""

    def sign_shows(self, text: str, cents: int) -> Verdict:
        """Does the sign show this amount?"""


@dataclass(slots=True)
class Rig:
    """The devices under test, already built (not started) with `Rig.sink` as their sink."""

    shoe: ShoeScanner | None = None
    lamps: LayoutLamps | None = None
    inputs: LayoutInputs | None = None
    sign: JackpotSign | None = None
    camera: CameraSource | None = None
    events: queue.Queue[DriverEvent] = field(default_factory=queue.Queue)

    def sink(self, event: DriverEvent) -> None:
        """The drivers' event sink (thread-safe)."""
        self.events.put(event)


@dataclass(frozen=True, slots=True)
class Plan:
    """What to check besides the devices, and how patiently.

    Attributes:
        software: Runs the software check; returns its Check (None: skip).
        journal: Runs the journal check; returns its Check (None: skip).
        meter_cents: The amount the sign should show (the progressive meter).
        input_timeout_s: How long to wait for each input after the prompt.
        lamp_on_s: How long each lamp stays lit before it is judged.
    """

    software: Callable[[], Check] | None = None
    journal: Callable[[], Check] | None = None
    meter_cents: int = 0
    input_timeout_s: float = 30.0
    lamp_on_s: float = 0.5


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def dollars(cents: int) -> str:
    """Cents as the sign shows them: `$12,345.67`."""
    return "$" + format_cents(cents)


# ---------------------------------------------------------------- device checks


def _start(device: Any, name: str) -> Check:
    try:
        device.start()
    except Exception as exc:  # noqa: BLE001 - any failure to open is this device's failure
        return Check(name, "handshake", False, f"{type(exc).__name__}: {exc}")
    if not device.link_up:
        return Check(name, "handshake", False, "link not up after start")
    return Check(name, "handshake", True, "answered" + (" (EMULATED)" if device.emulated else ""))


def check_shoe(shoe: ShoeScanner) -> list[Check]:
    """Handshake, then the shoe's own report: lid closed, no jam."""
    started = _start(shoe, shoe.name)
    if not started.passed:
        return [started]
    try:
        state = shoe.query_state()
    except Exception as exc:  # noqa: BLE001 - a shoe that cannot say how it is has failed
        return [started, Check(shoe.name, "state", False, f"{type(exc).__name__}: {exc}")]
    problems = [word for word, bad in (("lid open", state.lid_open), ("jammed", state.jammed))
                if bad]
    detail = ", ".join(problems) or f"lid closed, {state.cards_out} cards out"
    return [started, Check(shoe.name, "state", not problems, detail)]


def check_lamps(lamps: LayoutLamps, floor: Floor, on_s: float,
                sleep: Callable[[float], None] = time.sleep) -> list[Check]:
    """Light every lamp in turn, alone, and ask whether it lit."""
    started = _start(lamps, lamps.name)
    if not started.passed:
        return [started]
    checks = [started]
    try:
        lamps.all_safe()
        for lamp in lamps.lamp_names:
            lamps.set_lamp(lamp, LampState.ON)
            sleep(on_s)
            verdict = floor.lamp_lit(lamp)
            lamps.set_lamp(lamp, LampState.OFF)
            checks.append(Check(lamps.name, f"lamp {lamp}", verdict is Verdict.YES,
                                "" if verdict is Verdict.YES else f"not seen lit ({verdict})"))
    except Exception as exc:  # noqa: BLE001 - a driver error fails the lamp check, named
        checks.append(Check(lamps.name, "lamps", False, f"{type(exc).__name__}: {exc}"))
    return checks


def _steps(inputs: LayoutInputs, kinds: Mapping[str, str]) -> Iterator[tuple[Action, str, str]]:
    """(action, input name, kind) for every input, in configuration order."""
    for name in inputs.input_names:
        kind = kinds.get(name, "sensor")
        if kind == "sensor":
            yield Action.PLACE_CHIP, name, kind
            yield Action.REMOVE_CHIP, name, kind
        elif kind == "button":
            yield Action.PRESS, name, kind
        else:
            yield Action.TURN_KEY, name, kind
            yield Action.TURN_KEY_BACK, name, kind


def _expected(action: Action, name: str) -> Callable[[DriverEvent], bool]:
    def matches(event: DriverEvent) -> bool:
        if action in (Action.PLACE_CHIP, Action.REMOVE_CHIP):
            return (isinstance(event, BetSensorChanged) and event.sensor == name
                    and event.occupied == (action is Action.PLACE_CHIP))
        if action is Action.PRESS:
            return isinstance(event, ButtonPressed) and event.button == name
        position = name if action is Action.TURN_KEY else KEY_NORMAL
        return isinstance(event, KeySwitchTurned) and event.position == position
    return matches


def _wait_for(events: queue.Queue[DriverEvent], matches: Callable[[DriverEvent], bool],
              timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            event = events.get(timeout=left)
        except queue.Empty:
            return False
        if matches(event):
            return True
    return False


def check_inputs(rig: Rig, inputs: LayoutInputs, kinds: Mapping[str, str], floor: Floor,
                 timeout_s: float) -> list[Check]:
    """Ask for every sensor, button and key switch in turn and wait for its event."""
    checks: list[Check] = []
    if not inputs.link_up:  # one layout object is usually both, already started for the lamps
        started = _start(inputs, inputs.name)
        if not started.passed:
            return [started]
        checks.append(started)
    for action, name, kind in _steps(inputs, kinds):
        _drain(rig.events)
        try:
            floor.act(action, name)
        except Exception as exc:  # noqa: BLE001 - the emulator refused: this input failed
            checks.append(Check(inputs.name, f"{kind} {name}", False, f"{exc}"))
            continue
        seen = _wait_for(rig.events, _expected(action, name), timeout_s)
        detail = "" if seen else f"no signal within {timeout_s:g} s after: {action} {name}"
        checks.append(Check(inputs.name, f"{kind} {name} ({action.name.lower()})", seen, detail))
    return checks


def _drain(events: queue.Queue[DriverEvent]) -> None:
    while True:
        try:
            events.get_nowait()
        except queue.Empty:
            return


def check_sign(sign: JackpotSign, floor: Floor, cents: int) -> list[Check]:
    """Handshake, then show the meter and ask whether the sign shows it."""
    started = _start(sign, sign.name)
    if not started.passed:
        return [started]
    try:
        sign.show_amount(cents)
    except Exception as exc:  # noqa: BLE001 - a sign that refuses the amount has failed
        return [started, Check(sign.name, "shows amount", False, f"{type(exc).__name__}: {exc}")]
    amount = dollars(cents)
    verdict = floor.sign_shows(amount, cents)
    answering = sign.link_up
    detail = "" if verdict is Verdict.YES else f"{amount} not seen ({verdict})"
    return [started, Check(sign.name, "answering", answering, "" if answering else "link down"),
            Check(sign.name, f"shows {amount}", verdict is Verdict.YES, detail)]


# ---------------------------------------------------------------- the whole run


def _close_all(devices: Iterable[Any]) -> None:
    for device in devices:
        try:
            device.close()
        except Exception:  # noqa: BLE001 - closing is best effort; failures were reported
            continue


def run(rig: Rig, plan: Plan, floor: Floor, *, operator: str, mode: str,
        input_kinds: Mapping[str, str]) -> Report:
    """Run every check in order and return the report (nothing is raised for a failure)."""
    started = _now()
    checks: list[Check] = []
    checks += [step() for step in (plan.software, plan.journal) if step is not None]
    try:
        for group in _device_groups(rig, plan, floor, input_kinds):
            checks += group()
    finally:
        _close_all(d for d in (rig.shoe, rig.lamps, rig.inputs, rig.sign, rig.camera)
                   if d is not None)
    return Report(operator, mode, started, _now(), tuple(checks))


def _device_groups(rig: Rig, plan: Plan, floor: Floor,
                   kinds: Mapping[str, str]) -> Sequence[Callable[[], list[Check]]]:
    groups: list[Callable[[], list[Check]]] = []
    shoe, lamps, inputs, sign = rig.shoe, rig.lamps, rig.inputs, rig.sign
    if shoe is not None:
        groups.append(lambda: check_shoe(shoe))
    if lamps is not None:
        groups.append(lambda: check_lamps(lamps, floor, plan.lamp_on_s))
    if inputs is not None:
        groups.append(lambda: check_inputs(rig, inputs, kinds, floor, plan.input_timeout_s))
    if sign is not None:
        groups.append(lambda: check_sign(sign, floor, plan.meter_cents))
    if rig.camera is not None:
        camera = rig.camera
        groups.append(lambda: check_camera(camera))
    return groups


def check_camera(camera: CameraSource) -> list[Check]:
    """The cross-check's camera opens and gives a frame (its readings are the run's job)."""
    try:
        camera.open()
        frame = camera.read()
    except DriverError as exc:
        return [Check(camera.name, "frame", False, str(exc))]
    height, width = frame.image.shape[:2]
    emulated = " (EMULATED)" if camera.emulated else ""
    return [Check(camera.name, "frame", True, f"{width}x{height}{emulated}")]


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

    def act(self, action: Action, name: str) -> None:
        """Ask the floorperson to do something to an input (the driver's event answers)."""
        self.say(f">>> {action} {name!r} (within {self._timeout:g} s)")

    def lamp_lit(self, lamp: str) -> Verdict:
        """Ask about one lamp."""
        return self._ask(f"??? Is lamp {lamp!r} lit, and no other? [y/n]")

    def sign_shows(self, text: str, cents: int) -> Verdict:
        """Ask about the sign."""
        return self._ask(f"??? Does the progressive sign show {text}? [y/n]")

    def _ask(self, question: str) -> Verdict:
        self.say(question)
        deadline = time.monotonic() + self._timeout
        while (left := deadline - time.monotonic()) > 0:
            line = _read_line(self._in, left)
            if line is None:
                return Verdict.NO_ANSWER
            answer = line.strip().lower()
            if answer in _YES:
                return Verdict.YES
            if answer in _NO:
                return Verdict.NO
            self.say("    please answer y or n")
        return Verdict.NO_ANSWER


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

    stimulate: Callable[[Action, str], None]
    lamp_state: Callable[[str], LampState | None]
    sign_amount: Callable[[], int | None]
    settle_s: float = 2.0

    def act(self, action: Action, name: str) -> None:
        """Do the action on the emulator."""
        self.stimulate(action, name)

    def lamp_lit(self, lamp: str) -> Verdict:
        """YES once the emulator shows the lamp on (within the settle time)."""
        return self._settle(lambda: self.lamp_state(lamp) is LampState.ON)

    def sign_shows(self, text: str, cents: int) -> Verdict:
        """YES once the sign emulator shows exactly this amount."""
        return self._settle(lambda: self.sign_amount() == cents)

    def _settle(self, seen: Callable[[], bool]) -> Verdict:
        deadline = time.monotonic() + self.settle_s
        while not seen():
            if time.monotonic() >= deadline:
                return Verdict.NO
            time.sleep(0.02)
        return Verdict.YES


# ---------------------------------------------------------------- software and journal


def software_check(manifest: Path | None, required: bool) -> Check | None:
    """The tamper check of the installed files (R16); None when there is nothing to check."""
    if manifest is None:
        if required:
            return Check("software", "manifest", False,
                         "no manifest: not an installed appliance (run `shoectl install`)")
        return None
    report = integrity.verify_manifest(manifest)
    if report.ok:
        return Check("software", "manifest", True,
                     f"{report.files} files intact, signature {report.signature[:16]}")
    more = f" (+{len(report.problems) - 1} more)" if len(report.problems) > 1 else ""
    return Check("software", "manifest", False, report.problems[0] + more)


def journal_check(state_dir: Path) -> Check:
    """The audit journal: hash chain, critical state copies, meters reconcile."""
    if not (state_dir / DB_NAME).exists():
        return Check("journal", "chain", True,
                     f"no journal yet in {state_dir} (new installation): this result starts it")
    try:
        report = audit.verify_state_dir(state_dir)
    except JournalError as exc:
        return Check("journal", "chain", False, str(exc))
    return Check("journal", "chain", report.ok, "; ".join(report.lines))


def record_result(state_dir: Path, report: Report) -> int:
    """Append the `selftest:result` record (R2: who, when, pass or fail); return its seq."""
    store = JournalStore(state_dir, clock=time.monotonic)
    try:
        return store.commit([JournalRecord(JOURNAL_KIND, report.journal_data())], None)
    finally:
        store.close()


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

    def stimulate(action: Action, name: str) -> None:
        if board is None:
            raise DriverError(layout.name, "no layout emulator to stimulate")
        if action is Action.PLACE_CHIP:
            board.place_chip(layout.bet_sensors[name])
        elif action is Action.REMOVE_CHIP:
            board.remove_chip(layout.bet_sensors[name])
        elif action is Action.PRESS:
            board.click(layout.buttons[name])
        else:
            board.turn_key(name if action is Action.TURN_KEY else KEY_NORMAL)

    def lamp_state(lamp: str) -> LampState | None:
        if board is None or lamp not in layout.lamps:
            return None
        mode = board.lamp(layout.lamps[lamp])
        return LampState.ON if mode == "on" else LampState.OFF

    return AutoFloor(stimulate, lamp_state, _sign_reader(sign))


def gpio_floor(layout: LayoutConfig, gpio: GpioTwin, sign: SignTwin | None) -> AutoFloor:
    """The `--auto` floor of a rig whose layout is on (emulated) GPIO pins."""
    active = 0 if layout.pull == "up" else 1  # pulled-up inputs are active low
    hold_s = 3 * layout.debounce_ms / 1000 + 0.02  # long enough to pass the debounce

    def stimulate(action: Action, name: str) -> None:
        pin = layout.inputs()[name]
        if action in (Action.PLACE_CHIP, Action.TURN_KEY, Action.PRESS):
            gpio.drive(pin, active)
        if action is Action.PRESS:
            time.sleep(hold_s)
        if action in (Action.REMOVE_CHIP, Action.TURN_KEY_BACK, Action.PRESS):
            gpio.drive(pin, 1 - active)

    def lamp_state(lamp: str) -> LampState | None:
        if lamp not in layout.lamps:
            return None
        return LampState.ON if gpio.level(layout.lamps[lamp]) else LampState.OFF

    return AutoFloor(stimulate, lamp_state, _sign_reader(sign))


def _sign_reader(sign: SignTwin | None) -> Callable[[], int | None]:
    def sign_amount() -> int | None:
        if sign is None:
            return None
        mode, cents, _text = sign.display()
        return cents if mode == "amount" else None
    return sign_amount


# ---------------------------------------------------------------- the command

SERVICE: Final = "shoectl.service"
SERVICE_USER: Final = "shoectl"
DEFAULT_CONFIG: Final = "/etc/shoectl/config.toml"


class SelftestError(RuntimeError):
    """The self-test cannot run at all (service running, bad configuration, no journal)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shoectl selftest",
        description="Start-of-day self-test (R2): software, journal, shoe, every lamp, sensor, "
                    "button and key switch, and the sign. The result is journalled.")
    parser.add_argument("--operator", required=True, help="who runs the test (journalled)")
    parser.add_argument("--config", type=Path, default=Path(DEFAULT_CONFIG),
                        help=f"table configuration (default {DEFAULT_CONFIG})")
    statedir.add_state_dir_option(parser)
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds to wait for each answer or input (default 30)")
    parser.add_argument("--auto", action="store_true",
                        help="emulated rigs: stimulate the emulators instead of prompting "
                             "(implies --allow-emulated)")
    parser.add_argument("--allow-emulated", action="store_true",
                        help="accept emulated device kinds in the configuration")
    return parser


def _refuse_if_service_active() -> None:
    """The service owns the devices and the journal: it must be stopped first."""
    if shutil.which("systemctl") is None or not Path("/run/systemd/system").is_dir():
        return
    done = subprocess.run(["systemctl", "is-active", "--quiet", SERVICE], check=False)
    if done.returncode == 0:
        raise SelftestError(f"{SERVICE} is running and holds the devices: "
                            f"`systemctl stop shoectl` first, start it again afterwards")


def _drop_root(state_dir: Path) -> None:
    """Run as the service's user, so the journal files it writes stay the service's."""
    if os.geteuid() != 0:
        return
    try:
        user = pwd.getpwnam(SERVICE_USER)
    except KeyError:
        return  # not an installed appliance: a development machine
    state_dir.mkdir(parents=True, exist_ok=True)
    os.initgroups(SERVICE_USER, user.pw_gid)
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)


def _meter_cents(state_dir: Path, reset: int) -> int:
    """The amount the sign should show: the stored meter, else the reset amount."""
    if not (state_dir / DB_NAME).exists():
        return reset
    meters = audit.stored_meters(state_dir)
    return reset if meters is None else meters.amount


def _floor(args: argparse.Namespace, devices: Devices, layout: LayoutConfig | None) -> Floor:
    if not args.auto:
        return ConsoleFloor(sys.stdin, sys.stdout, args.timeout)
    real = [device.name for device in devices.all() if device.name not in devices.emulators]
    if real:
        raise SelftestError(f"--auto needs emulated devices; real: {', '.join(real)}")
    sign = devices.emulators.get("sign")
    if layout is not None and layout.kind == "emulated-gpio":
        return gpio_floor(layout, devices.emulators["layout"], sign)
    return board_floor(layout or _NO_LAYOUT, devices.emulators.get("layout"), sign)


_NO_LAYOUT: Final = LayoutConfig("layout", "emulated", {})


def _run_configured(args: argparse.Namespace, state_dir: Path) -> Report:
    table = load_table_file(args.config)
    raw = table.document.get("devices", {})
    allow = args.auto or args.allow_emulated
    config = parse_devices(raw, allow_emulated=allow, camera_kinds=device_kinds(Role.CAMERA))
    rig = Rig()
    options = BuildOptions()
    if config.camera is not None and is_emulated(config.camera.kind):
        from controller.crosscheck import table_zones
        from controller.tablecamera import emulated_renderer

        zones = table_zones(table.game.table.game, table.game.table.seats)
        options.camera_render = emulated_renderer(config.camera, zones)
    devices = build_devices(config, rig.sink, allow_emulated=allow, options=options)
    try:
        floor = _floor(args, devices, config.layout)
        rig.shoe, rig.lamps, rig.inputs, rig.sign = (devices.shoe, devices.layout,
                                                     devices.layout, devices.sign)
        rig.camera = devices.camera
        plan = Plan(
            software=lambda: software_check(integrity.default_manifest(),
                                            required=not config.emulated) or _DEV_TREE,
            journal=lambda: journal_check(state_dir),
            meter_cents=_meter_cents(state_dir, table.game.progressive.reset),
            input_timeout_s=args.timeout,
        )
        kinds = input_kinds(config.layout) if config.layout else {}
        return run(rig, plan, floor, operator=args.operator,
                   mode="auto" if args.auto else "interactive", input_kinds=kinds)
    finally:
        _close_all([*devices.all(), *devices.emulators.values()])


_DEV_TREE: Final = Check("software", "manifest", True,
                         "development tree on an emulated rig: no manifest to check")


def main(argv: list[str]) -> int:
    """Entry point of `shoectl selftest`; 0 only when every check passed."""
    args = _parser().parse_args(argv)
    if not args.operator.strip():
        sys.stderr.write("shoectl selftest: --operator must name who runs the test\n")
        return 2
    state_dir = statedir.resolve(args.state_dir)
    try:
        _refuse_if_service_active()
        _drop_root(state_dir)
        report = _run_configured(args, state_dir)
        seq = record_result(state_dir, report)
    except (SelftestError, ConfigError, RulesConfigError, DriverError, JournalError,
            OSError) as exc:
        sys.stderr.write(f"shoectl selftest: {exc}\n")
        return 2
    out = sys.stdout if report.passed else sys.stderr
    for line in report.lines():
        out.write(line + "\n")
    out.write(f"recorded in the audit journal as record {seq} ({JOURNAL_KIND})\n")
    return 0 if report.passed else 1
