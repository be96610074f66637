"""What the boards share: their serial or USB port, link timeout and trust (key, firmware)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from confkeys import Section
from drivers.config.roles import is_emulated

KEY_DIR: Final = Path("/etc/shoectl/keys")
"""Where a board's pairing key lives on the Pi by default (`<role>.key`)."""


AUTH_MODES: Final = ("paired", "none")


MAX_FIRMWARE_TEXT: Final = 32


BAUD_RATES: Final = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)


DEFAULT_TIMEOUT_MS: Final = 750
"""A board silent this long is down (firmware_bridge's default link timeout)."""


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


def read_timeout(section: Section) -> int:
    """Read `timeout_ms`: silence after which a board's link is declared down."""
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
        named = section.path("key_file")
        key_file = Path(named) if named is not None else None
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


def read_port_url(section: Section) -> str:
    """Read `url`: a pyserial URL, or a device path (a relative one from the file's folder)."""
    url: str = section.get("url", str)
    if not url.strip():
        raise section.error("url", "empty")
    return url if "://" in url else section.resolve(url)


def read_serial_port(section: Section) -> SerialPortConfig:
    """Read `url` and `baud`."""
    url = read_port_url(section)
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
