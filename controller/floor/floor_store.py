"""The floor store: every table's journal rows, as shipped, in PostgreSQL or SQLite.

One interface (`FloorStore`), two backends chosen by the store URL (`StoreUrl`):
`postgresql://...` (a libpq connection URI, through psycopg 3) where the casino runs a
PostgreSQL server, `sqlite:PATH` for a small floor. The same SQL runs on both; only the
placeholder and the statement that opens a write transaction differ.

`apply` takes one batch of a table's rows in one transaction. A row is stored only when it
is the next of the table's chain: its seq follows the last stored one and its `prev` is
the last stored `hash` (the links the floor can check without the table's key). A row
already stored is a repeat when it is identical (ignored) and a conflict otherwise. A
conflict, a broken link, or an announced anchor head that is not the floor's hash at its seq
is recorded as the table's refusal (first refused seq and why), and nothing of that table is
stored after it. Stored rows are never changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final, TypeVar

import psycopg
import psycopg.conninfo

from controller.floor.journal_protocol import StoredMessage
from controller.journal.anchor import Tip
from controller.journal.chain import GENESIS, Entry, canonical

SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS floor_table (
        name TEXT PRIMARY KEY,
        records BIGINT NOT NULL,
        head TEXT NOT NULL,
        anchor_records BIGINT NOT NULL,
        anchor_head TEXT NOT NULL,
        refused_seq BIGINT NOT NULL,
        refused_reason TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS floor_record (
        table_name TEXT NOT NULL,
        seq BIGINT NOT NULL,
        wall TEXT NOT NULL,
        mono DOUBLE PRECISION NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        prev TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (table_name, seq)
    )""",
)
_ROW: Final = "seq, wall, mono, kind, data, prev, hash"
_T = TypeVar("_T")


class FloorStoreError(Exception):
    """The store cannot be opened, read or written; the text names it and why."""


@dataclass(frozen=True, slots=True)
class StoreUrl:
    """A parsed `[store] url`: which backend, and where."""

    backend: str
    target: str

    @classmethod
    def parse(cls, text: str, base: Path) -> StoreUrl:
        """`postgresql://...` / `postgres://...`, or `sqlite:PATH` (relative to `base`).

        `sqlite:///abs/path` and `sqlite:relative/path` both work: what follows `sqlite:`
        (and up to two more slashes) is the file.
        """
        if text.startswith(("postgresql://", "postgres://")):
            try:
                psycopg.conninfo.conninfo_to_dict(text)
            except psycopg.ProgrammingError as exc:
                raise FloorStoreError(f"url {text!r}: not a PostgreSQL URI: "
                                      f"{str(exc).strip()}") from None
            return cls("postgresql", text)
        if text.startswith("sqlite:"):
            rest = text.removeprefix("sqlite:")
            path = "/" + rest.removeprefix("///") if rest.startswith("///") else rest
            path = path.removeprefix("//")
            if not path or path.endswith("/"):
                raise FloorStoreError(f"url {text!r}: sqlite: needs a file name")
            return cls("sqlite", str(base / path))
        raise FloorStoreError(f"url {text!r}: expected postgresql://... or sqlite:PATH")

    def __str__(self) -> str:
        if self.backend == "sqlite":
            return f"sqlite:{self.target}"
        parts = psycopg.conninfo.conninfo_to_dict(self.target)
        parts.pop("password", None)  # never in a log line
        return "postgresql: " + " ".join(f"{k}={v}" for k, v in sorted(parts.items()))


@dataclass(frozen=True, slots=True)
class TableCopy:
    """What the floor holds of one table's journal.

    Attributes:
        table: The table's name.
        tip: How many records (seq 1..N) and the last one's hash.
        anchor: The newest chain head the table announced (its anchor's).
        refused_seq: The first seq refused (0: none).
        refused_reason: Why.
    """

    table: str
    tip: Tip
    anchor: Tip
    refused_seq: int = 0
    refused_reason: str = ""

    def message(self, *, gap: bool = False) -> StoredMessage:
        """The `stored` message that tells the table this."""
        return StoredMessage(self.table, self.tip.records, self.tip.head, gap,
                             self.refused_seq, self.refused_reason)


def _entry(row: Sequence[Any]) -> Entry:
    seq, wall, mono, kind, data, prev, digest = row
    return Entry(int(seq), str(wall), float(mono), str(kind), json.loads(data), str(prev),
                 str(digest))


def _row(table: str, entry: Entry) -> tuple[Any, ...]:
    return (table, entry.seq, entry.wall, entry.mono, entry.kind, canonical(entry.data),
            entry.prev, entry.hash)


class FloorStore:
    """Every table's shipped journal, in the database at `url`.

    Raises:
        FloorStoreError: the database cannot be reached or prepared.
    """

    def __init__(self, url: StoreUrl) -> None:
        self.url = url
        self._begin = "BEGIN IMMEDIATE" if url.backend == "sqlite" else "BEGIN"
        try:
            self._db: Any = self._connect()
            for statement in SCHEMA:
                self._db.execute(statement)
        except (sqlite3.Error, psycopg.Error) as exc:
            raise FloorStoreError(f"floor store {url}: cannot open: {_one_line(exc)}") from None

    def _connect(self) -> Any:
        if self.url.backend == "postgresql":
            return psycopg.connect(self.url.target, autocommit=True, connect_timeout=10)
        path = Path(self.url.target)
        try:  # the rows carry what the tables' journals carry: the floor's alone (0600)
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
            os.chmod(path, 0o600)
        except OSError as exc:
            raise sqlite3.OperationalError(f"{path}: {exc.strerror}") from None
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(f"{path}{suffix}", 0o600)
        return db

    def _sql(self, statement: str) -> str:
        return statement.replace("%s", "?") if self.url.backend == "sqlite" else statement

    def _run(self, statement: str, params: Sequence[Any] = ()) -> None:
        self._db.cursor().execute(self._sql(statement), params)

    def _all(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        cursor = self._db.cursor()
        cursor.execute(self._sql(statement), params)
        rows: list[Any] = cursor.fetchall()
        return rows

    def tables(self) -> list[str]:
        """Every table the floor holds records of, by name."""
        return [str(r[0]) for r in self._guard(
            lambda: self._all("SELECT name FROM floor_table ORDER BY name"))]

    def copy(self, table: str) -> TableCopy:
        """What the floor holds of `table` (nothing yet: 0 records)."""
        return self._guard(lambda: self._copy(table))

    def _copy(self, table: str) -> TableCopy:
        rows = self._all("SELECT records, head, anchor_records, anchor_head, refused_seq, "
                         "refused_reason FROM floor_table WHERE name = %s", (table,))
        if not rows:
            return TableCopy(table, Tip(0, GENESIS), Tip(0, GENESIS))
        records, head, anchor_records, anchor_head, refused_seq, reason = rows[0]
        return TableCopy(table, Tip(int(records), str(head)),
                         Tip(int(anchor_records), str(anchor_head)), int(refused_seq),
                         str(reason))

    def entries(self, table: str, first: int = 1) -> Iterator[Entry]:
        """`table`'s stored rows from seq `first`, in order (read in pages)."""
        page = 2000
        sql = (f"SELECT {_ROW} FROM floor_record WHERE table_name = %s AND seq >= %s "
               "ORDER BY seq LIMIT %s")
        while True:
            rows = self._guard(partial(self._all, sql, (table, first, page)))
            yield from (_entry(r) for r in rows)
            if len(rows) < page:
                return
            first = int(rows[-1][0]) + 1

    def apply(self, table: str, records: Sequence[Entry], anchor: Tip) -> tuple[TableCopy, bool]:
        """Store what follows the table's chain of one batch, in one transaction.

        Returns:
            What the floor now holds, and whether the batch began beyond the next seq (a gap:
            the table must resend from `tip.records + 1`).

        Raises:
            FloorStoreError: the database refused; nothing of the batch was kept.
        """
        return self._guard(lambda: self._transaction(table, records, anchor))

    def _transaction(self, table: str, records: Sequence[Entry],
                     anchor: Tip) -> tuple[TableCopy, bool]:
        self._db.execute(self._begin)
        try:
            outcome = self._apply(table, records, anchor)
            self._db.execute("COMMIT")
        except BaseException:
            if self.url.backend == "postgresql" or self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        return outcome

    def _apply(self, table: str, records: Sequence[Entry],
               anchor: Tip) -> tuple[TableCopy, bool]:
        held = self._copy(table)
        if held.tip.records == 0 and held.anchor.records == 0 and not held.refused_seq:
            self._run("INSERT INTO floor_table VALUES (%s, %s, %s, %s, %s, %s, %s) "
                      "ON CONFLICT (name) DO NOTHING",
                      (table, 0, GENESIS, 0, GENESIS, 0, ""))
        tip, refused, gap = held.tip, None, False
        new: list[Entry] = []
        for entry in records if not held.refused_seq else ():
            if entry.seq > tip.records + 1:
                gap = True
                break
            refused = self._problem(table, entry, tip)
            if refused:
                break
            if entry.seq == tip.records + 1:
                new.append(entry)
                tip = Tip(entry.seq, entry.hash)
        if not refused and not held.refused_seq:
            refused = self._anchor_problem(table, anchor, tip, new)
        if new:
            self._db.cursor().executemany(self._sql(
                "INSERT INTO floor_record VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"),
                [_row(table, e) for e in new])
        refused_seq, reason = (refused if refused else (held.refused_seq, held.refused_reason))
        announced = anchor if anchor.records >= held.anchor.records else held.anchor
        self._run("UPDATE floor_table SET records = %s, head = %s, anchor_records = %s, "
                  "anchor_head = %s, refused_seq = %s, refused_reason = %s WHERE name = %s",
                  (tip.records, tip.head, announced.records, announced.head,
                                     refused_seq, reason, table))
        return TableCopy(table, tip, announced, refused_seq, reason), gap

    def _anchor_problem(self, table: str, anchor: Tip, tip: Tip,
                        new: list[Entry]) -> tuple[int, str] | None:
        """The table's anchor must name, at its seq, the hash the floor holds there."""
        if not 0 < anchor.records <= tip.records:
            return None
        fresh = {e.seq: e.hash for e in new}
        held = fresh.get(anchor.records) or str(self._all(
            "SELECT hash FROM floor_record WHERE table_name = %s AND seq = %s",
            (table, anchor.records))[0][0])
        if held == anchor.head:
            return None
        return anchor.records, (f"the table's anchor names head {anchor.head[:16]} at record "
                                f"{anchor.records}, the floor holds {held[:16]} there (the "
                                "table's journal was rewritten or replaced)")

    def _problem(self, table: str, entry: Entry, tip: Tip) -> tuple[int, str] | None:
        if entry.seq == tip.records + 1:
            if entry.prev != tip.head:
                return entry.seq, (f"record {entry.seq}: its prev {entry.prev[:16]} is not the "
                                   f"hash of record {tip.records} on the floor "
                                   f"({tip.head[:16]})")
            return None
        stored = self._all(f"SELECT {_ROW} FROM floor_record WHERE table_name = %s AND seq = %s",
                           (table, entry.seq))
        if stored and _entry(stored[0]) != entry:
            return entry.seq, (f"record {entry.seq}: differs from the floor's copy of it "
                               "(the table's journal was rewritten or replaced)")
        return None

    def _guard(self, work: Callable[[], _T]) -> _T:
        try:
            result = work()
        except (sqlite3.Error, psycopg.Error) as exc:
            raise FloorStoreError(f"floor store {self.url}: {_one_line(exc)}") from None
        return result

    def reopen(self) -> None:
        """Connect again (after the server went away).

        Raises:
            FloorStoreError: it cannot be reached.
        """
        with contextlib.suppress(sqlite3.Error, psycopg.Error):
            self._db.close()
        self._db = self._guard(self._connect)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._db.close()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def open_store(text: str, base: Path) -> FloorStore:
    """The store at URL `text` (a relative sqlite path is taken from `base`).

    Raises:
        FloorStoreError: a bad URL, or a database that cannot be opened (one line).
    """
    return FloorStore(StoreUrl.parse(text, base))
