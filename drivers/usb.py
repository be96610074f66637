"""A USB device's two bulk endpoints as a byte stream for firmware_bridge (the USB shoe).

The USB shoe carries exactly the same frames as the serial one, over a vendor-specific
interface with one bulk OUT and one bulk IN endpoint. `UsbTransport` has the methods of
`firmware_bridge.transport.SerialTransport` (open with three callbacks, write, close), so
`BridgeClient` runs on it unchanged: a reader thread polls the IN endpoint and hands the
bytes on; a vanished device (ENODEV) stops the reader with an error, which the driver
turns into `LinkDown` and a reconnection loop. pyusb finds the device by VID:PID (and
serial number) on the default libusb backend, or on an injected one (the emulator's).

Config::

    [devices.shoe]
    kind = "usb"
    vid = 0x1209
    pid = 0x5353
    serial_number = "SHOE0001"
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Final

import usb.core
import usb.util

from drivers.config import UsbPortConfig
from firmware_bridge import BridgeClosedError, TransportError

_LOG = logging.getLogger(__name__)
READ_SIZE: Final = 512
DEFAULT_TICK: Final = 0.02


def describe(port: UsbPortConfig) -> str:
    """A readable name for the device, used where a URL would be (`usb:1209:5353/SHOE0001`)."""
    suffix = f"/{port.serial_number}" if port.serial_number else ""
    return f"usb:{port.vid:04x}:{port.pid:04x}{suffix}"


class UsbTransport:
    """Bulk endpoints of one USB device, read on a background thread.

    Args:
        port: Which device (VID, PID, serial number).
        backend: A pyusb backend; None for libusb.
        tick: Longest wait on the IN endpoint before `on_tick` runs, in seconds.
    """

    def __init__(self, port: UsbPortConfig, *, backend: Any = None,
                 tick: float = DEFAULT_TICK) -> None:
        self.url = describe(port)
        self._port = port
        self._backend = backend
        self._tick_ms = max(1, int(tick * 1000))
        self._device: Any = None
        self._out: Any = None
        self._in: Any = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def open(self, on_bytes: Callable[[bytes], None], on_tick: Callable[[], None],
             on_error: Callable[[BaseException], None]) -> None:
        """Find and claim the device and start the reader thread.

        Raises:
            TransportError: The device is not present or cannot be claimed.
            BridgeClosedError: The transport was closed before.
        """
        if self._closed:
            raise BridgeClosedError(f"{self.url}: transport already closed")
        try:
            self._claim()
        except (usb.core.USBError, ValueError) as exc:
            raise TransportError(f"{self.url}: cannot open: {exc}") from exc
        self._thread = threading.Thread(target=self._read_loop,
                                        args=(on_bytes, on_tick, on_error),
                                        name=f"usb-reader {self.url}", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        """Write `data` to the bulk OUT endpoint.

        Raises:
            BridgeClosedError: Closed or never opened.
            TransportError: The device refused the transfer (e.g. it was unplugged).
        """
        with self._write_lock:
            if self._out is None or self._closed:
                raise BridgeClosedError(f"{self.url}: transport is not open")
            try:
                self._out.write(data)
            except usb.core.USBError as exc:
                raise TransportError(f"{self.url}: write failed: {exc}") from exc

    @property
    def is_open(self) -> bool:
        """True while the reader thread runs."""
        return not self._closed and self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        """Stop the reader and release the device (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1.0)
        if self._device is not None:
            try:
                usb.util.dispose_resources(self._device)
            except usb.core.USBError as exc:
                _LOG.debug("%s: release failed: %s", self.url, exc)

    def _claim(self) -> None:
        device = usb.core.find(idVendor=self._port.vid, idProduct=self._port.pid,
                               custom_match=self._matches, backend=self._backend)
        if device is None:
            raise ValueError("no such device is plugged in")
        interface = _configuration(device)[(0, 0)]
        find = usb.util.find_descriptor
        self._out = find(interface, custom_match=_direction(usb.util.ENDPOINT_OUT))
        self._in = find(interface, custom_match=_direction(usb.util.ENDPOINT_IN))
        if self._out is None or self._in is None:
            raise ValueError("interface 0 lacks a bulk OUT and a bulk IN endpoint")
        self._device = device

    def _matches(self, device: Any) -> bool:
        wanted = self._port.serial_number
        if wanted is None:
            return True
        try:
            return bool(device.serial_number == wanted)
        except (usb.core.USBError, ValueError):
            return False

    def _read_loop(self, on_bytes: Callable[[bytes], None], on_tick: Callable[[], None],
                   on_error: Callable[[BaseException], None]) -> None:
        try:
            while not self._stop.is_set():
                data = self._read_once()
                if data and not self._stop.is_set():
                    on_bytes(data)
                on_tick()
        except usb.core.USBError as exc:
            if self._stop.is_set():
                return
            _LOG.warning("%s: reader stopped: %s", self.url, exc)
            on_error(TransportError(f"{self.url}: read failed: {exc}"))

    def _read_once(self) -> bytes:
        try:
            return bytes(self._in.read(READ_SIZE, timeout=self._tick_ms))
        except usb.core.USBTimeoutError:
            return b""


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
