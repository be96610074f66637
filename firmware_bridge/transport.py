"""The serial port, opened by URL, with a reader thread: the only host module doing I/O.

Any pyserial URL works: a device path, a udev name, `hwgrep://`, `socket://`, `loop://`,
`spy://` (traffic capture for field debugging), or a pty path from an emulator. The reader
thread only reads and hands the bytes on; every error it meets is handed to `on_error` and
logged, so it never dies silently. Writes are serialised by a lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Final, Protocol

import serial

from firmware_bridge.errors import BridgeClosedError, TransportError

logger = logging.getLogger(__name__)

DEFAULT_BAUDRATE: Final = 115200
DEFAULT_TICK: Final = 0.02

BytesSink = Callable[[bytes], None]
TickSink = Callable[[], None]
ErrorSink = Callable[[BaseException], None]


class Transport(Protocol):
    """What `BridgeClient` needs of a transport; `SerialTransport` is the standard one.

    Other byte pipes (e.g. a USB bulk endpoint) implement these three methods with the same
    contract: callbacks on the transport's own reader thread, errors handed to `on_error`.
    """

    def open(self, on_bytes: BytesSink, on_tick: TickSink, on_error: ErrorSink) -> None:
        """Open the pipe and start delivering bytes, ticks and the final error."""

    def write(self, data: bytes) -> None:
        """Write `data` whole, serialised with other writes."""

    def close(self) -> None:
        """Stop the reader and release the pipe; idempotent."""


class SerialTransport:
    """A serial port opened by URL, read on a background thread.

    Args:
        url: a pyserial URL or device path.
        baudrate: line speed (ignored by `loop://` and `socket://`).
        tick: longest wait for bytes before `on_tick` runs, in seconds.
    """

    def __init__(
        self, url: str, *, baudrate: int = DEFAULT_BAUDRATE, tick: float = DEFAULT_TICK
    ) -> None:
        self.url = url
        self._baudrate = baudrate
        self._tick = tick
        self._port: serial.Serial | None = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def open(self, on_bytes: BytesSink, on_tick: TickSink, on_error: ErrorSink) -> None:
        """Open the port and start the reader thread.

        Args:
            on_bytes: called on the reader thread with each chunk received.
            on_tick: called on the reader thread after each read (at least every `tick`).
            on_error: called once, on the reader thread, with the error that stopped it.

        Raises:
            TransportError: if the port cannot be opened (the text names the URL).
            BridgeClosedError: if the transport was closed before.
        """
        if self._closed:
            raise BridgeClosedError(f"{self.url}: transport already closed")
        try:
            port = serial.serial_for_url(self.url, baudrate=self._baudrate, timeout=self._tick)
        except (serial.SerialException, OSError, ValueError) as error:
            raise TransportError(f"{self.url}: cannot open: {error}") from error
        self._port = port
        self._thread = threading.Thread(
            target=self._read_loop, args=(port, on_bytes, on_tick, on_error),
            name=f"bridge-reader {self.url}", daemon=True,
        )
        self._thread.start()

    def write(self, data: bytes) -> None:
        """Write `data` to the port, whole, before any other write.

        Raises:
            BridgeClosedError: if the transport is closed or was never opened.
            TransportError: if the port refuses the write.
        """
        with self._write_lock:
            port = self._port
            if port is None or self._closed:
                raise BridgeClosedError(f"{self.url}: transport is not open")
            try:
                port.write(data)
            except (serial.SerialException, OSError) as error:
                raise TransportError(f"{self.url}: write failed: {error}") from error

    @property
    def is_open(self) -> bool:
        """True between `open` and `close` while the reader thread runs."""
        return not self._closed and self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        """Stop the reader thread and close the port; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=max(1.0, 10 * self._tick))
        with self._write_lock:
            if self._port is not None:
                self._port.close()

    def _read_loop(
        self, port: serial.Serial, on_bytes: BytesSink, on_tick: TickSink, on_error: ErrorSink
    ) -> None:
        try:
            while not self._stop.is_set():
                data = port.read(max(1, port.in_waiting))
                if data and not self._stop.is_set():
                    on_bytes(bytes(data))
                on_tick()
        except (serial.SerialException, OSError) as error:
            if self._stop.is_set():
                return  # the port was closed under a blocked read: a normal end
            # A pulled cable is an expected event: one line, no traceback.
            logger.warning("%s: port lost: %s", self.url, error)
            on_error(error)
        except Exception as error:
            if self._stop.is_set():
                return
            logger.exception("%s: reader thread stopped", self.url)
            on_error(error)
