"""Builds the configured devices: one constructor per (role, kind), chosen by configuration only.

The controller's composition root is the only caller. Emulated kinds (and cameras of recorded
frames) are built only when the process was started with the explicit flag
(`allow_emulated=True`); they are then logged as EMULATED, and `Devices.emulated` names them
for the status display. A board configured with `auth = "none"` is logged as
UNAUTHENTICATED, and `Devices.unauthenticated` names it for the status display. A real kind
whose hardware cannot be reached fails at `start()` with an error naming the device and
setting; nothing ever falls back to an emulator.

An emulated device is the real driver talking to a byte-level emulator behind a real pty
(or pyusb backend); `Devices.emulators[name]` is that emulator, for the controller's
auto-dealer (`emulators["shoe"].draw()`) and for tests. An emulated board is paired with a
fresh key drawn at every build (unless its section says `auth = "none"`), handed to the
emulator and the driver, and written to `<workdir>/<name>.key` (mode 0600) for a second
program, such as a console, that is to reach the same emulator while it runs. Closing the
devices removes those key files, and the temporary `workdir` when the build made one: no
pairing key outlives its run.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Protocol

from drivers.board import LinkOptions, TransportFactory, link_timing, table_catalogue
from drivers.camera import CAMERA_KINDS, Render, build_camera
from drivers.config import (
    EMULATED,
    BoardTrust,
    CameraConfig,
    DevicesConfig,
    LayoutConfig,
    Role,
    SerialPortConfig,
    ShoeConfig,
    SignConfig,
    UsbPortConfig,
    WheelConfig,
    parse_devices,
    stands_in,
)
from drivers.errors import DeviceConfigError, DriverError
from drivers.events import EventSink
from drivers.gpio import GpioLayout, PinReservations, load_rpi_gpio
from drivers.interfaces import (
    Device,
    JackpotSign,
    LayoutInputs,
    LayoutLamps,
    ShoeScanner,
    WheelFeed,
)
from drivers.layout import BridgeLayout
from drivers.shoe import BridgeShoe
from drivers.sign import BridgeSign
from drivers.timing import MonotonicScheduler, Scheduler
from drivers.usb import UsbTransport, describe
from firmware_bridge import Catalogue, LinkTiming, PairingKey, write_key_file
from firmware_bridge.transport import DEFAULT_BAUDRATE

if TYPE_CHECKING:
    from drivers.emulated.board import BoardEmulator

_LOG = logging.getLogger(__name__)
EMULATED_USB_IDS: Final = (0x1209, 0x5353, "EMU-SHOE-1")


class Layout(LayoutLamps, LayoutInputs, Protocol):
    """A layout device: lamps and inputs together."""


@dataclass
class BuildOptions:
    """How the registry builds devices (the defaults suit production).

    Attributes:
        catalogue: The message catalogue (`drivers/catalogue.toml` when None).
        timing: Link timing to start from (each device's `timeout_ms` still applies).
        scheduler: Clock and timers.
        workdir: Where emulated ports get their symlinks (a new temporary directory when
            None).
        reservations: GPIO pins held by every device of this process.
        camera_render: Draws the layout for the emulated camera (the composition root
            passes `vision.build.synth.LayoutRenderer`; drivers never import vision).
        ack_when_handled: The shoe acknowledges the board's events only once the owner
            says it handled their records (`ShoeScanner.handled`); the controller sets it.
            Off (the default) the board's events are acknowledged as they arrive, for
            sinks that never call `handled` (tests, the bench console).
    """

    catalogue: Catalogue | None = None
    timing: LinkTiming | None = None
    scheduler: Scheduler = field(default_factory=MonotonicScheduler)
    workdir: Path | None = None
    reservations: PinReservations = field(default_factory=PinReservations)
    camera_render: Render | None = None
    ack_when_handled: bool = False
    key_files: list[Path] = field(default_factory=list)
    """The emulated boards' key files written so far (removed when their devices close)."""
    made_workdir: Path | None = None
    """The temporary `workdir` made for emulated ports, if none was given."""

    def table_catalogue(self) -> Catalogue:
        """The catalogue to use."""
        if self.catalogue is None:
            self.catalogue = table_catalogue()
        return self.catalogue

    def emulator_dir(self) -> Path:
        """The directory for emulated ports' symlinks."""
        if self.workdir is None:
            self.workdir = self.made_workdir = Path(tempfile.mkdtemp(prefix="shoectl-emulated-"))
        return self.workdir

    def link(self, url: str, timeout_ms: int, baudrate: int = DEFAULT_BAUDRATE,
             transport_factory: TransportFactory | None = None, *,
             trust: BoardTrust | None = None, pairing: PairingKey | None = None,
             emulator_firmware: str | None = None) -> LinkOptions:
        """Link options for one board.

        Args:
            url: The board's port.
            timeout_ms: Its link silence limit.
            baudrate: Line speed.
            transport_factory: The transport of each attempt (USB).
            trust: Its pairing key file and accepted firmware (`[devices.<role>]`).
            pairing: An emulated board's key (`trust.key_file` is None for it).
            emulator_firmware: An emulated board's firmware version, accepted when the
                section lists none.
        """
        trust = trust or BoardTrust()
        versions = trust.firmware or ((emulator_firmware,) if emulator_firmware else ())
        return LinkOptions(url, self.table_catalogue(), link_timing(timeout_ms, self.timing),
                           baudrate, transport_factory, frozenset(versions),
                           trust.key_file, pairing)


@dataclass
class Devices:
    """The table's devices, by role, plus the emulators behind emulated ones."""

    shoe: ShoeScanner | None = None
    layout: Layout | None = None
    sign: JackpotSign | None = None
    camera: Any = None
    wheel: WheelFeed | None = None
    emulators: dict[str, Any] = field(default_factory=dict)
    leftovers: list[Path] = field(default_factory=list)
    """What building the emulators wrote (key files, a temporary folder): removed on close,
    so no pairing key outlives the run."""

    def all(self) -> list[Device]:
        """Every device built, in start order."""
        found = (self.shoe, self.layout, self.sign, self.camera, self.wheel)
        return [device for device in found if device is not None]

    @property
    def emulated(self) -> tuple[str, ...]:
        """Names of the EMULATED devices (for logs and the status display)."""
        return tuple(device.name for device in self.all() if device.emulated)

    @property
    def unauthenticated(self) -> tuple[str, ...]:
        """Names of the boards running without a pairing key (`auth = "none"`).

        For logs and the status display, which call them UNAUTHENTICATED. Decided by each
        board's handshake: a board that has not passed one yet is not named.
        """
        return tuple(device.name for device in self.all()
                     if getattr(device, "running_unauthenticated", False) is True)

    def start(self, skip: tuple[object, ...] = ()) -> None:
        """Start every device but those in `skip`; on a failure, close them all and re-raise."""
        try:
            for device in self.all():
                if device not in skip:
                    device.start()
        except DriverError:
            self.close()
            raise

    def close(self) -> None:
        """Close every device, then the emulators; remove their keys (idempotent)."""
        for device in reversed(self.all()):
            device.close()
        for emulator in self.emulators.values():
            emulator.close()
        for path in self.leftovers:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)


Built = tuple[Any, Any]
"""A device and the emulator behind it (None for real hardware)."""
Constructor = Callable[[Any, EventSink, BuildOptions], Built]


def kinds(role: Role) -> tuple[str, ...]:
    """The kinds registered for a role."""
    return tuple(kind for (each, kind) in CONSTRUCTORS if each is role)


def build_devices(devices: DevicesConfig | Mapping[str, Any], sink: EventSink, *,
                  allow_emulated: bool, options: BuildOptions | None = None) -> Devices:
    """Build (not start) every configured device.

    Args:
        devices: The validated `[devices]` records, or the raw `[devices]` table.
        sink: Where every device reports (the controller passes `loop.post`).
        allow_emulated: True only when the process was started with the explicit flag.
        options: Build options (production defaults when None).

    Raises:
        DeviceConfigError: A bad section, a pin conflict, or an emulated kind without the flag.
        DriverError: A device cannot be built (e.g. RPi.GPIO missing for `gpio`).
    """
    options = options or BuildOptions()
    config = devices if isinstance(devices, DevicesConfig) else parse_devices(
        devices, allow_emulated=allow_emulated, camera_kinds=kinds(Role.CAMERA))
    built = Devices()
    keys_before, workdir_before = len(options.key_files), options.workdir
    try:
        for device in config.all():
            _build_one(device, sink, allow_emulated, options, built)
    except BaseException:
        built.leftovers = _leftovers(options, keys_before, workdir_before)
        built.close()
        raise
    built.leftovers = _leftovers(options, keys_before, workdir_before)
    return built


def _leftovers(options: BuildOptions, keys_before: int, workdir_before: Path | None) -> list[Path]:
    """What this build wrote for its emulators: their key files, and a folder it made."""
    made = options.made_workdir if workdir_before is None else None
    return [*options.key_files[keys_before:], *([made] if made is not None else [])]


def _build_one(device: Any, sink: EventSink, allow_emulated: bool, options: BuildOptions,
               built: Devices) -> None:
    if stands_in(device.name, device.kind) and not allow_emulated:
        raise DeviceConfigError(device.name, "kind",
                                f"{device.kind!r} needs the explicit --allow-emulated flag")
    role = Role(device.name)
    constructor = CONSTRUCTORS.get((role, device.kind))
    if constructor is None:
        raise DeviceConfigError(device.name, "kind", f"{device.kind!r} has no constructor")
    instance, emulator = constructor(device, sink, options)
    setattr(built, role.value, instance)
    if emulator is not None:
        built.emulators[device.name] = emulator
    if stands_in(device.name, device.kind):
        _LOG.warning("%s: EMULATED device (kind %s)", device.name, device.kind)


# ---------------------------------------------------------------- boards


def _serial_link(config: ShoeConfig | LayoutConfig | SignConfig,
                 options: BuildOptions) -> LinkOptions:
    """Link options for a board on the configured serial port."""
    port = config.port
    assert isinstance(port, SerialPortConfig)  # guaranteed by the config reader
    return options.link(port.url, config.timeout_ms, port.baud, trust=config.trust)


def _emulator_key(config: ShoeConfig | LayoutConfig | SignConfig,
                  options: BuildOptions) -> PairingKey | None:
    """A fresh pairing key for an emulated board (None for `auth = "none"`).

    It is also written to `<workdir>/<name>.key`, for a second program that is to reach the
    same emulator (a console, a second run after a simulated power loss).
    """
    if not config.trust.paired:
        return None
    key = PairingKey.generate()
    path = options.emulator_dir() / f"{config.name}.key"
    path.unlink(missing_ok=True)
    write_key_file(path, key)
    options.key_files.append(path)
    return key


def _start_emulator(emulator_type: Callable[..., BoardEmulator],
                    config: ShoeConfig | LayoutConfig | SignConfig,
                    options: BuildOptions) -> tuple[LinkOptions, BoardEmulator]:
    """Start a board emulator behind a pty; link options for it, and the emulator."""
    key = _emulator_key(config, options)
    emulator = emulator_type(link_dir=options.emulator_dir(), name=config.name,
                             timing=options.timing, pairing=key).start()
    return options.link(emulator.path, config.timeout_ms, trust=config.trust, pairing=key,
                        emulator_firmware=emulator.firmware_version), emulator


# ---------------------------------------------------------------- shoe


def _serial_shoe(config: ShoeConfig, sink: EventSink, options: BuildOptions) -> Built:
    link = _serial_link(config, options)
    return BridgeShoe(config.name, link, sink, scheduler=options.scheduler,
                      ack_when_handled=options.ack_when_handled), None


def _usb_shoe(config: ShoeConfig, sink: EventSink, options: BuildOptions,
              backend: Any = None, emulated: bool = False,
              emulator: BoardEmulator | None = None) -> BridgeShoe:
    port = config.port
    assert isinstance(port, UsbPortConfig)  # guaranteed by the config reader
    link = options.link(describe(port), config.timeout_ms,
                        transport_factory=lambda: UsbTransport(port, backend=backend),
                        trust=config.trust,
                        pairing=emulator.endpoint.pairing if emulator else None,
                        emulator_firmware=emulator.firmware_version if emulator else None)
    return BridgeShoe(config.name, link, sink, emulated=emulated, scheduler=options.scheduler,
                      ack_when_handled=options.ack_when_handled)


def _emulated_shoe(config: ShoeConfig, sink: EventSink, options: BuildOptions) -> Built:
    from drivers.emulated.shoe import ShoeEmulator
    from drivers.emulated.shoe_model import ShoeContents, ShoePlan
    from drivers.emulated.usb import EmulatedUsbBackend, EmulatedUsbDevice

    emulation = config.emulation
    assert emulation is not None  # guaranteed by the config reader
    if emulation.script is not None:
        contents = ShoeContents.scripted(emulation.script)
    else:
        contents = ShoeContents.shuffled(ShoePlan(emulation.decks, emulation.deck,
                                                  emulation.seed, emulation.penetration,
                                                  emulation.cut_card_from_end))
    if emulation.transport == "usb":
        vid, pid, serial = EMULATED_USB_IDS
        usb_device = EmulatedUsbDevice(vid, pid, serial)
        emulator = ShoeEmulator(contents, usb=usb_device, timing=options.timing,
                                pairing=_emulator_key(config, options)).start()
        usb_config = ShoeConfig(config.name, config.kind, UsbPortConfig(vid, pid, serial),
                                config.timeout_ms, trust=config.trust)
        shoe = _usb_shoe(usb_config, sink, options, EmulatedUsbBackend(usb_device), True,
                         emulator)
        return shoe, emulator
    link, emulator = _start_emulator(partial(ShoeEmulator, contents), config, options)
    shoe = BridgeShoe(config.name, link, sink, emulated=True, scheduler=options.scheduler,
                      ack_when_handled=options.ack_when_handled)
    return shoe, emulator


# ---------------------------------------------------------------- layout


def _gpio_layout(config: LayoutConfig, sink: EventSink, options: BuildOptions) -> Built:
    gpio = load_rpi_gpio(config.name)
    return GpioLayout(config, sink, gpio=gpio, scheduler=options.scheduler,
                      reservations=options.reservations), None


def _emulated_gpio_layout(config: LayoutConfig, sink: EventSink, options: BuildOptions) -> Built:
    from drivers.emulated.gpio import EmulatedGpio

    gpio = EmulatedGpio(options.scheduler)
    return GpioLayout(config, sink, gpio=gpio, scheduler=options.scheduler,
                      reservations=options.reservations), gpio


def _serial_layout(config: LayoutConfig, sink: EventSink, options: BuildOptions) -> Built:
    link = _serial_link(config, options)
    return BridgeLayout(config, link, sink, scheduler=options.scheduler), None


def _emulated_layout(config: LayoutConfig, sink: EventSink, options: BuildOptions) -> Built:
    from drivers.emulated.layout import LayoutEmulator

    link, emulator = _start_emulator(LayoutEmulator, config, options)
    return BridgeLayout(config, link, sink, scheduler=options.scheduler), emulator


# ---------------------------------------------------------------- sign


def _serial_sign(config: SignConfig, sink: EventSink, options: BuildOptions) -> Built:
    link = _serial_link(config, options)
    return BridgeSign(config, link, sink, scheduler=options.scheduler), None


def _emulated_sign(config: SignConfig, sink: EventSink, options: BuildOptions) -> Built:
    from drivers.emulated.sign import SignEmulator

    link, emulator = _start_emulator(SignEmulator, config, options)
    return BridgeSign(config, link, sink, scheduler=options.scheduler), emulator


def _camera(config: CameraConfig, sink: EventSink, options: BuildOptions) -> Built:
    drawn = config.kind == EMULATED
    camera = build_camera(config.name, config.kind, config.options,
                          render=options.camera_render if drawn else None, base=config.base)
    # The emulated camera is its own stimulus surface (what is dealt where).
    return camera, camera if drawn else None


def _usb_shoe_built(config: ShoeConfig, sink: EventSink, options: BuildOptions) -> Built:
    return _usb_shoe(config, sink, options), None


# ---------------------------------------------------------------- wheel


def _serial_wheel(config: WheelConfig, sink: EventSink, options: BuildOptions) -> Built:
    from drivers.wheel import SerialWheel

    return SerialWheel(config, sink, scheduler=options.scheduler), None


def _emulated_wheel(config: WheelConfig, sink: EventSink, options: BuildOptions) -> Built:
    """The real driver on the wheel emulator's pty (`drivers/emulated/wheel.py`)."""
    from drivers.emulated.wheel import WheelEmulator
    from drivers.wheel import SerialWheel

    assert config.emulation is not None  # guaranteed by the config reader
    try:
        emulator = WheelEmulator.from_config(config.emulation, link_dir=options.emulator_dir(),
                                             name=config.name,
                                             launch_by_host=config.launch == "host").start()
    except OSError as exc:
        raise DeviceConfigError(config.name, "replay", f"cannot read "
                                f"{config.emulation.replay}: {exc.strerror or exc}") from exc
    return SerialWheel(config, sink, emulated=True, scheduler=options.scheduler,
                       url=emulator.path), emulator


CONSTRUCTORS: Final[Mapping[tuple[Role, str], Constructor]] = MappingProxyType({
    (Role.SHOE, "serial"): _serial_shoe,
    (Role.SHOE, "usb"): _usb_shoe_built,
    (Role.SHOE, "emulated"): _emulated_shoe,
    (Role.LAYOUT, "gpio"): _gpio_layout,
    (Role.LAYOUT, "emulated-gpio"): _emulated_gpio_layout,
    (Role.LAYOUT, "serial"): _serial_layout,
    (Role.LAYOUT, "emulated"): _emulated_layout,
    (Role.SIGN, "serial"): _serial_sign,
    (Role.SIGN, "emulated"): _emulated_sign,
    (Role.WHEEL, "serial"): _serial_wheel,
    (Role.WHEEL, "emulated"): _emulated_wheel,
    **{(Role.CAMERA, kind): _camera for kind in CAMERA_KINDS},
})
"""Every (role, kind) the registry can build."""
