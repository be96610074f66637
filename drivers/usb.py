"""A USB device's two bulk endpoints as a byte stream for firmware_bridge (the USB shoe).

The USB shoe carries exactly the same frames as the serial one, over a vendor-specific
interface with one bulk OUT and one bulk IN endpoint. `UsbTransport` is a
`firmware_bridge.transport.ThreadedTransport`, like the serial one (open with three
callbacks, write, close), so `BridgeClient` runs on it unchanged: a reader thread polls the
IN endpoint and hands the bytes on; a vanished device (ENODEV) stops the reader with an
error, which the driver turns into `LinkDown` and a reconnection loop. pyusb finds the device
by VID:PID (and serial number) on the default libusb backend, or on an injected one (the
emulator's). The interface is claimed when the pipe opens, which the kernel grants one
program at a time: a second program is refused with `PortInUseError`, as for a serial port.

Config::

    [devices.shoe]
    kind = "usb"
    vid = 0x1209
    pid = 0x5353
    serial_number = "SHOE0001"
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import usb.core
import usb.util

from drivers.config import UsbPortConfig
from firmware_bridge import PortInUseError, TransportError
from firmware_bridge.transport import DEFAULT_TICK, ThreadedTransport

_LOG = logging.getLogger(__name__)
READ_SIZE: Final = 512


def describe(port: UsbPortConfig) -> str:
    """A readable name for the device, used where a URL would be (`usb:1209:5353/SHOE0001`)."""
    suffix = f"/{port.serial_number}" if port.serial_number else ""
    return f"usb:{port.vid:04x}:{port.pid:04x}{suffix}"


@dataclass(frozen=True, slots=True)
class UsbPipe:
    """A claimed device and its two bulk endpoints."""

    device: Any
    out: Any
    into: Any


class UsbTransport(ThreadedTransport[UsbPipe]):
    """Bulk endpoints of one USB device, read on a background thread.

    Args:
        port: Which device (VID, PID, serial number).
        backend: A pyusb backend; None for libusb.
        tick: Longest wait on the IN endpoint before `on_tick` runs, in seconds.
    """

    pipe_errors = (usb.core.USBError,)
    thread_prefix = "usb-reader"

    def __init__(self, port: UsbPortConfig, *, backend: Any = None,
                 tick: float = DEFAULT_TICK) -> None:
        super().__init__(describe(port), tick)
        self._port = port
        self._backend = backend
        self._tick_ms = max(1, int(tick * 1000))

    def _open_pipe(self) -> UsbPipe:
        device = usb.core.find(idVendor=self._port.vid, idProduct=self._port.pid,
                               custom_match=self._matches, backend=self._backend)
        if device is None:
            raise ValueError("no such device is plugged in")
        interface = _configuration(device)[(0, 0)]
        find = usb.util.find_descriptor
        out = find(interface, custom_match=_direction(usb.util.ENDPOINT_OUT))
        into = find(interface, custom_match=_direction(usb.util.ENDPOINT_IN))
        if out is None or into is None:
            raise ValueError("interface 0 lacks a bulk OUT and a bulk IN endpoint")
        try:
            usb.util.claim_interface(device, interface)
        except usb.core.USBError as error:
            if error.errno != errno.EBUSY:
                raise
            usb.util.dispose_resources(device)
            raise PortInUseError(f"{self.url}: cannot open: the device is in use by another "
                                 "program (its interface is claimed); a device is opened by "
                                 "one program at a time (stop it first)") from None
        return UsbPipe(device, out, into)

    def _matches(self, device: Any) -> bool:
        wanted = self._port.serial_number
        if wanted is None:
            return True
        try:
            return bool(device.serial_number == wanted)
        except (usb.core.USBError, ValueError):
            return False

    def _read(self, pipe: UsbPipe) -> bytes:
        try:
            return bytes(pipe.into.read(READ_SIZE, timeout=self._tick_ms))
        except usb.core.USBTimeoutError:
            return b""

    def _write(self, pipe: UsbPipe, data: bytes) -> None:
        pipe.out.write(data)

    def _release(self, pipe: UsbPipe) -> None:
        try:
            usb.util.dispose_resources(pipe.device)
        except usb.core.USBError as exc:
            _LOG.debug("%s: release failed: %s", self.url, exc)

    def _lost(self, error: Exception) -> BaseException:
        return TransportError(f"{self.url}: read failed: {error}")


def _configuration(device: Any) -> Any:
    # Setting the configuration of a device that already has it is a lightweight reset on
    # Linux; only configure a device the kernel left unconfigured.
    try:
        return device.get_active_configuration()
    except usb.core.USBError:
        device.set_configuration()
        return device.get_active_configuration()


def _direction(direction: int) -> Callable[[Any], bool]:
    def matches(endpoint: Any) -> bool:
        return bool(usb.util.endpoint_direction(endpoint.bEndpointAddress) == direction)
    return matches
