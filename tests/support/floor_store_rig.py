"""The floor store's rig: the floor process (`shoectl floor serve`) and shipping tables.

The floor process runs as `python -m controller floor serve` so it can be killed with
SIGKILL; a table is a real journal (`JournalStore`) with a `JournalShipper`, so the tests can
compare, row for row, what the table journalled with what the floor holds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from controller.floor.floor_store import FloorStore, StoreUrl
from controller.floor.link import BrokerUrl, TlsFiles
from controller.floor.shipping import JournalShipper
from controller.journal.chain import Entry
from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal
from tests.support.mosquitto import CEILING_S, wait_for
from tests.support.postgres import Postgres


def new_store_url(backend: str, workdir: Path, postgres: Postgres | None) -> str:
    """A fresh, empty store of `backend`: a new SQLite file, or a new PostgreSQL database."""
    if backend == "sqlite":
        return f"sqlite:{workdir / f'floor-{uuid.uuid4().hex[:8]}.sqlite3'}"
    assert postgres is not None
    import psycopg

    name = f"floor_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres.url, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return postgres.url.replace("/postgres?", f"/{name}?")


class FloorProcess:
    """`shoectl floor serve` in its own process."""

    def __init__(self, workdir: Path, broker_url: str, store_url: str,
                 tls: tuple[Path, Path, Path] | None = None) -> None:
        self.workdir = workdir
        self.store_url = store_url
        self.config = workdir / "floor.toml"
        files = "".join(f'{name} = "{path}"\n' for name, path in
                        zip(("ca", "cert", "key"), tls, strict=True)) if tls else ""
        self.config.write_text(f'[link]\nbroker = "{broker_url}"\n{files}\n[store]\n'
                               f'url = "{store_url}"\n', encoding="utf-8")
        self.log = workdir / "floor.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the floor process."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "controller", "floor", "serve", "--config",
                 str(self.config)], stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())

    def kill(self) -> None:
        """SIGKILL: no goodbye."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=CEILING_S)

    def stop(self) -> None:
        """SIGTERM and wait."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=CEILING_S)

    def shoectl(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run `shoectl floor ARGS --config` with the floor's file."""
        return subprocess.run([sys.executable, "-m", "controller", "floor", *args,
                               "--config", str(self.config)],
                              capture_output=True, text=True, check=False, timeout=CEILING_S)

    def held(self, table: str) -> list[Entry]:
        """What the floor holds of `table`, read from the store directly."""
        store = FloorStore(StoreUrl.parse(self.store_url, self.workdir))
        try:
            return list(store.entries(table))
        finally:
            store.close()

    def other_versions(self, table: str) -> list[Entry]:
        """The rows the floor keeps beside its copy of `table` (other versions of a seq)."""
        store = FloorStore(StoreUrl.parse(self.store_url, self.workdir))
        try:
            return store.other_versions(table)
        finally:
            store.close()


class ShippingTable:
    """A table's journal and its shipper."""

    def __init__(self, workdir: Path, name: str, broker_url: str,
                 tls: TlsFiles | None = None) -> None:
        self.name = name
        self.state_dir = workdir / name
        self.store = JournalStore(self.state_dir, clock=_Clock(), durable=False)
        self.shipper = JournalShipper(BrokerUrl.parse(broker_url), tls, name, self.state_dir,
                                      self.store.key)
        self.shipper.start()

    def write(self, count: int, kind: str = "test:row") -> None:
        """Journal `count` records (one a commit), waking the shipper after each."""
        for n in range(count):
            self.store.commit([Journal(kind, {"n": n, "table": self.name,
                                              "hole": {"rank": "K", "suit": "s"}})], None)
            self.shipper.wake()

    def entries(self) -> list[Entry]:
        """Every record of the table's journal."""
        return list(self.store.entries())

    def close(self) -> None:
        """Stop shipping and close the journal."""
        self.shipper.stop()
        self.store.close()


class _Clock:
    """A monotonic clock that moves by a quarter second a call (values exact in binary)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def shipped(floor: FloorProcess, table: ShippingTable) -> None:
    """Wait until the floor holds exactly the table's journal, row for row."""
    wait_for(lambda: len(floor.held(table.name)) == table.store.records,
             f"the floor holds all {table.store.records} records of {table.name}")
    assert floor.held(table.name) == table.entries()


__all__ = ["FloorProcess", "ShippingTable", "new_store_url", "shipped", "wait_for"]
