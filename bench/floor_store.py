"""Journals on the floor: rows a second shipped and stored, for SQLite and PostgreSQL.

    .venv/bin/python bench/floor_store.py [--records N] [--tables T]

Per backend (SQLite file; a PostgreSQL server started from the distribution's binaries in a
temporary directory): a private Mosquitto on loopback, `shoectl floor serve` in its own
process (durable commits, as in production), and T tables in this process, each with a
journal of N records written beforehand and a `JournalShipper` started at once. Printed:
the time from the shippers' start until the floor holds every row (checked in the store),
and the rows a second that is; then, without the broker, `FloorStore.apply` alone on batches
of 200 rows (the store's ceiling).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.floor.floor_store import FloorStore, StoreUrl
from controller.floor.shipping import BATCH
from controller.journal.anchor import Tip
from controller.journal.chain import Entry
from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal
from tests.support.floor_store_rig import FloorProcess, ShippingTable, new_store_url
from tests.support.mosquitto import Mosquitto
from tests.support.postgres import Postgres

ROW = {"round": 12, "to": ["seat", 3], "card": "KS", "note": "a dealt card, as the table"}


def _journal(state_dir: Path, records: int) -> None:
    store = JournalStore(state_dir, clock=time.monotonic, durable=False)
    for start in range(0, records, 100):
        store.commit([Journal("card:dealt", {**ROW, "n": n})
                      for n in range(start, min(records, start + 100))], None)
    store.close()


def _held(url: str, work: Path, tables: list[str]) -> int:
    store = FloorStore(StoreUrl.parse(url, work))
    try:
        return sum(store.copy(t).tip.records for t in tables)
    finally:
        store.close()


def shipped(backend: str, work: Path, records: int, count: int,
            server: Postgres | None) -> float:
    """Seconds from the shippers' start until the floor holds every row of every table."""
    names = [f"T{n}" for n in range(1, count + 1)]
    for name in names:
        _journal(work / name, records)
    broker = Mosquitto(work / "broker")
    broker.start()
    url = new_store_url(backend, work, server)
    floor = FloorProcess(work, broker.url, url)
    floor.start()
    try:
        start = time.monotonic()
        tables = [ShippingTable(work, name, broker.url) for name in names]
        while _held(url, work, names) < records * count:
            time.sleep(0.05)
        elapsed = time.monotonic() - start
        for table in tables:
            table.close()
        return elapsed
    finally:
        floor.stop()
        broker.stop()


def stored(backend: str, work: Path, records: int, server: Postgres | None) -> float:
    """Seconds for `FloorStore.apply` alone to take `records` rows in batches of BATCH."""
    _journal(work / "direct", records)
    source = JournalStore(work / "direct", clock=time.monotonic, durable=False)
    rows: list[Entry] = list(source.entries())
    source.close()
    store = FloorStore(StoreUrl.parse(new_store_url(backend, work, server), work))
    start = time.monotonic()
    for first in range(0, len(rows), BATCH):
        batch = rows[first:first + BATCH]
        store.apply("direct", batch, Tip(batch[-1].seq, batch[-1].hash))
    elapsed = time.monotonic() - start
    store.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20000, help="rows a table (20000)")
    parser.add_argument("--tables", type=int, default=2, help="shipping tables (2)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    server = Postgres()
    server.start()
    try:
        print(f"{'backend':<11} {'what':<34} {'rows':>8} {'seconds':>8} {'rows/s':>8}")
        for backend in ("sqlite", "postgresql"):
            with tempfile.TemporaryDirectory(prefix="shoectl-bench-") as tmp:
                total = args.records * args.tables
                seconds = shipped(backend, Path(tmp), args.records, args.tables, server)
                print(f"{backend:<11} {f'shipped + stored, {args.tables} tables':<34} "
                      f"{total:>8} {seconds:>8.2f} {total / seconds:>8.0f}")
            with tempfile.TemporaryDirectory(prefix="shoectl-bench-") as tmp:
                seconds = stored(backend, Path(tmp), args.records, server)
                print(f"{backend:<11} {'stored alone (apply, 200 a batch)':<34} "
                      f"{args.records:>8} {seconds:>8.2f} {args.records / seconds:>8.0f}")
    finally:
        server.remove()


if __name__ == "__main__":
    main()
