"""The composition root: the only module that builds concrete devices (through the registry).

It reads the table file (game sections via `controller.tableconfig`, `[devices.*]` via
`drivers.config`), builds the devices with the loop's `post` as their sink, starts them,
recovers the table from its journal (re-asserting every public output), authenticates the
software (R16) and then runs the loop. Public effects reach the devices through
`DeviceOutputs`; a device that is down only logs here (its driver reports `LinkDown`, which
the procedure turns into a refusal of progressive wagers, R15).

Hook points for the appliance: `TableApp.start` records the software check through
`controller.integrity.authenticate_at_start`, sends READY through `controller.sdnotify`, and
the loop pings the watchdog only while the table is healthy.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller import integrity, sdnotify
from controller.baccarat import BaccaratModel
from controller.blackjack import BlackjackModel
from controller.effects import Journal, PublicEffect, SetLamp, ShowDealer, ShowSign
from controller.journal import JournalStore
from controller.loop import EventLoop
from controller.rules.hands import Game
from controller.runtime import TableRuntime, config_digest
from controller.tableconfig import TableFile
from controller.tablemodel import Setup
from drivers.config import Role, parse_devices
from drivers.errors import DriverError
from drivers.interfaces import LampState as DeviceLamp
from drivers.registry import BuildOptions, Devices, build_devices, kinds

_LOG = logging.getLogger(__name__)

SIGN_FAULT_TEXT = "PROGRESSIVE OFF"


class DeviceOutputs:
    """Public effects onto the layout lamps, the jackpot sign and the dealer display."""

    def __init__(self, devices: Devices) -> None:
        self.devices = devices
        self.dealer_text = ""
        self.lamps: dict[str, str] = {}
        self.sign: ShowSign | None = None

    def apply(self, effect: PublicEffect) -> None:
        """Carry out one public effect; a device that is down is logged, never fatal."""
        try:
            self._apply(effect)
        except DriverError as exc:
            _LOG.warning("public output not delivered: %s", exc)

    def _apply(self, effect: PublicEffect) -> None:
        if isinstance(effect, SetLamp):
            self.lamps[effect.lamp] = effect.state.value
            layout = self.devices.layout
            if layout is not None and effect.lamp in layout.lamp_names:
                layout.set_lamp(effect.lamp, DeviceLamp(effect.state.value))
        elif isinstance(effect, ShowSign):
            self.sign = effect
            self._show_sign(effect)
        elif isinstance(effect, ShowDealer):
            self.dealer_text = effect.text
            _LOG.debug("dealer display: %s", effect.text)

    def _show_sign(self, effect: ShowSign) -> None:
        sign = self.devices.sign
        if sign is None or effect.amount is None:
            return
        sign.show_amount(effect.amount)
        if effect.message == "FAULT":
            sign.show_fault(SIGN_FAULT_TEXT)
            return
        sign.show_fault("")
        if effect.win_seat:
            sign.show_win(effect.win_seat, effect.win_cents)


def model_factory(game: Game) -> Callable[..., Any]:
    """The procedure model of a game's family."""
    return BaccaratModel if game is Game.BACCARAT else BlackjackModel


@dataclass
class TableApp:
    """A built table: devices, loop, runtime (after `start`)."""

    table: TableFile
    devices: Devices
    loop: EventLoop
    state_dir: Path
    burn: bool = True
    meter_start: int | None = None
    runtime: TableRuntime | None = None
    outputs: DeviceOutputs = field(init=False)
    notifier: sdnotify.Notifier = field(default_factory=sdnotify.Notifier.from_environment)

    def __post_init__(self) -> None:
        self.outputs = DeviceOutputs(self.devices)

    def start(self, *, require_authentic: bool) -> TableRuntime:
        """Start the devices, recover the table from its journal, check the software.

        Raises:
            DriverError: A device cannot be started (nothing falls back to an emulator).
            IntegrityError: The installed software does not match its manifest (R16).
        """
        journal = JournalStore(self.state_dir, clock=time.monotonic)
        checks: list[tuple[str, dict[str, Any]]] = []
        try:
            integrity.authenticate_at_start(lambda kind, data: checks.append((kind, data)),
                                            required=require_authentic)
        except integrity.IntegrityError:
            # Refused before power-on: the mismatch is journaled, nothing else runs (R16).
            journal.commit([Journal(kind, data) for kind, data in checks], None)
            journal.close()
            raise
        try:
            self.devices.start()
        except DriverError:
            journal.close()
            raise
        setup = Setup(self.table.game, burn=self.burn)
        digest = config_digest(self.table.document)
        self.runtime = TableRuntime(setup, journal, self.outputs,
                                    model_factory(self.table.game.table.game), digest,
                                    meter_start=self.meter_start)
        for kind, data in checks:
            self.runtime.record(kind, data)
        self.notifier.ready(f"table {self.table.game.table.name}: {self.runtime.model.state}")
        return self.runtime

    def handle(self, event: object) -> None:
        """The loop handler (events that arrive before `start` wait in the loop)."""
        assert self.runtime is not None
        self.runtime.handle(event)

    def run_forever(self) -> None:
        """Run the loop until `loop.stop()`, pinging the watchdog while healthy."""
        watchdog = sdnotify.LoopWatchdog.from_environment(self.notifier)
        if watchdog.period_s:
            self._schedule_watchdog(watchdog, watchdog.period_s / 2)
        self.loop.run_forever()

    def _schedule_watchdog(self, watchdog: sdnotify.LoopWatchdog, every: float) -> None:
        def tick() -> None:
            watchdog.tick(self.healthy())
            self.loop.call_later(every, tick)
        self.loop.call_later(every, tick)

    def healthy(self) -> bool:
        """The loop runs and the journal answers (a held table is healthy: it waits)."""
        return self.runtime is not None and self.runtime.journal_ok()

    def close(self, reason: str = "stop") -> None:
        """Record the power-off, close the devices (outputs to safe) and the journal."""
        self.notifier.stopping(reason)
        if self.runtime is not None:
            self.runtime.shutdown(reason)
            self.runtime.journal.close()
        self.devices.close()


def build_app(table: TableFile, *, allow_emulated: bool, state_dir: Path,
              devices: Mapping[str, Any] | None = None, burn: bool = True,
              meter_start: int | None = None, options: BuildOptions | None = None) -> TableApp:
    """Build (not start) the table: devices through the registry, the loop as their sink.

    Args:
        table: The table file.
        allow_emulated: True only with the explicit `--allow-emulated` flag.
        state_dir: Where the journal lives.
        devices: `[devices]` to use instead of the file's (the simulation's own rig).
        burn: Burn a card after each shuffle (False for scripted shoes).
        meter_start: Meter amount for a brand-new journal (default: the reset amount).
        options: Registry build options.

    Raises:
        ConfigError: A bad `[devices.*]` section (naming device and key).
        DriverError: A device cannot be built.
    """
    raw = devices if devices is not None else table.document.get("devices", {})
    config = parse_devices(raw, allow_emulated=allow_emulated, camera_kinds=kinds(Role.CAMERA))
    loop = EventLoop(_not_started)
    built = build_devices(config, loop.post, allow_emulated=allow_emulated, options=options)
    app = TableApp(table, built, loop, state_dir, burn=burn, meter_start=meter_start)
    loop.set_handler(app.handle)
    return app


def _not_started(event: object) -> None:
    raise RuntimeError("the table handled an event before it was started")
