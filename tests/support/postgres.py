"""A real PostgreSQL server for the floor tests, from the distribution's binaries.

`initdb` makes a cluster in a private temporary directory, `postgres` serves it on a unix
socket in that directory only (no TCP listener), trust authentication for the one local
user. As root (PostgreSQL refuses to run as root) the cluster belongs to `nobody` and the
server runs as it. Nothing waits for a fixed time: readiness is polled (`wait_for`).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from tests.support.mosquitto import CEILING_S, wait_for

USER = "shoectl"


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (.ci/sysdeps installs postgresql)")
    return Path(found[-1]).parent


def _as_owner() -> list[str]:
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]


class Postgres:
    """One server; `start`/`stop`/`kill` may be called again and again on the same cluster."""

    def __init__(self) -> None:
        self.bin = _bin_dir()
        self.root = Path(tempfile.mkdtemp(prefix="shoectl-pg-"))
        self.data = self.root / "data"
        self.process: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
        done = subprocess.run([*_as_owner(), str(self.bin / "initdb"), "-D", str(self.data),
                               "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync"],
                              capture_output=True, text=True, check=False, timeout=CEILING_S)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr[-500:]}")

    @property
    def url(self) -> str:
        """The server's `postgresql://` URI (the unix socket in the cluster's directory)."""
        return f"postgresql://{USER}@/postgres?host={self.root}"

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        with (self.root / "server.log").open("ab") as log:
            self.process = subprocess.Popen(
                [*_as_owner(), str(self.bin / "postgres"), "-D", str(self.data), "-k",
                 str(self.root), "-c", "listen_addresses=", "-c", "fsync=on"],
                stdout=log, stderr=subprocess.STDOUT)
        process = self.process
        wait_for(lambda: self._ready() or process.poll() is not None, "postgres ready")
        if process.poll() is not None:
            raise RuntimeError(f"postgres exited: {(self.root / 'server.log').read_text()}")

    def _ready(self) -> bool:
        done = subprocess.run([str(self.bin / "pg_isready"), "-h", str(self.root), "-U", USER],
                              capture_output=True, check=False, timeout=CEILING_S)
        return done.returncode == 0

    def stop(self) -> None:
        """Stop the server (fast shutdown) and wait for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=CEILING_S)
        self.process = None

    def remove(self) -> None:
        """Stop and delete the cluster."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
