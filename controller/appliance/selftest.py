"""The start-of-day self-test: the floorperson runs before opening the table (R2).

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

import datetime
import queue
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Protocol

from controller.appliance import integrity
from controller.journal import audit
from controller.journal.store import DB_NAME, JournalError, JournalStore
from controller.procedure.core.effects import Journal as JournalRecord
from controller.rules.money import format_cents
from drivers.camera import CameraSource
from drivers.config import KEY_NORMAL
from drivers.errors import DriverError
from drivers.events import BetSensorChanged, ButtonPressed, DriverEvent, KeySwitchTurned
from drivers.interfaces import JackpotSign, LampMode, LayoutInputs, LayoutLamps, ShoeScanner

JOURNAL_KIND: Final = "selftest:result"


class Answer(StrEnum):
    """The floorperson's (or the emulator's) answer to one question."""

    YES = "yes"
    NO = "no"
    NO_ANSWER = "no answer"


class FloorAction(StrEnum):
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

    def act(self, action: FloorAction, name: str) -> None:
        """Ask for (or perform) one action on an input."""

    def lamp_lit(self, lamp: str) -> Answer:
        """Is this lamp lit now (and no other)?"""

    def sign_shows(self, text: str, cents: int) -> Answer:
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
class SelftestPlan:
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
    marks = (" (EMULATED)" if device.emulated else "") + (
        " (UNAUTHENTICATED)" if getattr(device, "authenticated", True) is False else "")
    return Check(name, "handshake", True, "answered" + marks)


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
            lamps.set_lamp(lamp, LampMode.ON)
            sleep(on_s)
            verdict = floor.lamp_lit(lamp)
            lamps.set_lamp(lamp, LampMode.OFF)
            checks.append(Check(lamps.name, f"lamp {lamp}", verdict is Answer.YES,
                                "" if verdict is Answer.YES else f"not seen lit ({verdict})"))
    except Exception as exc:  # noqa: BLE001 - a driver error fails the lamp check, named
        checks.append(Check(lamps.name, "lamps", False, f"{type(exc).__name__}: {exc}"))
    return checks


def _steps(inputs: LayoutInputs,
           kinds: Mapping[str, str]) -> Iterator[tuple[FloorAction, str, str]]:
    """(action, input name, kind) for every input, in configuration order."""
    for name in inputs.input_names:
        kind = kinds.get(name, "sensor")
        if kind == "sensor":
            yield FloorAction.PLACE_CHIP, name, kind
            yield FloorAction.REMOVE_CHIP, name, kind
        elif kind == "button":
            yield FloorAction.PRESS, name, kind
        else:
            yield FloorAction.TURN_KEY, name, kind
            yield FloorAction.TURN_KEY_BACK, name, kind


def _expected(action: FloorAction, name: str) -> Callable[[DriverEvent], bool]:
    def matches(event: DriverEvent) -> bool:
        if action in (FloorAction.PLACE_CHIP, FloorAction.REMOVE_CHIP):
            return (isinstance(event, BetSensorChanged) and event.sensor == name
                    and event.occupied == (action is FloorAction.PLACE_CHIP))
        if action is FloorAction.PRESS:
            return isinstance(event, ButtonPressed) and event.button == name
        position = name if action is FloorAction.TURN_KEY else KEY_NORMAL
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
    detail = "" if verdict is Answer.YES else f"{amount} not seen ({verdict})"
    return [started, Check(sign.name, "answering", answering, "" if answering else "link down"),
            Check(sign.name, f"shows {amount}", verdict is Answer.YES, detail)]


# ---------------------------------------------------------------- the whole run


def close_all(devices: Iterable[Any]) -> None:
    """Close every device (best effort: a failure to close was reported by its check)."""
    for device in devices:
        try:
            device.close()
        except Exception:  # noqa: BLE001 - closing is best effort; failures were reported
            continue


def run(rig: Rig, plan: SelftestPlan, floor: Floor, *, operator: str, mode: str,
        input_kinds: Mapping[str, str]) -> Report:
    """Run every check in order and return the report (nothing is raised for a failure)."""
    started = _now()
    checks: list[Check] = []
    checks += [step() for step in (plan.software, plan.journal) if step is not None]
    try:
        for group in _device_groups(rig, plan, floor, input_kinds):
            checks += group()
    finally:
        close_all(d for d in (rig.shoe, rig.lamps, rig.inputs, rig.sign, rig.camera)
                   if d is not None)
    return Report(operator, mode, started, _now(), tuple(checks))


def _device_groups(rig: Rig, plan: SelftestPlan, floor: Floor,
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


