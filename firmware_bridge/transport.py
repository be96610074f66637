"""The serial port, opened by URL, with a reader thread: the only host module doing I/O.

Any pyserial URL works: a device path, a udev name, `hwgrep://`, `socket://`, `loop://`,
`spy://` (traffic capture for field debugging), or a pty path from an emulator. A port is
opened exclusively (an advisory `flock`, pyserial's `exclusive=True`): a second opener, such
as a console started beside the running table, is refused with `PortInUseError` naming the
program that holds the port when `/proc/locks` tells. The reader thread only reads and hands
the bytes on; every error it meets is handed to `on_error` and logged, so it never dies
silently. Writes are serialised by a lock. `ThreadedTransport` is that life cycle for any
byte pipe; `SerialTransport` and the drivers' USB transport build on it.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import ClassVar, Final, Generic, Protocol, TypeVar

import serial

from firmware_bridge.errors import BridgeClosedError, BridgeError, PortInUseError, TransportError

logger = logging.getLogger(__name__)

DEFAULT_BAUDRATE: Final = 115200
DEFAULT_TICK: Final = 0.02

BytesSink = Callable[[bytes], None]
TickSink = Callable[[], None]
ErrorSink = Callable[[BaseException], None]
PipeT = TypeVar("PipeT")


class Transport(Protocol):
    """What `BridgeClient` needs of a transport; `SerialTransport` is the standard one.

    Other byte pipes (e.g. a USB bulk endpoint) implement these three methods with the same
    contract: callbacks on the transport's own reader thread, errors handed to `on_error`.
    `ThreadedTransport` provides that contract for any pipe.
    """

    def open(self, on_bytes: BytesSink, on_tick: TickSink, on_error: ErrorSink) -> None:
        """Open the pipe and start delivering bytes, ticks and the final error."""

    def write(self, data: bytes) -> None:
        """Write `data` whole, serialised with other writes."""

    def close(self) -> None:
        """Stop the reader and release the pipe; idempotent."""


class ThreadedTransport(ABC, Generic[PipeT]):
    """A byte pipe read on a background thread: the `Transport` contract for any pipe.

    A subclass opens, reads, writes and releases its pipe and names the exceptions its pipe
    raises (`pipe_errors`); this class runs the reader thread, serialises writes, turns pipe
    failures into `TransportError` naming the URL, and hands the error that stopped the
    reader to `on_error`.

    Args:
        url: names the pipe in errors, logs and the reader thread's name.
        tick: longest wait for bytes before `on_tick` runs, in seconds.
    """

    pipe_errors: ClassVar[tuple[type[Exception], ...]]
    """What the pipe raises when it fails (a bad address also raises `ValueError`)."""
    thread_prefix: ClassVar[str] = "bridge-reader"

    def __init__(self, url: str, tick: float) -> None:
        self.url = url
        self._tick = tick
        self._pipe: PipeT | None = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def open(self, on_bytes: BytesSink, on_tick: TickSink, on_error: ErrorSink) -> None:
        """Open the pipe and start the reader thread.

        Args:
            on_bytes: called on the reader thread with each chunk received.
            on_tick: called on the reader thread after each read (at least every `tick`).
            on_error: called once, on the reader thread, with the error that stopped it.

        Raises:
            TransportError: if the pipe cannot be opened (the text names the URL).
            BridgeClosedError: if the transport was closed before.
        """
        if self._closed:
            raise BridgeClosedError(f"{self.url}: transport already closed")
        open_errors: tuple[type[Exception], ...] = (*self.pipe_errors, ValueError)
        try:
            pipe = self._open_pipe()
        except BridgeError:
            raise
        except open_errors as error:
            raise TransportError(f"{self.url}: cannot open: {error}") from error
        self._pipe = pipe
        self._thread = threading.Thread(
            target=self._read_loop, args=(pipe, on_bytes, on_tick, on_error),
            name=f"{self.thread_prefix} {self.url}", daemon=True,
        )
        self._thread.start()

    def write(self, data: bytes) -> None:
        """Write `data` to the pipe, whole, before any other write.

        Raises:
            BridgeClosedError: if the transport is closed or was never opened.
            TransportError: if the pipe refuses the write (e.g. it was unplugged).
        """
        with self._write_lock:
            pipe = self._pipe
            if pipe is None or self._closed:
                raise BridgeClosedError(f"{self.url}: transport is not open")
            try:
                self._write(pipe, data)
            except self.pipe_errors as error:
                raise TransportError(f"{self.url}: write failed: {error}") from error

    @property
    def is_open(self) -> bool:
        """True between `open` and `close` while the reader thread runs."""
        return not self._closed and self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        """Stop the reader thread and release the pipe; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=max(1.0, 10 * self._tick))
        with self._write_lock:
            if self._pipe is not None:
                self._release(self._pipe)

    @abstractmethod
    def _open_pipe(self) -> PipeT:
        """Open the pipe (raising one of `pipe_errors` or `ValueError`)."""

    @abstractmethod
    def _read(self, pipe: PipeT) -> bytes:
        """Wait at most `tick` for bytes; b"" when none came."""

    @abstractmethod
    def _write(self, pipe: PipeT, data: bytes) -> None:
        """Write `data` whole."""

    @abstractmethod
    def _release(self, pipe: PipeT) -> None:
        """Release the pipe (after the reader stopped)."""

    def _lost(self, error: Exception) -> BaseException:
        """The error handed to `on_error` when the pipe failed under the reader."""
        return error

    def _read_loop(
        self, pipe: PipeT, on_bytes: BytesSink, on_tick: TickSink, on_error: ErrorSink
    ) -> None:
        try:
            while not self._stop.is_set():
                data = self._read(pipe)
                if data and not self._stop.is_set():
                    on_bytes(data)
                on_tick()
        except self.pipe_errors as error:
            if self._stop.is_set():
                return  # the pipe was closed under a blocked read: a normal end
            # A pulled cable is an expected event: one line, no traceback.
            logger.warning("%s: port lost: %s", self.url, error)
            on_error(self._lost(error))
        except Exception as error:
            if self._stop.is_set():
                return
            logger.exception("%s: reader thread stopped", self.url)
            on_error(error)


class SerialTransport(ThreadedTransport[serial.Serial]):
    """A serial port opened by URL, read on a background thread.

    Args:
        url: a pyserial URL or device path.
        baudrate: line speed (ignored by `loop://` and `socket://`).
        tick: longest wait for bytes before `on_tick` runs, in seconds.
    """

    pipe_errors = (serial.SerialException, OSError)

    def __init__(
        self, url: str, *, baudrate: int = DEFAULT_BAUDRATE, tick: float = DEFAULT_TICK
    ) -> None:
        super().__init__(url, tick)
        self._baudrate = baudrate

    def _open_pipe(self) -> serial.Serial:
        try:
            return serial.serial_for_url(self.url, baudrate=self._baudrate, timeout=self._tick,
                                         exclusive=True)
        except serial.SerialException as error:
            if error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
                raise
            holder = port_holder(self.url)
            raise PortInUseError(
                f"{self.url}: cannot open: the port is in use by "
                f"{holder or 'another program'}; a port is opened by one program at a "
                "time (stop it first)") from None

    def _read(self, pipe: serial.Serial) -> bytes:
        data = bytes(pipe.read(max(1, pipe.in_waiting)))
        if data and pipe.in_waiting:
            # Woken by a frame's first byte: the rest that came with it goes up together
            # rather than on a second turn of the reader (a pty, a USB packet).
            data += pipe.read(pipe.in_waiting)
        return data

    def _write(self, pipe: serial.Serial, data: bytes) -> None:
        pipe.write(data)

    def _release(self, pipe: serial.Serial) -> None:
        pipe.close()


def port_holder(url: str) -> str | None:
    """Who holds the exclusive lock on the port at `url`, from `/proc/locks` (Linux).

    Returns:
        "pid N (command line)", "this process (pid N)", or None when it cannot be told (not
        a local device, no `/proc`, or the lock is gone).
    """
    path = url.split("://", 1)[1].split("?", 1)[0] if "://" in url else url
    try:
        status = os.stat(path)
        with open("/proc/locks", encoding="ascii") as locks:
            lines = locks.read().splitlines()
    except OSError:
        return None
    wanted = (os.major(status.st_dev), os.minor(status.st_dev), status.st_ino)
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK":
            continue
        pid, where = fields[4], fields[5].split(":")
        try:
            found = (int(where[0], 16), int(where[1], 16), int(where[2]))
        except (IndexError, ValueError):
            continue
        if found == wanted:
            return _describe_pid(int(pid))
    return None


def _describe_pid(pid: int) -> str:
    if pid == os.getpid():
        return f"this process (pid {pid})"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read().split(b"\0")
    except OSError:
        return f"pid {pid}"
    command = " ".join(word.decode(errors="replace") for word in words if word)
    return f"pid {pid} ({command[:80]})" if command else f"pid {pid}"
