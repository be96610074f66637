"""The composition root: the only module that builds concrete devices (through the registry).

It reads the table file (game sections via `controller.service.tableconfig`, `[devices.*]` via
`drivers.config`), builds the devices with the loop's `post` as their sink, starts them,
recovers the table from its journal (re-asserting every public output), authenticates the
software (R16) and then runs the loop. Public effects reach the devices through
`DeviceOutputs`; a device that is down only logs here (its driver reports `LinkDown`, which
the procedure turns into a refusal of progressive wagers, R15).

The shoe is built to acknowledge its board's events only once handled: `TableApp.handle`
tells it after the runtime has committed a record of the shoe to the journal, so a card the
Pi received but never recorded (power lost in between) stays with the board, which repeats
it to the next run, where the card-number check takes it as the next card.

What the process around the table provides comes in a `Hosting` (`controller.service.hosting`):
`TableApp.start` records its software check before any device starts, tells its service manager
READY once the table is up, and the loop pings its watchdog only while the table is healthy
(`shoectl run` hands in the appliance's: the manifest check of R16, sd_notify, the watchdog).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.camera.crosscheck import (
    CrossCheck,
    FrameRequests,
    VisionSettings,
    check_positions,
    table_zones,
    vision_settings_from_mapping,
)
from controller.camera.holdem_reader import HoldemReader
from controller.floor.settings import LinkSettings, table_link_from_document
from controller.floor.shipping import JournalShipper
from controller.journal.store import JournalError, JournalStore
from controller.procedure.core.effects import (
    Journal,
    Lamp,
    LaunchWheel,
    PublicEffect,
    SetLamp,
    ShowDealer,
    ShowSign,
)
from controller.procedure.families import family_of
from controller.procedure.shared.setup import Setup
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.service.crash import CrashReport, TableCrashError, crash_report
from controller.service.floor_link import FloorAttachment
from controller.service.hosting import KIND_UNVERIFIED, Hosting, Watchdog
from controller.service.journal_shipping import ship_journal
from controller.service.layout_names import check_layout_names
from controller.service.link_health import CHECK_EVERY_S, LinkHealth
from controller.service.loop import EventLoop
from controller.service.runtime import TableRuntime, config_digest
from controller.service.shoe_numbers import resume_numbering
from controller.service.tableconfig import TableFile
from drivers.board import BoardDriver
from drivers.config import Role, is_emulated, parse_devices
from drivers.errors import DriverError
from drivers.events import CardDrawn, ShoeFault, ShoeLoaded
from drivers.interfaces import LampMode as DeviceLamp
from drivers.registry import BuildOptions, Devices, build_devices, kinds

if TYPE_CHECKING:  # vision and OpenCV load only when a camera is configured
    from controller.camera.emulated import TableRenderer
    from controller.camera.worker import CameraWorker
    from drivers.camera import CameraSource

_LOG = logging.getLogger(__name__)

SIGN_FAULT_TEXT = "PROGRESSIVE OFF"
"""What the sign shows while progressive wagers are refused (R15)."""


class DeviceOutputs:
    """Public effects onto the layout lamps, the jackpot sign and the dealer display."""

    def __init__(self, devices: Devices) -> None:
        self.devices = devices
        self.dealer_text = ""
        self.lamps: dict[str, str] = {}
        self.sign: ShowSign | None = None
        self.linked_sign: Callable[[], tuple[int, str] | None] | None = None
        """A linked table's sign: the group's meter and its text (`service.floor_link`)."""

    def show_sign_again(self) -> None:
        """Show the last sign effect again (a linked meter changed)."""
        if self.sign is not None:
            self._show_sign(self.sign)

    def apply(self, effect: PublicEffect) -> None:
        """Carry out one public effect; a device that is down is logged, never fatal."""
        if isinstance(effect, SetLamp):
            self.lamps[effect.lamp] = effect.state.value
            layout = self.devices.layout
            if layout is not None and effect.lamp in layout.lamp_names:
                _deliver(layout.set_lamp, effect.lamp, DeviceLamp(effect.state.value))
        elif isinstance(effect, ShowSign):
            self.sign = effect
            self._show_sign(effect)
        elif isinstance(effect, ShowDealer):
            self.dealer_text = effect.text
            _LOG.debug("dealer display: %s", effect.text)
        elif isinstance(effect, LaunchWheel) and self.devices.wheel is not None:
            _deliver(self.devices.wheel.launch)

    def _show_sign(self, effect: ShowSign) -> None:
        """Amount, then fault text or win, each step tried on its own.

        A sign that is down is told everything: its driver keeps what it must show and shows
        it again on the reconnection.
        """
        sign = self.devices.sign
        linked = self.linked_sign() if self.linked_sign is not None else None
        fault = effect.message == "FAULT"
        if linked is not None:  # the group's meter, also while this table's link is down
            effect = replace(effect, amount=linked[0],
                             message=effect.message if fault else linked[1] or effect.message)
        if sign is None or effect.amount is None:
            return
        _deliver(sign.show_amount, effect.amount)
        pending = linked[1] if linked is not None else ""
        _deliver(sign.show_fault, SIGN_FAULT_TEXT if fault else pending)
        if not fault and effect.win_seat:
            _deliver(sign.show_win, effect.win_seat, effect.win_cents)

    def fail_safe(self) -> None:
        """The halt path: every lamp off but the fault lamp (flashing), the progressive closed.

        Best effort, device by device: nothing here waits for the journal, and nothing says
        more than that the table has stopped. Closing the devices then puts every board in
        its failsafe state (PROTOCOL.md 10).
        """
        layout, sign = self.devices.layout, self.devices.sign
        if layout is not None:
            _deliver(layout.all_safe)
            if Lamp.FAULT in layout.lamp_names:
                _deliver(layout.set_lamp, str(Lamp.FAULT), DeviceLamp.FLASH)
        if sign is not None:
            _deliver(sign.show_fault, SIGN_FAULT_TEXT)


def _deliver(action: Callable[..., None], *args: Any) -> None:
    """Carry out one device action; a device that is down (or refuses) is logged."""
    try:
        action(*args)
    except DriverError as exc:
        _LOG.warning("public output not delivered: %s", exc)


@dataclass
class TableApp:
    """A built table: devices, loop, runtime (after `start`)."""

    table: TableFile
    devices: Devices
    loop: EventLoop
    state_dir: Path
    burn: bool = True
    meter_start: int | None = None
    wheel_launch: str = "wheel"
    """`[devices.wheel] launch`: `host` when the croupier starts each game (SPIN)."""
    runtime: TableRuntime | None = None
    camera: CameraParts | None = None
    outputs: DeviceOutputs = field(init=False)
    hosting: Hosting = field(default_factory=Hosting)
    software_unverified: bool = field(init=False, default=False)
    floor: LinkSettings | None = None
    """`[progressive] link`: the table's meter is a link group's (docs/floor-protocol.md)."""
    floor_link: FloorAttachment | None = field(init=False, default=None)
    shipper: JournalShipper | None = field(init=False, default=None)
    """A linked table's journal on its way to the floor store (`service.journal_shipping`)."""
    crashed: CrashReport | None = field(init=False, default=None)
    """Set when the loop stopped on an exception (`run_forever`)."""
    link_health: LinkHealth | None = field(init=False, default=None)
    """The boards' refused-frame counters, read every `CHECK_EVERY_S` (after `start`)."""

    def __post_init__(self) -> None:
        self.outputs = DeviceOutputs(self.devices)

    def start(self) -> TableRuntime:
        """Check the software, start the devices, recover the table from its journal.

        Raises:
            DriverError: A device cannot be started (nothing falls back to an emulator).
            Exception: Whatever the hosting's software check raises to refuse the start
                (the installed software does not match its manifest, R16); its records are
                journalled first.
        """
        journal = JournalStore(self.state_dir, clock=time.monotonic)
        checks = _software_checks(journal, self.hosting)
        if self.devices.shoe is not None:
            resume_numbering(self.devices.shoe, journal.load_critical())
        try:
            self._start_devices()
        except DriverError:
            journal.close()
            raise
        if self.devices.unauthenticated:  # known only now: each board's handshake decides it
            _LOG.warning("UNAUTHENTICATED boards (auth = \"none\"): %s",
                         ", ".join(self.devices.unauthenticated))
        setup = Setup(self.table.game, burn=self.burn, wheel_launch=self.wheel_launch)
        digest = config_digest(self.table.document)
        self.runtime = TableRuntime(setup, journal, self.outputs,
                                    family_of(self.table.game.table.game).model, digest,
                                    meter_start=self.meter_start)
        for kind, data in checks:
            self.runtime.record(kind, data)
        model = self.runtime.model
        if model.run_timers_on(self.loop, self.runtime.fire, self.runtime.fire_together):
            self.runtime.commit_pending()  # a restored round's timers, journalled now
        self.software_unverified = any(kind == KIND_UNVERIFIED for kind, _ in checks)
        if self.camera is not None:
            self.runtime.crosscheck = self.camera.crosscheck
            if isinstance(self.camera.crosscheck, HoldemReader):
                reader = self.camera.crosscheck
                reader.attach(lambda: self.runtime.model if self.runtime else None)
                self.runtime.watchers.append(lambda _runtime: reader.look())
            self.camera.start()
        if self.floor is not None:
            self.floor_link = FloorAttachment(self.floor, self.table.game.table.name,
                                              self.runtime, self.loop,
                                              self.outputs.show_sign_again)
            self.outputs.linked_sign = self.floor_link.sign
            self.floor_link.start()
            self.shipper = ship_journal(self.floor, self.table.game.table.name, self.runtime,
                                        self.floor_link.link)
        self.link_health = LinkHealth(
            {device.name: device.frame_faults for device in self.devices.all()
             if isinstance(device, BoardDriver)}, self.loop.clock)
        self.loop.call_later(CHECK_EVERY_S, self._check_links)
        self.hosting.manager.ready(self.status_line())
        return self.runtime

    def _check_links(self) -> None:
        """Journal the bursts of refused frames that ended; show the lines in alarm."""
        self.loop.call_later(CHECK_EVERY_S, self._check_links)
        health, runtime = self.link_health, self.runtime
        if health is None or runtime is None:
            return
        effects = health.check()
        alarms = health.alarms()
        refused = {name: frames.total for name, frames in health.totals().items()
                   if frames.total}
        model = runtime.model
        if effects or alarms != model.link_alarms or refused != model.link_frames:
            model.link_alarms, model.link_frames = alarms, refused
            runtime.commit_effects(effects)
            self.hosting.manager.status(self.status_line())

    def status_line(self) -> str:
        """The service manager's status: the table, its state, and what a live table lacks.

        That is EMULATED devices, UNAUTHENTICATED boards (`auth = "none"`) and UNVERIFIED
        software (no manifest checked: a development tree run with --unverified-software).
        """
        assert self.runtime is not None
        marks = [f"{mark} {', '.join(names)}" for mark, names in (
            ("EMULATED", self.devices.emulated),
            ("UNAUTHENTICATED", self.devices.unauthenticated)) if names]
        refused = self.runtime.model.link_frames
        if refused:
            marks.append("BAD FRAMES " + ", ".join(f"{name} {count}"
                                                   for name, count in sorted(refused.items())))
        if self.software_unverified:
            marks.append("UNVERIFIED software")
        line = f"table {self.table.game.table.name}: {self.runtime.model.state}"
        return " - ".join([line, *marks])

    def _start_devices(self) -> None:
        """Start every device but the camera: its worker opens it.

        A camera that is down is a cross-check condition (`[vision] on_camera_down`), not a
        reason to refuse start-up.
        """
        camera = self.camera.source if self.camera is not None else None
        self.devices.start(skip=(camera,) if camera is not None else ())

    def handle(self, event: object) -> None:
        """The loop handler (events that arrive before `start` wait in the loop).

        Once the runtime has returned (the journal holds the event), a shoe's record is
        declared handled, and only then does its board drop the events behind it; if the
        runtime raises, nothing is declared and the board keeps them.
        """
        assert self.runtime is not None
        self.runtime.handle(event)
        shoe = self.devices.shoe
        if shoe is not None and isinstance(event, CardDrawn | ShoeFault | ShoeLoaded):
            shoe.handled(event)

    def run_forever(self) -> None:
        """Run the loop until `loop.stop()`, pinging the watchdog while healthy.

        The exception boundary of the table: an exception that escapes the loop (its handler,
        a timer, a watcher, the journal, a full event queue) drives every output safe first,
        then journals `system:crash` (when the journal still takes it), and is raised again
        as a `TableCrashError`; `close` then records no orderly power-off.

        Raises:
            TableCrashError: The loop stopped on an exception.
        """
        watchdog = self.hosting.watchdog
        if watchdog.period_s:
            self._schedule_watchdog(watchdog, watchdog.period_s / 2)
        try:
            self.loop.run_forever()
        except Exception as exc:
            raise self._crash(exc) from exc

    def _crash(self, exc: Exception) -> TableCrashError:
        report = crash_report(exc)
        self.crashed = report
        _LOG.error("the table stopped: %s", report.line())
        self.outputs.fail_safe()
        journalled = self._journal_crash(report)
        return TableCrashError(report, journal_failed=isinstance(exc, JournalError),
                               journalled=journalled)

    def _journal_crash(self, report: CrashReport) -> bool:
        """Append `system:crash`, keeping the critical state of the last good commit."""
        runtime = self.runtime
        if runtime is None:
            return False
        model = runtime.model
        try:
            runtime.journal.commit([Journal("system:crash", report.record(
                model.state, model.round.number))], None)
        except Exception as exc:  # noqa: BLE001 (the journal may be what failed: say so, go on)
            _LOG.error("system:crash not journalled: %s", crash_report(exc).line())
            return False
        return True

    def _schedule_watchdog(self, watchdog: Watchdog, every: float) -> None:
        def tick() -> None:
            watchdog.tick(self.healthy())
            self.loop.call_later(every, tick)
        self.loop.call_later(every, tick)

    def healthy(self) -> bool:
        """The loop runs and the journal answers (a held table is healthy: it waits)."""
        return self.runtime is not None and self.runtime.journal_ok()

    def close(self, reason: str = "stop") -> None:
        """Record the power-off, close the devices (outputs to safe) and the journal.

        After a crash no power-off is recorded: the next start finds `system:crash` last.
        """
        self.hosting.manager.stopping(reason)
        if self.camera is not None:
            self.camera.close()
        if self.shipper is not None:  # first: it ships over the floor link's connection
            self.shipper.stop()
        if self.floor_link is not None:
            self.floor_link.stop()
        if self.runtime is not None:
            if self.crashed is None:  # a crash is journalled as one, never as power:off
                self.runtime.shutdown(reason)
            self.runtime.journal.close()
        self.devices.close()


def _software_checks(journal: JournalStore, hosting: Hosting) -> list[tuple[str, dict[str, Any]]]:
    """Run the hosting's software check (R16); return the records it made.

    Raises:
        Exception: The check refused the start. Refused before power-on: its records are
            journaled (and the journal closed), nothing else runs.
    """
    checks: list[tuple[str, dict[str, Any]]] = []
    try:
        hosting.authenticate(lambda kind, data: checks.append((kind, data)))
    except Exception:
        journal.commit([Journal(kind, data) for kind, data in checks], None)
        journal.close()
        raise
    return checks


def build_app(table: TableFile, *, allow_emulated: bool, state_dir: Path,
              devices: Mapping[str, Any] | None = None, burn: bool = True,
              meter_start: int | None = None, options: BuildOptions | None = None,
              hosting: Hosting | None = None) -> TableApp:
    """Build (not start) the table: devices through the registry, the loop as their sink.

    Args:
        table: The table file.
        allow_emulated: True only with the explicit `--allow-emulated` flag.
        state_dir: Where the journal lives.
        devices: `[devices]` to use instead of the file's (the simulation's own rig).
        burn: Burn a card after each shuffle (False for scripted shoes).
        meter_start: Meter amount for a brand-new journal (default: the reset amount).
        options: Registry build options.
        hosting: The software check, service manager and watchdog (default: none, the
            software recorded as unverified).

    Raises:
        ConfigError: A bad `[devices.*]` section (naming device and key), a game with no
            table procedure, or a table without the device it deals from (`[devices.shoe]`,
            at roulette `[devices.wheel]`, at hold'em `[devices.camera]`), a layout lamp, bet
            sensor or button of the file that the game never uses, or a `[table]
            sensor_cents` sensor that is not one of the layout's bet sensors.
        DriverError: A device cannot be built.
    """
    family_of(table.game.table.game)  # a game with no procedure is refused up front
    raw = devices if devices is not None else table.document.get("devices", {})
    config = parse_devices(raw, allow_emulated=allow_emulated, camera_kinds=kinds(Role.CAMERA),
                           base=table.base)
    if table.game.table.game is Game.ROULETTE and config.wheel is None:
        raise ConfigError("[devices.wheel]: a roulette table needs its wheel's result feed "
                          "(kind = \"serial\" with its url; drivers/WHEEL.md)")
    if table.game.table.game is Game.HOLDEM and config.camera is None:
        raise ConfigError("[devices.camera]: missing: a holdem table's cards are read by its "
                          "overhead camera (drivers/DEVICES.md)")
    if table.game.table.game not in (Game.ROULETTE, Game.HOLDEM) and config.shoe is None:
        raise ConfigError(f"[devices.shoe]: missing: a {table.game.table.game.value} table "
                          "deals from a shoe scanner (kind = \"serial\" or \"usb\" with its "
                          "port; drivers/DEVICES.md)")
    if devices is None and config.layout is not None:  # the simulation's rig has every name
        check_layout_names(table.game, config.layout)
    _check_sensor_cents(table, config.layout.bet_sensors if config.layout else {})
    vision = vision_settings_from_mapping(table.document.get("vision"))
    if vision.profile:  # a relative profile lies beside the table file
        vision = replace(vision, profile=str(table.base / vision.profile))
    zones = table_zones(Game(table.game.table.game), table.game.table.seats)
    check_positions(vision, zones)
    loop = EventLoop()
    # The shoe's board keeps each event until the journal holds it (`TableApp.handle`).
    options = replace(options or BuildOptions(), ack_when_handled=True)
    renderer = None
    if config.camera is not None and is_emulated(config.camera.kind):
        from controller.camera.emulated import emulated_renderer

        renderer = emulated_renderer(config.camera, zones)
        options.camera_render = renderer
    built = build_devices(config, loop.post, allow_emulated=allow_emulated, options=options)
    try:
        app = TableApp(table, built, loop, state_dir, burn=burn, meter_start=meter_start,
                       wheel_launch=config.wheel.launch if config.wheel else "wheel",
                       hosting=hosting or Hosting(),
                       floor=_floor_link(table))
        if built.camera is not None:
            app.camera = _camera_parts(built.camera, vision, zones, renderer, loop,
                                       holdem=table.game.table.game is Game.HOLDEM)
    except BaseException:
        built.close()  # nothing built for a table that is refused outlives it (its keys)
        raise
    loop.set_handler(app.handle)
    return app


def _check_sensor_cents(table: TableFile, sensors: Mapping[str, int]) -> None:
    """Every `[table] sensor_cents` sensor must be one of `[devices.layout] bet_sensors`."""
    for name, _cents in table.game.table.sensor_cents:
        if name not in sensors:
            raise ConfigError(f"[table] sensor_cents: {name} is not one of [devices.layout] "
                              f"bet_sensors ({', '.join(sensors) or 'none'})")


def _floor_link(table: TableFile) -> LinkSettings | None:
    try:
        return table_link_from_document(table.document, table.base)
    except ConfigError as exc:
        raise ConfigError(f"{table.source}: {exc}") from None


@dataclass
class CameraParts:
    """The cross-check's pieces: the camera, its worker thread and the loop-side judge.

    At a hold'em table the judge is the card reader (`HoldemReader`): the camera reads the
    cards there, no shoe does.
    """

    source: CameraSource
    worker: CameraWorker
    crosscheck: CrossCheck | HoldemReader

    def start(self) -> None:
        """Start the worker and ask for a first frame (is the camera there?)."""
        self.worker.start()
        self.crosscheck.probe()

    def close(self) -> None:
        """Stop the worker (the camera closes with the other devices)."""
        self.worker.close()


def _camera_parts(source: CameraSource, vision: VisionSettings, zones: tuple[str, ...],
                  renderer: TableRenderer | None, loop: EventLoop, *,
                  holdem: bool = False) -> CameraParts:
    """Recogniser, worker and cross-check for the configured camera (vision loads here)."""
    from controller.camera.worker import (
        CameraWorker,
        FramePart,
        layout_points,
        slot_boxes,
        slot_card_width,
    )
    from vision import Recognizer, VisionError, load_generic_profile, load_profile

    try:
        profile = load_profile(Path(vision.profile)) if vision.profile else load_generic_profile()
    except (VisionError, OSError) as exc:
        raise ConfigError(f"[vision] profile: {exc}") from exc
    fixed = {name: (x, y) for name, x, y in vision.positions}

    def points(width: int, height: int) -> dict[str, tuple[float, float]]:
        if fixed:
            return fixed
        if renderer is not None and renderer.size == (width, height):
            return dict(renderer.points)
        return layout_points(zones, (width, height))

    def boxes(width: int, height: int) -> dict[str, FramePart]:
        if fixed:  # configured points, no slots: the card's size there is not known
            return {}
        if renderer is not None and renderer.size == (width, height):
            return slot_boxes(renderer.points, renderer.card_width, (width, height))
        return slot_boxes(layout_points(zones, (width, height)),
                          slot_card_width(zones, (width, height)), (width, height))

    worker = CameraWorker(source, Recognizer(profile).recognize, loop.post, points, boxes)
    requests: FrameRequests = worker
    if holdem:
        return CameraParts(source, worker, HoldemReader(vision, requests, loop.call_later))
    return CameraParts(source, worker, CrossCheck(vision, requests, loop.call_later))
