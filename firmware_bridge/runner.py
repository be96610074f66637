"""Run a `DeviceEndpoint` over real bytes: a pseudo-terminal or any pyserial URL.

`DeviceRunner` is the board's main loop on a thread: read what the host wrote, feed it to
the endpoint, poll the endpoint's timers, write its output. `open_pty` makes the pty pair
that byte-level emulators sit behind: the emulator keeps the master, the host opens
`slave_path` like any serial device.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import select
import threading
import tty
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import serial

from firmware_bridge.device import DeviceEndpoint
from firmware_bridge.errors import TransportError
from firmware_bridge.transport import DEFAULT_BAUDRATE

logger = logging.getLogger(__name__)

DEFAULT_TICK = 0.01


class BytePort(Protocol):
    """The few byte operations a `DeviceRunner` needs."""

    def read(self, timeout: float) -> bytes:
        """Return what has arrived, waiting at most `timeout` seconds for the first byte."""

    def write(self, data: bytes) -> None:
        """Write `data` (bytes nobody can take may be lost, as on a real UART)."""

    def close(self) -> None:
        """Release the port; idempotent."""


@dataclass(frozen=True, slots=True)
class PtyPair:
    """A pseudo-terminal pair in raw mode: the board side (master) and the host's path."""

    master_fd: int
    slave_fd: int
    slave_path: str

    def close(self) -> None:
        """Close both ends; idempotent."""
        for fd in (self.master_fd, self.slave_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


def open_pty() -> PtyPair:
    """Open a raw pty pair; the slave stays open here so the master never sees EIO."""
    master_fd, slave_fd = os.openpty()
    tty.setraw(slave_fd)
    flags = fcntl.fcntl(master_fd, fcntl.F_GETFL)
    fcntl.fcntl(master_fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    return PtyPair(master_fd, slave_fd, os.ttyname(slave_fd))


class FdPort:
    """A `BytePort` over a file descriptor, typically a pty master (non-blocking writes)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def read(self, timeout: float) -> bytes:
        """Return up to 4096 waiting bytes, or b"" after `timeout` seconds."""
        ready, _, _ = select.select([self._fd], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self._fd, 4096)
        except BlockingIOError:
            return b""

    def write(self, data: bytes) -> None:
        """Write `data`; what does not fit in the pty buffer is lost, like an unread UART."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except OSError as error:
                if error.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                    logger.debug("pty buffer full: %d bytes lost", len(view))
                    return
                raise

    def close(self) -> None:
        """Nothing to release: the fd's owner (e.g. `PtyPair`) closes it."""


class SerialBytePort:
    """A `BytePort` over any pyserial URL (a device, `socket://`, a pty path)."""

    def __init__(self, url: str, baudrate: int = DEFAULT_BAUDRATE) -> None:
        try:
            self._port = serial.serial_for_url(url, baudrate=baudrate, timeout=0)
        except (serial.SerialException, ValueError) as error:
            raise TransportError(f"{url}: cannot open: {error}") from error

    def read(self, timeout: float) -> bytes:
        """Return what has arrived, waiting at most `timeout` seconds."""
        self._port.timeout = timeout
        return bytes(self._port.read(max(1, self._port.in_waiting)))

    def write(self, data: bytes) -> None:
        """Write `data`."""
        self._port.write(data)

    def close(self) -> None:
        """Close the port; idempotent."""
        self._port.close()


class DeviceRunner:
    """Drives a `DeviceEndpoint` over a `BytePort` on its own thread.

    Args:
        endpoint: the board's protocol engine.
        port: where the host's bytes come from and the board's go.
        tick: longest wait between two polls of the endpoint's timers, in seconds.
        on_error: called with the exception if the thread fails (it then stops); the
            error is logged either way, never lost.
    """

    def __init__(
        self,
        endpoint: DeviceEndpoint,
        port: BytePort,
        *,
        tick: float = DEFAULT_TICK,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self._port = port
        self._tick = tick
        self._on_error = on_error
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"board-{endpoint.board.kind}", daemon=True
        )
        self.error: BaseException | None = None

    def start(self) -> DeviceRunner:
        """Power the board up and start its thread; returns self."""
        self.endpoint.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and close the port; idempotent."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._port.close()

    def __enter__(self) -> DeviceRunner:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                data = self._port.read(self._tick)
                if data:
                    self.endpoint.feed(data)
                self.endpoint.poll()
                output = self.endpoint.take_output()
                if output:
                    self._port.write(output)
        except Exception as error:
            logger.exception("board %s: runner failed", self.endpoint.board.kind)
            self.error = error
            if self._on_error is not None:
                self._on_error(error)
