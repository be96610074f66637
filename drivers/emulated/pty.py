"""The device end of a real pseudo-terminal, so drivers and pyserial run unchanged on emulators.

`PtyPort` opens a raw pty pair (`firmware_bridge.runner.open_pty`), keeps both ends (so the
host may close and reopen the port without the pty vanishing), and serves the master end
from one I/O thread: bytes the host writes go to `on_receive`; `write()` queues bytes for
the host without ever blocking the caller. With `link_dir`, a stable symlink
(`<link_dir>/<name>`) points at the current terminal, as a udev rule names a real port.

Stimulus:
    `unplug()` closes the pty (the host's next read fails, as when a USB-serial adapter is
    pulled out); `replug()` makes a new pty and points the symlink at it.

Observation:
    `path` (what the host opens), `plugged`, `bytes_in`, `bytes_out`, `dropped` (bytes not
    delivered because the host was not reading and the buffer was full).
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

from firmware_bridge.runner import open_pty

_LOG = logging.getLogger(__name__)
_READ_SIZE: Final = 4096
MAX_PENDING: Final = 1 << 20
"""Bytes held for a host that is not reading before further bytes are dropped."""


class PtyPort:
    """One emulated serial port behind a pseudo-terminal.

    Args:
        on_receive: Called on the I/O thread with each chunk the host writes.
        name: Port name, used for the symlink and the thread name.
        link_dir: Directory for a stable symlink to the terminal; None to use the
            terminal's own path.
    """

    def __init__(self, on_receive: Callable[[bytes], None], *, name: str = "port",
                 link_dir: Path | None = None) -> None:
        self.on_receive = on_receive
        self.name = name
        self._link = None if link_dir is None else Path(link_dir) / name
        self._lock = threading.Lock()
        self._pending = bytearray()
        self._master = -1
        self._slave = -1
        self._tty_path = ""
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None
        self.plugged = False
        self.bytes_in = 0
        self.bytes_out = 0
        self.dropped = 0

    @property
    def path(self) -> str:
        """The path the host opens (the stable symlink when there is one)."""
        return str(self._link) if self._link is not None else self._tty_path

    @property
    def tty_path(self) -> str:
        """The current terminal device (`/dev/pts/N`)."""
        return self._tty_path

    def open(self) -> PtyPort:
        """Create the pty and start serving it; returns self."""
        with self._lock:
            if self.plugged:
                return self
            pair = open_pty()
            self._master, self._slave = pair.master_fd, pair.slave_fd
            self._tty_path = pair.slave_path
            self._wake_r, self._wake_w = os.pipe()
            self._pending.clear()
            self.plugged = True
        self._point_link()
        self._thread = threading.Thread(target=self._serve, name=f"pty-{self.name}",
                                        daemon=True)
        self._thread.start()
        return self

    def write(self, data: bytes) -> None:
        """Queue bytes for the host; never blocks. Dropped while unplugged."""
        with self._lock:
            if not self.plugged:
                self.dropped += len(data)
                return
            room = MAX_PENDING - len(self._pending)
            self._pending += data[:room]
            self.dropped += max(0, len(data) - room)
            wake = self._wake_w
        with contextlib.suppress(OSError):
            os.write(wake, b"w")

    def unplug(self) -> None:
        """Make the port vanish: stop serving and close the pty."""
        with self._lock:
            if not self.plugged:
                return
            self.plugged = False
            wake = self._wake_w
        with contextlib.suppress(OSError):
            os.write(wake, b"x")
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
        if self._link is not None:
            with contextlib.suppress(FileNotFoundError):
                self._link.unlink()

    def replug(self) -> None:
        """Plug a new pty in (the symlink follows it)."""
        self.unplug()
        self.open()

    close = unplug

    def __enter__(self) -> PtyPort:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ I/O thread

    def _point_link(self) -> None:
        if self._link is None:
            return
        temporary = self._link.with_name(self._link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        temporary.symlink_to(self._tty_path)
        temporary.replace(self._link)

    def _serve(self) -> None:
        master, wake = self._master, self._wake_r
        selector = selectors.DefaultSelector()
        selector.register(master, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        try:
            while self.plugged:
                self._serve_once(selector, master, wake)
        except OSError as exc:
            _LOG.debug("pty %s: I/O ended: %s", self.name, exc)
        finally:
            selector.close()
            self._close_fds(master, wake)

    def _serve_once(self, selector: selectors.BaseSelector, master: int, wake: int) -> None:
        with self._lock:
            wants_write = bool(self._pending)
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if wants_write else 0)
        selector.modify(master, events)
        for key, mask in selector.select(timeout=1.0):
            if key.fd == wake:
                os.read(wake, _READ_SIZE)
            elif mask & selectors.EVENT_READ:
                self._receive(master)
            if key.fd == master and mask & selectors.EVENT_WRITE:
                self._flush(master)

    def _receive(self, master: int) -> None:
        try:
            data = os.read(master, _READ_SIZE)
        except BlockingIOError:
            return
        if data:
            self.bytes_in += len(data)
            self.on_receive(data)

    def _flush(self, master: int) -> None:
        with self._lock:
            chunk = bytes(self._pending[:_READ_SIZE])
        try:
            written = os.write(master, chunk)
        except BlockingIOError:
            return
        with self._lock:
            del self._pending[:written]
        self.bytes_out += written

    def _close_fds(self, master: int, wake: int) -> None:
        with self._lock:
            fds = (master, self._slave, wake, self._wake_w)
            self._master = self._slave = self._wake_r = self._wake_w = -1
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
