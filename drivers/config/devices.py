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
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from confkeys import DEVICE, Section
from drivers.emulated.shoe_file import ShoeFileError, shoe_file_cards
from drivers.emulated.shoe_model import PENETRATION_PERCENT
from drivers.errors import DeviceConfigError


class Role(StrEnum):
    """What a device is for; the `[devices.<role>]` section name."""

    SHOE = "shoe"
    LAYOUT = "layout"
    SIGN = "sign"
    CAMERA = "camera"
    WHEEL = "wheel"


EMULATED: Final = "emulated"
"""The kind (or kind prefix) of every emulated device."""
RECORDED_CAMERA_KINDS: Final = ("file", "folder", "video")
"""Camera kinds that replay recorded frames: stand-ins for a camera, like the emulated kinds."""
KEY_DIR: Final = Path("/etc/shoectl/keys")
"""Where a board's pairing key lives on the Pi by default (`<role>.key`)."""
AUTH_MODES: Final = ("paired", "none")
MAX_FIRMWARE_TEXT: Final = 32

# BCM numbers of the 40-pin header's general-purpose pins; 0 and 1 are the HAT ID EEPROM.
GPIO_PINS: Final = range(2, 28)
BAUD_RATES: Final = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
DECK_TYPES: Final = ("standard", "spanish")
DECK_COUNTS: Final = (1, 2, 4, 5, 6, 8)
DEFAULT_TIMEOUT_MS: Final = 750
"""A board silent this long is down (firmware_bridge's default link timeout)."""


def is_emulated(kind: str) -> bool:
    """True for the emulated kinds: a byte-level emulator, or drawn camera frames."""
    return kind == EMULATED or kind.startswith(EMULATED + "-")


def stands_in(role: str, kind: str) -> bool:
    """True for kinds that stand in for hardware (they need the explicit flag).

    The emulated kinds, and cameras of recorded frames (a still image, a folder, a video):
    every status line calls them EMULATED.
    """
    return is_emulated(kind) or (role == "camera" and kind in RECORDED_CAMERA_KINDS)


def _numbers(section: Section, key: str, low: int, high: int) -> dict[str, int]:
    """A `{name = number}` table, each number in [low, high].

    Nested tables flatten to dotted names, so `seat3.turn = 17` (which TOML reads as
    `{seat3 = {turn = 17}}`) names the lamp `seat3.turn`.
    """
    table: Mapping[str, Any] = section.get(key, dict, {})
    result: dict[str, int] = {}
    for label, number in _flatten(table):
        if isinstance(number, bool) or not isinstance(number, int):
            raise section.error(f"{key}.{label}", f"expected an integer, got {number!r}")
        if not low <= number <= high:
            raise section.error(f"{key}.{label}", f"{number} is out of range {low}..{high}")
        result[label] = number
    return result


def _flatten(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for label, value in table.items():
        name = f"{prefix}{label}"
        items += _flatten(value, name + ".") if isinstance(value, Mapping) else [(name, value)]
    return items


def device_section(name: str, raw: Mapping[str, Any]) -> Section:
    """A `[devices.<name>]` section read with the device wording and `DeviceConfigError`."""
    return Section(name, raw, phrases=DEVICE, error=DeviceConfigError)


# ---------------------------------------------------------------- ports


@dataclass(frozen=True, slots=True)
class SerialPortConfig:
    """A serial port opened by pyserial URL.

    Attributes:
        url: Device path or pyserial URL (`spy://`, `socket://`, `hwgrep://`, ...).
        baud: Baud rate.
    """

    url: str
    baud: int = 115200


@dataclass(frozen=True, slots=True)
class UsbPortConfig:
    """A USB device with two bulk endpoints carrying the bridge's frames.

    Attributes:
        vid: USB vendor id.
        pid: USB product id.
        serial_number: Match only the device with this serial number (recommended when
            two identical devices could be plugged in).
    """

    vid: int
    pid: int
    serial_number: str | None = None


def _timeout(section: Section) -> int:
    return section.integer("timeout_ms", DEFAULT_TIMEOUT_MS, minimum=50, maximum=60_000)


@dataclass(frozen=True, slots=True)
class BoardTrust:
    """What a board must prove at every connection (PROTOCOL.md sections 4 and 7).

    Attributes:
        auth: `paired` (the board holds a pairing key shared with this Pi) or `none` (a
            bench board without a key: accepted unauthenticated, and every status line
            says so).
        key_file: The Pi's copy of the pairing key (a real board with `auth = "paired"`);
            None otherwise (an emulated board gets a fresh key at every start).
        firmware: The firmware versions accepted; None when the section lists none (a real
            board is then refused, an emulated one accepts its emulator's version).
    """

    auth: str = "paired"
    key_file: Path | None = None
    firmware: tuple[str, ...] | None = None

    @property
    def paired(self) -> bool:
        """True unless the section says `auth = "none"`."""
        return self.auth == "paired"


def read_trust(section: Section, kind: str) -> BoardTrust:
    """Read `auth`, `key_file` and `firmware` of a board's section."""
    auth = section.choice("auth", AUTH_MODES, "paired")
    key_file: Path | None = None
    if section.has("key_file"):
        if is_emulated(kind):
            raise section.error("key_file", "an emulated board gets a fresh key at every "
                                "start; key_file is for a real board")
        if auth == "none":
            raise section.error("key_file", 'not used with auth = "none"')
        key_file = Path(section.get("key_file", str))
    elif auth == "paired" and not is_emulated(kind):
        key_file = KEY_DIR / f"{section.name}.key"
    return BoardTrust(auth, key_file, _read_firmware(section))


def _read_firmware(section: Section) -> tuple[str, ...] | None:
    versions = section.get("firmware", list, None)
    if versions is None:
        return None
    if not versions:
        raise section.error("firmware", "list at least one accepted version, e.g. [\"2.0.3\"]")
    for version in versions:
        if not (isinstance(version, str) and version.isascii() and version.isprintable()
                and 0 < len(version) <= MAX_FIRMWARE_TEXT):
            raise section.error("firmware", f"{version!r} is not a version of 1 to "
                                f"{MAX_FIRMWARE_TEXT} printable ASCII characters")
    if len(set(versions)) != len(versions):
        raise section.error("firmware", "a version is listed twice")
    return tuple(versions)


def read_serial_port(section: Section) -> SerialPortConfig:
    """Read `url` and `baud`."""
    url: str = section.get("url", str)
    if not url.strip():
        raise section.error("url", "empty")
    baud = section.integer("baud", 115200, minimum=1200, maximum=4_000_000)
    if baud not in BAUD_RATES:
        raise section.error("baud", f"{baud} is not one of {', '.join(map(str, BAUD_RATES))}")
    return SerialPortConfig(url=url, baud=baud)


def read_usb_port(section: Section) -> UsbPortConfig:
    """Read `vid`, `pid` and `serial_number`."""
    return UsbPortConfig(
        vid=section.integer("vid", minimum=0, maximum=0xFFFF),
        pid=section.integer("pid", minimum=0, maximum=0xFFFF),
        serial_number=section.get("serial_number", str, None),
    )


# ---------------------------------------------------------------- shoe


@dataclass(frozen=True, slots=True)
class ShoeEmulation:
    """What an emulated shoe holds.

    Attributes:
        decks: Decks in the shoe.
        deck: `standard` (52 cards) or `spanish` (48, no tens).
        seed: Shuffle seed; None draws one from the operating system.
        penetration: Where the cut card sits: the percent of the shoe dealt before it.
        cut_card_from_end: Cards behind the cut card; overrides `penetration` when set.
        script: Exactly these cards in this order, no cut card (`--shoe-file` shoes).
        transport: `serial` (a pseudo-terminal) or `usb` (a pyusb backend).
    """

    decks: int = 6
    deck: str = "standard"
    seed: int | None = None
    penetration: int = 75
    cut_card_from_end: int | None = None
    script: tuple[str, ...] | None = None
    transport: str = "serial"


@dataclass(frozen=True, slots=True)
class ShoeConfig:
    """`[devices.shoe]`: the shoe scanner.

    Attributes:
        name: Section name.
        kind: `serial`, `usb` or `emulated`.
        port: The port of a real shoe; None when emulated.
        timeout_ms: Silence after which the link is declared down.
        emulation: The emulated shoe's contents; None for a real shoe.
        trust: Its pairing key and accepted firmware.
    """

    name: str
    kind: str
    port: SerialPortConfig | UsbPortConfig | None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    emulation: ShoeEmulation | None = None
    trust: BoardTrust = field(default_factory=BoardTrust)


def read_shoe(section: Section, kind: str) -> ShoeConfig:
    """Build the shoe's record from its section."""
    timeout, trust = _timeout(section), read_trust(section, kind)
    if kind == "serial":
        return ShoeConfig(section.name, kind, read_serial_port(section), timeout, trust=trust)
    if kind == "usb":
        return ShoeConfig(section.name, kind, read_usb_port(section), timeout, trust=trust)
    return ShoeConfig(section.name, kind, None, timeout, read_shoe_emulation(section), trust)


def read_shoe_emulation(section: Section) -> ShoeEmulation:
    """Read the emulated shoe's keys (`decks`, `deck`, `seed`, `penetration`, ...)."""
    decks = section.integer("decks", 6, minimum=1, maximum=8)
    if decks not in DECK_COUNTS:
        raise section.error("decks", f"{decks} is not one of {', '.join(map(str, DECK_COUNTS))}")
    low, high = PENETRATION_PERCENT
    penetration = section.integer("penetration", 75, minimum=low, maximum=high)
    from_end = section.get("cut_card_from_end", int, None)
    if from_end is not None and not 1 <= from_end < decks * 48:
        raise section.error("cut_card_from_end", f"{from_end} does not fit a {decks}-deck shoe")
    return ShoeEmulation(
        decks=decks,
        deck=section.choice("deck", DECK_TYPES, "standard"),
        seed=section.get("seed", int, None),
        penetration=penetration,
        cut_card_from_end=from_end,
        script=_read_script(section),
        transport=section.choice("transport", ("serial", "usb"), "serial"),
    )


def _read_script(section: Section) -> tuple[str, ...] | None:
    if section.has("script") and section.has("script_file"):
        raise section.error("script_file", "give either script or script_file, not both")
    if section.has("script_file"):
        path = Path(section.get("script_file", str))
        try:
            return tuple(card.code for card in shoe_file_cards(path))
        except ShoeFileError as exc:
            raise section.error("script_file", str(exc)) from exc
    script = section.get("script", list, None)
    if script is None:
        return None
    if not all(isinstance(code, str) for code in script):
        raise section.error("script", "expected an array of card codes such as \"QH\"")
    return tuple(script)


# ---------------------------------------------------------------- layout


@dataclass(frozen=True, slots=True)
class LayoutConfig:
    """`[devices.layout]`: lamps, bet sensors, buttons and key switches of the layout.

    With `kind = "gpio"` the numbers are BCM pin numbers; with `serial` they are the layout
    board's lamp (0-63), bet spot (0-31) and button (0-31) numbers. Names are the
    controller's (`seat1.bet`, `no_more_bets`, ...). Key switches are the positions of the
    supervisor key besides `normal`: on GPIO one input pin per position's contact; the
    layout board reports its own positions (`supervisor`, `reset`), so a `serial` layout
    takes no `key_switches` key.

    Attributes:
        name: Section name.
        kind: `gpio`, `serial`, `emulated` (a layout board behind a pseudo-terminal) or
            `emulated-gpio` (the GPIO driver on an emulated RPi.GPIO module).
        lamps: Lamp name to pin or channel.
        bet_sensors: Bet sensor name to pin or channel.
        buttons: Button name to pin or channel.
        key_switches: Key position name to pin (the board's are fixed).
        port: The layout board's serial port (`serial` only).
        timeout_ms: Silence after which the board's link is declared down.
        debounce_ms: Input debounce time (GPIO; the board debounces by itself).
        pull: `up` (inputs active low) or `down` (active high); GPIO only.
        lamps_active: `high` (a lamp is lit by a high output, as through a driver transistor)
            or `low` (lit by a low output, as on most relay boards); GPIO only.
        blink_hz: Blink rate of a blinking lamp (GPIO; the board blinks by itself).
        trust: The layout board's pairing key and accepted firmware (not for GPIO).
    """

    name: str
    kind: str
    lamps: Mapping[str, int]
    bet_sensors: Mapping[str, int] = field(default_factory=dict)
    buttons: Mapping[str, int] = field(default_factory=dict)
    key_switches: Mapping[str, int] = field(default_factory=dict)
    port: SerialPortConfig | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    debounce_ms: int = 20
    pull: str = "up"
    blink_hz: float = 2.0
    lamps_active: str = "high"
    trust: BoardTrust = field(default_factory=BoardTrust)

    def inputs(self) -> dict[str, int]:
        """Every input (sensors, buttons, key switches) by name."""
        return {**self.bet_sensors, **self.buttons, **self.key_switches}


_LAYOUT_TABLES: Final = ("lamps", "bet_sensors", "buttons", "key_switches")
_BOARD_CHANNELS: Final = {"lamps": 63, "bet_sensors": 31, "buttons": 31}
KEY_NORMAL: Final = "normal"
"""The key switch position with no contact closed (every other position has one)."""
BOARD_KEY_POSITIONS: Final = (("supervisor", 1), ("reset", 2))
"""The layout board's key switch positions besides `normal`, with their wire values."""


def read_layout(section: Section, kind: str) -> LayoutConfig:
    """Build the layout's record, refusing bad pins and pins or channels used twice."""
    gpio = kind in ("gpio", "emulated-gpio")
    if gpio:
        low, high = GPIO_PINS.start, GPIO_PINS.stop - 1
        tables = {key: _numbers(section, key, low, high) for key in _LAYOUT_TABLES}
    else:
        tables = {key: _numbers(section, key, 0, top) for key, top in _BOARD_CHANNELS.items()}
        tables["key_switches"] = dict(BOARD_KEY_POSITIONS)
    if KEY_NORMAL in tables["key_switches"]:
        raise section.error(f"key_switches.{KEY_NORMAL}",
                            f"`{KEY_NORMAL}` is the position with no contact")
    _refuse_duplicates(section, tables, shared=gpio)
    _refuse_duplicate_names(section, tables)
    if not tables["lamps"]:
        raise section.error("lamps", "at least one lamp is required")
    port = read_serial_port(section) if kind == "serial" else None
    timeout = _timeout(section) if not gpio else DEFAULT_TIMEOUT_MS
    debounce = section.integer("debounce_ms", 20, minimum=0, maximum=1000) if gpio else 20
    pull = section.choice("pull", ("up", "down"), "up") if gpio else "up"
    blink = float(section.get("blink_hz", (float, int), 2.0)) if gpio else 2.0
    if not 0.1 <= blink <= 20.0:
        raise section.error("blink_hz", f"{blink} is out of range 0.1..20")
    lamps_active = section.choice("lamps_active", ("high", "low"), "high") if gpio else "high"
    trust = BoardTrust() if gpio else read_trust(section, kind)
    return LayoutConfig(section.name, kind, tables["lamps"], tables["bet_sensors"],
                        tables["buttons"], tables["key_switches"], port, timeout, debounce, pull,
                        blink, lamps_active, trust)


def _refuse_duplicates(section: Section, tables: dict[str, dict[str, int]], shared: bool) -> None:
    # A GPIO pin is one wire: it may appear once in the whole section. A board channel
    # number is per function (lamp channel 3 and sensor channel 3 are different things).
    seen: dict[tuple[str, int], str] = {}
    for key, table in tables.items():
        for label, number in table.items():
            slot = ("pin" if shared else key, number)
            if slot in seen:
                what = "pin" if shared else "channel"
                raise section.error(f"{key}.{label}",
                                    f"{what} {number} is already used by {seen[slot]}")
            seen[slot] = f"{key}.{label}"


def _refuse_duplicate_names(section: Section, tables: dict[str, dict[str, int]]) -> None:
    inputs: dict[str, str] = {}
    for key in _LAYOUT_TABLES[1:]:
        for label in tables[key]:
            if label in inputs:
                raise section.error(f"{key}.{label}", f"name also used in {inputs[label]}")
            inputs[label] = key


# ---------------------------------------------------------------- sign


@dataclass(frozen=True, slots=True)
class SignConfig:
    """`[devices.sign]`: the progressive jackpot sign.

    Attributes:
        name: Section name.
        kind: `serial` or `emulated`.
        port: The sign's serial port; None when emulated.
        timeout_ms: Silence after which the sign is declared not answering (R15).
        trust: Its pairing key and accepted firmware.
    """

    name: str
    kind: str
    port: SerialPortConfig | None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    trust: BoardTrust = field(default_factory=BoardTrust)


def read_sign(section: Section, kind: str) -> SignConfig:
    """Build the sign's record."""
    port = read_serial_port(section) if kind == "serial" else None
    return SignConfig(section.name, kind, port, _timeout(section), read_trust(section, kind))


# ---------------------------------------------------------------- camera and the whole table


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """`[devices.camera]`: its keys other than `kind` belong to the camera driver.

    Attributes:
        name: Section name.
        kind: A camera kind registered by `drivers.camera`.
        options: The section's other keys, validated by the camera driver.
    """

    name: str
    kind: str
    options: Mapping[str, Any]


# ---------------------------------------------------------------- wheel


WHEEL_BAUD_RATES: Final = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)
WHEEL_DIALECTS: Final = ("ss2", "mercury")


@dataclass(frozen=True, slots=True)
class LineSettings:
    """A vendor device's serial line: speed, framing and flow control (9600 8N1, none).

    Attributes:
        baud: Line speed.
        bytesize: 7 or 8 data bits.
        parity: `none`, `even` or `odd`.
        stopbits: 1 or 2.
        flow: `none`, `rtscts` or `xonxoff`.
    """

    baud: int = 9600
    bytesize: int = 8
    parity: str = "none"
    stopbits: int = 1
    flow: str = "none"


@dataclass(frozen=True, slots=True)
class WheelEmulation:
    """What an emulated wheel plays (`drivers/emulated/wheel.py`).

    Attributes:
        seed: Seed of the winning numbers and of the irregular games; None: random.
        pockets: 38 (double zero) or 37 (single zero).
        pace_ms: One line this often (a real wheel's status period is 500 ms); 0: the
            emulator's owner sends each step (the simulation).
        faults: Mix in the hard games (warnings, void spins, a dropped line, a stuck
            sensor, garbled lines); False: clean games only.
        nmb_lines: State-4 (no more bets) lines a game (a wheel sends about 50).
        spins: Games to play, then the table closes; 0: no end.
        replay: Play this recorded byte stream instead (the wheel's own bytes).
    """

    seed: int | None = None
    pockets: int = 38
    pace_ms: int = 500
    faults: bool = True
    nmb_lines: int = 50
    spins: int = 0
    replay: Path | None = None


@dataclass(frozen=True, slots=True)
class WheelConfig:
    """`[devices.wheel]`: the automated roulette wheel's result feed (`drivers/WHEEL.md`).

    Attributes:
        name: Section name.
        kind: `serial` or `emulated`.
        url: The port (any pyserial URL); "" when emulated.
        line: The serial line's settings.
        timeout_ms: No line that fits the grammar for this long: the wheel is down.
        number_line: The wheel sends the bare winning-number line (its port 1, mode bit 16
            off): a result without one is warned `number_line_missing`.
        no_ball_lines: State-4 lines with the no-ball flag in a row that void the game.
        dialect: `ss2` (SlingShot) or `mercury` (flag 8 in play voids the game).
        emulation: The emulated wheel's game plan; None for a real wheel.
    """

    name: str
    kind: str
    url: str = ""
    line: LineSettings = LineSettings()
    timeout_ms: int = 3000
    number_line: bool = True
    no_ball_lines: int = 10
    dialect: str = "ss2"
    emulation: WheelEmulation | None = None


def read_wheel(section: Section, kind: str) -> WheelConfig:
    """Build the wheel's record from its section."""
    url = ""
    line = LineSettings()
    if kind == "serial":
        url = section.get("url", str)
        if not url.strip():
            raise section.error("url", "empty")
        line = _read_line_settings(section)
    return WheelConfig(
        section.name, kind, url, line,
        timeout_ms=section.integer("timeout_ms", 3000, minimum=500, maximum=60_000),
        number_line=bool(section.get("number_line", bool, True)),
        no_ball_lines=section.integer("no_ball_lines", 10, minimum=1, maximum=1000),
        dialect=section.choice("dialect", WHEEL_DIALECTS, "ss2"),
        emulation=_read_wheel_emulation(section) if kind != "serial" else None)


def _read_line_settings(section: Section) -> LineSettings:
    baud = section.integer("baud", 9600, minimum=300, maximum=4_000_000)
    if baud not in WHEEL_BAUD_RATES:
        raise section.error("baud", f"{baud} is not one of "
                                    f"{', '.join(map(str, WHEEL_BAUD_RATES))}")
    bytesize = section.integer("bytesize", 8, minimum=5, maximum=8)
    if bytesize not in (7, 8):
        raise section.error("bytesize", f"{bytesize} is not 7 or 8")
    stopbits = section.integer("stopbits", 1, minimum=1, maximum=2)
    return LineSettings(baud, bytesize, section.choice("parity", ("none", "even", "odd"), "none"),
                        stopbits, section.choice("flow", ("none", "rtscts", "xonxoff"), "none"))


def _read_wheel_emulation(section: Section) -> WheelEmulation:
    pockets = section.integer("pockets", 38, minimum=37, maximum=38)
    replay = section.get("replay", str, None)
    if replay is not None and not Path(replay).is_file():
        raise section.error("replay", f"no such file: {replay}")
    return WheelEmulation(
        seed=section.get("seed", int, None), pockets=pockets,
        pace_ms=section.integer("pace_ms", 500, minimum=0, maximum=10_000),
        faults=bool(section.get("faults", bool, True)),
        nmb_lines=section.integer("nmb_lines", 50, minimum=1, maximum=500),
        spins=section.integer("spins", 0, minimum=0, maximum=1_000_000),
        replay=Path(replay) if replay is not None else None)


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
) -> DevicesConfig:
    """Validate the `[devices]` table into a `DevicesConfig`.

    Args:
        devices: The parsed `devices` table (`tomllib` output), one sub-table per device.
        allow_emulated: True only when the process was started with the explicit flag.
        camera_kinds: Kinds accepted for `[devices.camera]` (from the camera driver).

    Raises:
        DeviceConfigError: Naming the device and the key.
    """
    found: dict[str, DeviceConfig] = {}
    for name, raw in devices.items():
        if not isinstance(raw, Mapping):
            raise DeviceConfigError(name, "", f"expected a table [devices.{name}]")
        found[name] = parse_device(name, raw, allow_emulated=allow_emulated,
                                   camera_kinds=camera_kinds)
    return DevicesConfig(**found)  # type: ignore[arg-type]


def parse_device(
    name: str,
    raw: Mapping[str, Any],
    *,
    allow_emulated: bool,
    camera_kinds: tuple[str, ...] = (),
) -> DeviceConfig:
    """Validate one `[devices.<name>]` section; see `parse_devices`."""
    roles = tuple(role.value for role in Role)
    if name not in roles:
        raise DeviceConfigError(name, "", f"unknown device; expected one of {', '.join(roles)}")
    role = Role(name)
    section = device_section(name, raw)
    kinds = camera_kinds if role is Role.CAMERA else KINDS[role]
    kind = section.choice("kind", kinds) if kinds else section.get("kind", str)
    if not kinds:
        raise section.error("kind", f"{kind!r}: no camera kinds are registered")
    if stands_in(name, kind) and not allow_emulated:
        raise section.error("kind", f"{kind!r} needs the explicit --allow-emulated flag")
    if role is Role.CAMERA:
        options = {key: value for key, value in raw.items() if key != "kind"}
        return CameraConfig(name, kind, options)
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
