"""The self-test of a configured table: its devices built from the table file, the floor chosen.

`run_configured` builds the devices of the table file's `[devices.*]` (emulated kinds only when
allowed), picks who answers (the floorperson at the terminal, or the emulators with `auto`),
and runs every check of `controller.appliance.selftest`. The service must be stopped (it owns
the devices) and, as root, the test drops to the service's user so the journal stays its own.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from controller.appliance import integrity
from controller.appliance.selftest import (
    Check,
    Floor,
    Report,
    Rig,
    SelftestPlan,
    close_all,
    journal_check,
    run,
    software_check,
)
from controller.appliance.selftest_floors import ConsoleFloor, board_floor, gpio_floor, input_kinds
from controller.journal import audit
from controller.journal.store import DB_NAME
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.service.layout_names import check_layout_names
from controller.service.tableconfig import load_table_file
from drivers.config import LayoutConfig, Role, is_emulated, parse_devices
from drivers.registry import BuildOptions, Devices, build_devices
from drivers.registry import kinds as device_kinds

SERVICE: Final = "shoectl.service"
SERVICE_USER: Final = "shoectl"
DEFAULT_CONFIG: Final = "/etc/shoectl/config.toml"


class SelftestError(RuntimeError):
    """The self-test cannot run at all (service running, bad configuration, no journal)."""


def refuse_if_service_active() -> None:
    """The service owns the devices and the journal: it must be stopped first."""
    if shutil.which("systemctl") is None or not Path("/run/systemd/system").is_dir():
        return
    done = subprocess.run(["systemctl", "is-active", "--quiet", SERVICE], check=False)
    if done.returncode == 0:
        raise SelftestError(f"{SERVICE} is running and holds the devices: "
                            f"`systemctl stop shoectl` first, start it again afterwards")


def drop_root(state_dir: Path) -> None:
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


def _floor(auto: bool, timeout_s: float, devices: Devices, layout: LayoutConfig | None) -> Floor:
    if not auto:
        return ConsoleFloor(sys.stdin, sys.stdout, timeout_s)
    real = [device.name for device in devices.all() if device.name not in devices.emulators]
    if real:
        raise SelftestError(f"--auto needs emulated devices; real: {', '.join(real)}")
    sign = devices.emulators.get("sign")
    if layout is not None and layout.kind == "emulated-gpio":
        return gpio_floor(layout, devices.emulators["layout"], sign)
    return board_floor(layout or _NO_LAYOUT, devices.emulators.get("layout"), sign)


_NO_LAYOUT: Final = LayoutConfig("layout", "emulated", {})


def run_configured(config_file: Path, state_dir: Path, *, operator: str, timeout_s: float,
                   auto: bool, allow_emulated: bool, unverified_software: bool = False) -> Report:
    """Build the table file's devices and run every check on them (`auto`: on the emulators).

    Raises:
        SelftestError: `auto` on a rig with real devices.
        ConfigError: A bad table file (rules or devices, or a layout name the game never
            uses), naming section and key.
        DriverError: A device cannot be built.
    """
    table = load_table_file(config_file)
    raw = table.document.get("devices", {})
    allow = auto or allow_emulated
    config = parse_devices(raw, allow_emulated=allow, camera_kinds=device_kinds(Role.CAMERA),
                           base=table.base)
    if config.layout is not None:  # a name the game never uses would pass its test unused
        try:
            check_layout_names(table.game, config.layout)
        except ConfigError as exc:
            raise ConfigError(f"{config_file}: {exc}") from None
    rig = Rig()
    options = BuildOptions()
    if config.camera is not None and is_emulated(config.camera.kind):
        from controller.camera.crosscheck import table_zones
        from controller.camera.emulated import emulated_renderer

        zones = table_zones(Game(table.game.table.game), table.game.table.seats)
        options.camera_render = emulated_renderer(config.camera, zones)
    devices = build_devices(config, rig.sink, allow_emulated=allow, options=options)
    try:
        floor = _floor(auto, timeout_s, devices, config.layout)
        rig.shoe, rig.lamps, rig.inputs, rig.sign = (devices.shoe, devices.layout,
                                                     devices.layout, devices.sign)
        rig.camera = devices.camera
        plan = SelftestPlan(
            software=lambda: software_check(integrity.default_manifest(),
                                            required=not unverified_software) or _DEV_TREE,
            journal=lambda: journal_check(state_dir),
            meter_cents=_meter_cents(state_dir, table.game.progressive.reset),
            input_timeout_s=timeout_s,
        )
        kinds = input_kinds(config.layout) if config.layout else {}
        return run(rig, plan, floor, operator=operator,
                   mode="auto" if auto else "interactive", input_kinds=kinds)
    finally:
        close_all([*devices.all(), *devices.emulators.values()])


_DEV_TREE: Final = Check("software", "manifest", True,
                         "UNVERIFIED: a development tree (--unverified-software), no "
                         "manifest checked")


