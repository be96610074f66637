"""A real Mosquitto broker on loopback for the floor tests, and a small waiting helper.

The broker runs from the distribution's binary with a generated configuration on a free
port, persistence on (a restart keeps sessions and queued QoS 1 messages), and can be
stopped and started again on the same port. Nothing here waits for a fixed time: `wait_for`
polls a condition (a fact) until it holds, with a generous ceiling that only ends a test
that would otherwise hang.
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

CEILING_S = 60.0
"""Longest any fact is waited for (a hang guard, never a speed requirement)."""


def wait_for(fact: Callable[[], object], what: str, ceiling: float = CEILING_S) -> None:
    """Poll `fact` until it is true; fail naming `what` after `ceiling` seconds."""
    end = time.monotonic() + ceiling
    while not fact():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


class Mosquitto:
    """One broker process; `start`/`stop` may be called again and again.

    `listener` replaces the plain loopback listener (use `port`, chosen before it is made).
    """

    def __init__(self, workdir: Path, listener: str = "", port: int = 0) -> None:
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            raise RuntimeError("mosquitto is not installed (.ci/sysdeps installs it)")
        self.binary = binary
        self.port = port or free_port()
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "mosquitto.conf"
        self.config.write_text(
            (listener or f"listener {self.port} 127.0.0.1\nallow_anonymous true\n")
            # As root the broker would become user mosquitto, who cannot read the tests'
            # private directories: it stays the user running the tests.
            + f"user {getpass.getuser()}\n"
            + f"persistence true\npersistence_location {workdir}/\n"
            "autosave_interval 1\nmax_queued_messages 100000\n"
            f"log_dest file {workdir}/mosquitto.log\n", encoding="utf-8")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The broker's `mqtt://` address."""
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the broker and wait until it accepts connections."""
        self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        process = self.process
        wait_for(lambda: _accepts(self.port) or process.poll() is not None,
                 f"mosquitto listening on {self.port}")
        if process.poll() is not None:
            log = (self.workdir / "mosquitto.log").read_text(errors="replace")
            raise RuntimeError(f"mosquitto exited {process.returncode}: {log[-500:]}")

    def stop(self) -> None:
        """Stop the broker (SIGTERM: it saves its sessions) and wait for it to exit."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=CEILING_S)
        self.process = None
