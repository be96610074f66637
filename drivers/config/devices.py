"""The `[devices.*]` sections of the table configuration, validated into frozen records.

Each section's name is the device's role (`shoe`, `layout`, `sign`, `camera`) and its `kind`
picks the implementation. Every key is checked: an unknown key, a wrong type, an out-of-range
value, a bad or doubly used GPIO pin, or an emulated kind (or a camera of recorded frames)
without the explicit flag each raise `DeviceConfigError` naming the section and the key,
e.g. `[devices.shoe] url: ...`. A board (shoe, layout board, sign) also says what it must
prove at every connection (`BoardTrust`): its pairing key (`auth`, `key_file`) and the
firmware versions accepted (`firmware`).

Example::

    [devices.shoe]
    kind = "serial"                 # serial | usb | emulated
    url = "/dev/shoe-scanner"       # any pyserial URL: spy://, socket://, hwgrep://...
    baud = 115200
    timeout_ms = 750                # link declared down after this much silence
    firmware = ["2.0.3"]            # the firmware versions accepted (none listed: none)
    key_file = "/etc/shoectl/keys/shoe.key"   # the default; auth = "none" for bench rigs

    [devices.layout]
    kind = "gpio"                   # gpio | serial | emulated
    lamps = { spot_1 = 17, spot_2 = 27 }       # BCM pin numbers (channels when serial)
    bet_sensors = { spot_1 = 5, spot_2 = 6 }
    buttons = { no_more_bets = 13 }
    key_switches = { supervisor = 19 }
    debounce_ms = 20
    pull = "up"                     # inputs pulled up, active low

    [devices.sign]
    kind = "serial"                 # serial | emulated
    url = "/dev/jackpot-sign"
    timeout_ms = 750
"""


from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from confkeys import DEVICE, Section
from drivers.config.layout import LayoutConfig, read_layout
from drivers.config.roles import EMULATED, Role, stands_in
from drivers.config.shoe import ShoeConfig, read_shoe
from drivers.config.sign import SignConfig, read_sign
from drivers.config.wheel import WheelConfig, read_wheel
from drivers.errors import DeviceConfigError


def device_section(name: str, raw: Mapping[str, Any], base: Path | None = None) -> Section:
    """A `[devices.<name>]` section read with the device wording and `DeviceConfigError`.

    Relative paths in it (`key_file`, a port's device path, `script_file`, `replay`) are
    read from `base`, the folder of the table file that holds the section.
    """
    return Section(name, raw, phrases=DEVICE, error=DeviceConfigError,
                   base=str(base) if base is not None else None)


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """`[devices.camera]`: its keys other than `kind` belong to the camera driver.

    Attributes:
        name: Section name.
        kind: A camera kind registered by `drivers.camera`.
        options: The section's other keys, validated by the camera driver.
        base: The folder a relative path among them is read from (the table file's).
    """

    name: str
    kind: str
    options: Mapping[str, Any]
    base: Path | None = None


DeviceConfig = ShoeConfig | LayoutConfig | SignConfig | CameraConfig | WheelConfig


KINDS: Final[dict[Role, tuple[str, ...]]] = {
    Role.SHOE: ("serial", "usb", EMULATED),
    Role.LAYOUT: ("gpio", "serial", EMULATED, "emulated-gpio"),
    Role.SIGN: ("serial", EMULATED),
    Role.WHEEL: ("serial", EMULATED),
}


@dataclass(frozen=True, slots=True)
class DevicesConfig:
    """Every configured device, by role; a role not configured is None."""

    shoe: ShoeConfig | None = None
    layout: LayoutConfig | None = None
    sign: SignConfig | None = None
    camera: CameraConfig | None = None
    wheel: WheelConfig | None = None

    def all(self) -> tuple[DeviceConfig, ...]:
        """The configured devices, in a fixed order."""
        found = (self.shoe, self.layout, self.sign, self.camera, self.wheel)
        return tuple(device for device in found if device is not None)

    @property
    def emulated(self) -> tuple[str, ...]:
        """Names of the devices that stand in for hardware (emulated, recorded frames)."""
        return tuple(device.name for device in self.all() if stands_in(device.name, device.kind))

    @property
    def unauthenticated(self) -> tuple[str, ...]:
        """Names of the boards configured with `auth = "none"`."""
        return tuple(device.name for device in (self.shoe, self.layout, self.sign)
                     if device is not None and not device.trust.paired
                     and device.kind not in ("gpio", "emulated-gpio"))


def parse_devices(
    devices: Mapping[str, Any],
    *,
    allow_emulated: bool,
    camera_kinds: tuple[str, ...] = (),
    base: Path | None = None,
) -> DevicesConfig:
    """Validate the `[devices]` table into a `DevicesConfig`.

    Args:
        devices: The parsed `devices` table (`tomllib` output), one sub-table per device.
        allow_emulated: True only when the process was started with the explicit flag.
        camera_kinds: Kinds accepted for `[devices.camera]` (from the camera driver).
        base: The folder of the table file: relative paths are read from it (None: from
            the working folder, for a `[devices]` no file holds).

    Raises:
        DeviceConfigError: Naming the device and the key.
    """
    found: dict[str, DeviceConfig] = {}
    for name, raw in devices.items():
        if not isinstance(raw, Mapping):
            raise DeviceConfigError(name, "", f"expected a table [devices.{name}]")
        found[name] = parse_device(name, raw, allow_emulated=allow_emulated,
                                   camera_kinds=camera_kinds, base=base)
    return DevicesConfig(**found)  # type: ignore[arg-type]


def parse_device(
    name: str,
    raw: Mapping[str, Any],
    *,
    allow_emulated: bool,
    camera_kinds: tuple[str, ...] = (),
    base: Path | None = None,
) -> DeviceConfig:
    """Validate one `[devices.<name>]` section; see `parse_devices`."""
    roles = tuple(role.value for role in Role)
    if name not in roles:
        raise DeviceConfigError(name, "", f"unknown device; expected one of {', '.join(roles)}")
    role = Role(name)
    section = device_section(name, raw, base)
    kinds = camera_kinds if role is Role.CAMERA else KINDS[role]
    kind = section.choice("kind", kinds) if kinds else section.get("kind", str)
    if not kinds:
        raise section.error("kind", f"{kind!r}: no camera kinds are registered")
    if stands_in(name, kind) and not allow_emulated:
        raise section.error("kind", f"{kind!r} needs the explicit --allow-emulated flag")
    if role is Role.CAMERA:
        options = {key: value for key, value in raw.items() if key != "kind"}
        return CameraConfig(name, kind, options, base)
    config: DeviceConfig
    if role is Role.SHOE:
        config = read_shoe(section, kind)
    elif role is Role.LAYOUT:
        config = read_layout(section, kind)
    elif role is Role.WHEEL:
        config = read_wheel(section, kind)
    else:
        config = read_sign(section, kind)
    section.finish()
    return config
