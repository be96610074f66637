"""Layout lamps and inputs wired straight to the Raspberry Pi's GPIO header (RPi.GPIO API).

`RPi.GPIO` is imported only when a `gpio` layout is built (it refuses to import off a Pi).
The board chooses which library provides it (`load_rpi_gpio`, decision 092): on a Pi 5,
whose GPIO RPi.GPIO cannot drive, `rpi-lgpio` from the venv's `lib/pi5-gpio` folder; on any
other board the RPi.GPIO package. Tests and the `emulated-gpio` kind pass an
`drivers.emulated.gpio.EmulatedGpio` instead.

Hardware: lamps on outputs through a driver transistor (HIGH = lit), or through a relay board
that switches on a low output (`lamps_active = "low"`); bet sensors, buttons and
the key switch's position contacts (one input per position besides `normal`) on inputs with
the Pi's internal pull-up (`pull = "up"`, contact to ground, active low) or pull-down. Inputs
are debounced here: a change is reported once the pin has been stable for `debounce_ms`
after its last edge (RPi.GPIO's own `bouncetime` only ignores edges after the first one,
which can lose the final level of a bouncing contact).

Config::

    [devices.layout]
    kind = "gpio"
    lamps = { seat1 = { bet = 17 }, no_more_bets = 27 }
    bet_sensors = { seat1 = 5 }
    buttons = { no_more_bets = 13 }
    key_switches = { supervisor = 19 }
    debounce_ms = 20
    lamps_active = "high"
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from drivers import raspberry_pi
from drivers.config import KEY_NORMAL, LayoutConfig
from drivers.errors import DeviceClosedError, DeviceConfigError, DeviceUnavailableError, DriverError
from drivers.events import BetSensorChanged, ButtonPressed, EventSink, KeySwitchTurned
from drivers.interfaces import LampMode
from drivers.timing import MonotonicScheduler, Scheduler, Timer

_LOG = logging.getLogger(__name__)


class GpioModule(Protocol):
    """The part of the `RPi.GPIO` module this driver uses."""

    @property
    def BCM(self) -> int: ...  # noqa: D102, N802 - the module's constant
    @property
    def OUT(self) -> int: ...  # noqa: D102, N802 - the module's constant
    @property
    def IN(self) -> int: ...  # noqa: D102, N802 - the module's constant
    @property
    def LOW(self) -> int: ...  # noqa: D102, N802 - the module's constant
    @property
    def HIGH(self) -> int: ...  # noqa: D102, N802 - the module's constant
    @property
    def PUD_UP(self) -> int: ...  # noqa: D102, N802 - the module's constant
    @property
    def PUD_DOWN(self) -> int: ...  # noqa: D102, N802 - the module's constant
    @property
    def BOTH(self) -> int: ...  # noqa: D102, N802 - the module's constant

    def setmode(self, mode: int) -> None: ...  # noqa: D102
    def setwarnings(self, flag: bool) -> None: ...  # noqa: D102
    def setup(self, channel: int, direction: int, pull_up_down: int = ...,  # noqa: D102
              initial: int = ...) -> None: ...
    def output(self, channel: int, value: int) -> None: ...  # noqa: D102
    def input(self, channel: int) -> int: ...  # noqa: D102
    def add_event_detect(self, channel: int, edge: int,  # noqa: D102
                         callback: Callable[[int], None] | None = ...,
                         bouncetime: int = ...) -> None: ...
    def remove_event_detect(self, channel: int) -> None: ...  # noqa: D102
    def cleanup(self, channel: Any = ...) -> None: ...  # noqa: D102


def _library_errors() -> tuple[type[Exception], ...]:
    """Errors the GPIO library raises of its own (lgpio's, under rpi-lgpio on a Pi 5).

    lgpio's `error` is a plain Exception, raised when the chip cannot be opened or a pin
    is busy.
    """
    lgpio = sys.modules.get("lgpio")
    error = getattr(lgpio, "error", None)
    return (error,) if isinstance(error, type) and issubclass(error, Exception) else ()


LGPIO_WORKDIR_ENV = "LG_WD"
"""Where lgpio makes its notification pipes (`.lgd-nfy*`); unset, in the working folder,
which on a card sealed read-only (docs/pi.md) may refuse the write."""


def lgpio_workdir() -> str:
    """A folder lgpio may write its pipes to.

    The service's runtime folder (systemd's `RuntimeDirectory=`) when there is one, else
    the system's temporary folder.
    """
    runtime = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    return runtime or tempfile.gettempdir()


def load_rpi_gpio(device: str, model_file: Path = raspberry_pi.MODEL_FILE) -> GpioModule:
    """Import `RPi.GPIO` now (never at module import: it raises off a Pi), as the board wants.

    On a Raspberry Pi 5 (by `model_file`) the module is rpi-lgpio's, from the venv's folder
    `raspberry_pi.pi5_gpio_folder(sys.prefix)`, which goes first on `sys.path`; on any other
    board it is what a plain import finds (the RPi.GPIO package). One INFO line says which
    and why.

    Raises:
        DeviceUnavailableError: Naming the device, what is missing and how to get it.
    """
    model = raspberry_pi.board_model(model_file)
    if raspberry_pi.is_pi5(model):
        return _load_pi5_gpio(device, model)
    board = repr(model) if model else f"no board model in {model_file}"
    try:
        module = importlib.import_module("RPi.GPIO")
    except (ImportError, RuntimeError, OSError) as exc:
        raise DeviceUnavailableError(
            device, f"kind: 'gpio' needs the RPi.GPIO module on a Raspberry Pi "
            f"(board: {board}): {exc}") from exc
    _LOG.info("%s: GPIO library RPi.GPIO from %s (board: %s, not a Raspberry Pi 5)",
              device, _origin(module), board)
    gpio: GpioModule = module
    return gpio


def _load_pi5_gpio(device: str, model: str) -> GpioModule:
    """Import rpi-lgpio's `RPi.GPIO` from the venv's side folder (a Pi 5's GPIO is on RP1)."""
    folder = raspberry_pi.pi5_gpio_folder(sys.prefix)
    need = f"kind: 'gpio' on a {model} needs rpi-lgpio from {folder}"
    remedy = (f"reinstall shoectl (`sudo systemd/install.sh`, which puts it there on arm64) "
              f"or run `{sys.prefix}/bin/python -m pip install --target {folder} "
              f"'{raspberry_pi.PI5_GPIO_REQUIREMENT}'`")
    if not folder.is_dir():
        raise DeviceUnavailableError(device, f"{need}, which does not exist: {remedy}")
    loaded = sys.modules.get("RPi")
    if loaded is not None and not _inside(loaded, folder):
        raise DeviceUnavailableError(
            device, f"{need}, but RPi was already imported from {_origin(loaded)} "
            "(RPi.GPIO cannot drive a Pi 5's GPIO): nothing may import RPi before the "
            "layout is built")
    entry = str(folder)
    sys.path[:] = [entry, *(path for path in sys.path if path != entry)]
    os.environ.setdefault(LGPIO_WORKDIR_ENV, lgpio_workdir())
    try:
        module = importlib.import_module("RPi.GPIO")
    except ImportError as exc:  # the folder is incomplete (lgpio missing, say)
        raise DeviceUnavailableError(device, f"{need}: {exc}: {remedy}") from exc
    except (RuntimeError, OSError) as exc:  # found, but refuses this machine
        raise DeviceUnavailableError(device, f"{need}: {exc}") from exc
    if not _inside(module, folder):
        raise DeviceUnavailableError(
            device, f"{need}, which holds no RPi.GPIO (it was imported from "
            f"{_origin(module)} instead): {remedy}")
    _LOG.info("%s: GPIO library rpi-lgpio from %s (board: %r, a Raspberry Pi 5)",
              device, folder, model)
    gpio: GpioModule = module
    return gpio


def _origin(module: ModuleType) -> Path | None:
    """The file (or a package's folder) a module was imported from."""
    file = getattr(module, "__file__", None)
    if file:
        return Path(file)
    paths = list(getattr(module, "__path__", []))
    return Path(paths[0]) if paths else None


def _inside(module: ModuleType, folder: Path) -> bool:
    origin = _origin(module)
    return origin is not None and origin.resolve().is_relative_to(folder.resolve())


class PinReservations:
    """Which device holds which GPIO pin, so two devices can never share a wire."""

    def __init__(self) -> None:
        self._owners: dict[int, str] = {}
        self._lock = threading.Lock()

    def reserve(self, device: str, pins: Mapping[str, int]) -> None:
        """Reserve every pin for `device`, or none of them.

        Raises:
            DeviceConfigError: A pin is already held (naming the key and the holder).
        """
        with self._lock:
            for label, pin in pins.items():
                holder = self._owners.get(pin)
                if holder is not None:
                    raise DeviceConfigError(device, label,
                                            f"GPIO pin {pin} is already used by {holder}")
            self._owners.update({pin: f"[devices.{device}] {label}" for label, pin in pins.items()})

    def release(self, pins: Iterable[int]) -> None:
        """Give pins back."""
        with self._lock:
            for pin in pins:
                self._owners.pop(pin, None)


class _Input:
    """One debounced input."""

    def __init__(self, name: str, role: str, pin: int) -> None:
        self.name = name
        self.role = role
        self.pin = pin
        self.active = False
        self.timer: Timer | None = None


class GpioLayout:
    """Lamps and inputs on GPIO pins; implements `LayoutLamps` and `LayoutInputs`.

    Args:
        config: The `[devices.layout]` record (`kind = "gpio"` or `"emulated-gpio"`).
        sink: Where input events go (called from RPi.GPIO's or a timer's thread).
        gpio: The `RPi.GPIO` module, or an emulated one.
        scheduler: Clock and timers for debouncing and flashing.
        reservations: Pins held by every GPIO device of this process.
    """

    def __init__(self, config: LayoutConfig, sink: EventSink, *, gpio: GpioModule,
                 scheduler: Scheduler | None = None,
                 reservations: PinReservations | None = None) -> None:
        self._config = config
        self._sink = sink
        self._gpio = gpio
        self._scheduler = scheduler or MonotonicScheduler()
        self._reservations = reservations or PinReservations()
        self._reservations.reserve(config.name, _labelled_pins(config))
        self._lock = threading.RLock()
        self._lamps = dict(config.lamps)
        self._lamp_state = dict.fromkeys(config.lamps, LampMode.OFF)
        self._inputs = {pin: _Input(name, role, pin) for name, role, pin in _inputs(config)}
        self._flash_phase = False
        self._flash_timer: Timer | None = None
        self._started = False
        self._closed = False

    # ------------------------------------------------------------ Device

    @property
    def name(self) -> str:
        """The configured device name."""
        return self._config.name

    @property
    def emulated(self) -> bool:
        """True on the emulated GPIO module."""
        return self._config.kind != "gpio"

    @property
    def link_up(self) -> bool:
        """GPIO has no link: up while started."""
        return self._started and not self._closed

    def start(self) -> None:
        """Set up every pin (lamps off), read the inputs, and watch their edges."""
        self._check_open()
        gpio = self._gpio
        pull = gpio.PUD_UP if self._config.pull == "up" else gpio.PUD_DOWN
        set_up_errors: tuple[type[Exception], ...] = (RuntimeError, ValueError, OSError,
                                                      *_library_errors())
        try:
            gpio.setwarnings(False)
            gpio.setmode(gpio.BCM)
            for pin in self._lamps.values():
                gpio.setup(pin, gpio.OUT, initial=self._lamp_level(lit=False))
            for item in self._inputs.values():
                gpio.setup(item.pin, gpio.IN, pull_up_down=pull)
                item.active = self._is_active(gpio.input(item.pin))
                gpio.add_event_detect(item.pin, gpio.BOTH, callback=self._edge)
        except set_up_errors as exc:
            raise DeviceUnavailableError(self.name, f"kind: GPIO set-up failed: {exc}") from exc
        self._started = True
        for item in self._inputs.values():
            if item.role == "bet_sensors":  # as the layout board does at its first connection
                self._report(item, item.active)
        _LOG.info("%s: %d lamps, %d inputs on GPIO%s", self.name, len(self._lamps),
                  len(self._inputs), " (EMULATED)" if self.emulated else "")

    def close(self) -> None:
        """Lamps off, edge detection off, pins released (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            timers = [item.timer for item in self._inputs.values()] + [self._flash_timer]
            for timer in timers:
                if timer is not None:
                    timer.cancel()
        if self._started:
            self._release_pins()
        self._reservations.release([*self._lamps.values(), *self._inputs])

    # ------------------------------------------------------------ LayoutLamps

    @property
    def lamp_names(self) -> tuple[str, ...]:
        """Every configured lamp."""
        return tuple(self._lamps)

    def set_lamp(self, lamp: str, state: LampMode) -> None:
        """Light, darken or flash one lamp."""
        self._check_started()
        if lamp not in self._lamps:
            raise DriverError(self.name, f"lamps: no lamp named {lamp!r}")
        with self._lock:
            self._lamp_state[lamp] = LampMode(state)
            self._write_lamp(lamp)
            self._arm_flash()

    def all_safe(self) -> None:
        """Every lamp off."""
        self._check_started()
        with self._lock:
            for lamp in self._lamps:
                self._lamp_state[lamp] = LampMode.OFF
                self._write_lamp(lamp)

    # ------------------------------------------------------------ LayoutInputs

    @property
    def input_names(self) -> tuple[str, ...]:
        """Every configured input."""
        return tuple(item.name for item in self._inputs.values())

    def input_states(self) -> Mapping[str, bool]:
        """The debounced state of every input."""
        with self._lock:
            return {item.name: item.active for item in self._inputs.values()}

    # ------------------------------------------------------------ internals

    def _is_active(self, level: int) -> bool:
        return (level == self._gpio.LOW) == (self._config.pull == "up")

    def _edge(self, pin: int) -> None:
        # Runs on RPi.GPIO's callback thread: (re)start the quiet-time timer only.
        with self._lock:
            item = self._inputs.get(pin)
            if item is None or self._closed:
                return
            if item.timer is not None:
                item.timer.cancel()
            delay = self._config.debounce_ms / 1000
            item.timer = None if delay <= 0 else self._scheduler.call_later(
                delay, lambda: self._settle(item))
        if delay <= 0:
            self._settle(item)

    def _settle(self, item: _Input) -> None:
        with self._lock:
            if self._closed:
                return
            item.timer = None
            active = self._is_active(self._gpio.input(item.pin))
            if active == item.active:
                return
            item.active = active
        self._report(item, active)

    def _report(self, item: _Input, active: bool) -> None:
        at = self._scheduler.now()
        if item.role == "bet_sensors":
            self._sink(BetSensorChanged(self.name, item.name, active, at))
        elif item.role == "buttons":
            if active:
                self._sink(ButtonPressed(self.name, item.name, at))
        else:
            pins = " ".join(f"{name}={pin}" for name, pin in self._config.key_switches.items())
            self._sink(KeySwitchTurned(self.name, self._key_position(), at,
                                       key=f"GPIO key switch, pins {pins}", authenticated=True))

    def _key_position(self) -> str:
        # Each key-switch input is the contact of one position; none closed is `normal`.
        with self._lock:
            closed = [item.name for item in self._inputs.values()
                      if item.role == "key_switches" and item.active]
        return closed[0] if closed else KEY_NORMAL

    def _write_lamp(self, lamp: str) -> None:
        state = self._lamp_state[lamp]
        lit = state is LampMode.ON or (state is LampMode.FLASH and self._flash_phase)
        self._gpio.output(self._lamps[lamp], self._lamp_level(lit=lit))

    def _lamp_level(self, *, lit: bool) -> int:
        """The output level that lights (or darkens) a lamp on this layout's wiring."""
        high = lit == (self._config.lamps_active == "high")
        return self._gpio.HIGH if high else self._gpio.LOW

    def _arm_flash(self) -> None:
        flashing = LampMode.FLASH in self._lamp_state.values()
        if flashing and self._flash_timer is None:
            half_period = 0.5 / self._config.blink_hz
            self._flash_timer = self._scheduler.call_later(half_period, self._flash)

    def _flash(self) -> None:
        with self._lock:
            self._flash_timer = None
            if self._closed:
                return
            self._flash_phase = not self._flash_phase
            for lamp, state in self._lamp_state.items():
                if state is LampMode.FLASH:
                    self._write_lamp(lamp)
            self._arm_flash()

    def _release_pins(self) -> None:
        gpio = self._gpio
        for pin in self._inputs:
            gpio.remove_event_detect(pin)
        for pin in self._lamps.values():
            gpio.output(pin, self._lamp_level(lit=False))
        gpio.cleanup([*self._lamps.values(), *self._inputs])

    def _check_open(self) -> None:
        if self._closed:
            raise DeviceClosedError(self.name, "the device is closed")

    def _check_started(self) -> None:
        self._check_open()
        if not self._started:
            raise DriverError(self.name, "the device is not started")


def _labelled_pins(config: LayoutConfig) -> dict[str, int]:
    tables = {"lamps": config.lamps, "bet_sensors": config.bet_sensors,
              "buttons": config.buttons, "key_switches": config.key_switches}
    return {f"{key}.{label}": pin for key, table in tables.items() for label, pin in table.items()}


def _inputs(config: LayoutConfig) -> list[tuple[str, str, int]]:
    tables = {"bet_sensors": config.bet_sensors, "buttons": config.buttons,
              "key_switches": config.key_switches}
    return [(label, role, pin) for role, table in tables.items() for label, pin in table.items()]
