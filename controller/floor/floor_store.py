"""The floor store: every table's journal rows, as shipped, in PostgreSQL or SQLite.

One interface (`FloorStore`), two backends chosen by the store URL (`StoreUrl`):
`postgresql://...` (a libpq connection URI, through psycopg 3) where the casino runs a
PostgreSQL server, `sqlite:PATH` for a small floor. The same SQL runs on both; only the
placeholder and the statement that opens a write transaction differ.

`apply` takes one batch of a table's rows in one transaction. The floor's copy of a table
(`floor_record`) is its chain as first received: a row joins it when its seq follows the last
stored one and its `prev` is the last stored `hash` (the links the floor can check without
the table's key). Stored rows are never changed.

The floor cannot poisoned into silence (docs/journal-threat-model.md): anyone holding the
table's certificate can send rows too, and the floor cannot tell them from the table's own.
So a row that differs from what the floor holds at its seq, but links to a row the floor
holds at the seq before, is kept beside the copy (`floor_other`, every version of a seq),
the table's first conflict (seq and why) is recorded for the floor view and `floor verify`,
and the floor goes on storing the chain the rows being shipped follow (`floor_follow`: where
that chain is, what the `stored` message reports). A row that links to nothing the floor
holds, or an anchor head the floor holds at no version of its seq, sends the table back (a
`gap`, up to `WALK_BACK` rows earlier) until its rows link: a table is never refused, and
every version of every row is kept.
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
    """CREATE TABLE IF NOT EXISTS floor_other (
        table_name TEXT NOT NULL,
        seq BIGINT NOT NULL,
        wall TEXT NOT NULL,
        mono DOUBLE PRECISION NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        prev TEXT NOT NULL,
        hash TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS floor_other_seq ON floor_other (table_name, seq)",
    """CREATE TABLE IF NOT EXISTS floor_follow (
        name TEXT PRIMARY KEY,
        records BIGINT NOT NULL,
        head TEXT NOT NULL,
        conflict_seq BIGINT NOT NULL,
        conflict_reason TEXT NOT NULL
    )""",
)
WALK_BACK: Final = 200
"""How far back a row that links to nothing sends the table (its rows are resent from there)."""
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
        refused_seq: The first seq refused (0: none; only older floors refused).
        refused_reason: Why.
        follow: Where the chain being shipped is (the copy's tip, unless rows conflicted).
        conflict_seq: The first seq of which the floor keeps two versions (0: none).
        conflict_reason: What differed.
    """

    table: str
    tip: Tip
    anchor: Tip
    refused_seq: int = 0
    refused_reason: str = ""
    follow: Tip | None = None
    conflict_seq: int = 0
    conflict_reason: str = ""

    @property
    def shipped(self) -> Tip:
        """Where the chain being shipped is (what the table is told)."""
        return self.follow if self.follow is not None else self.tip

    def message(self, *, gap: bool = False) -> StoredMessage:
        """The `stored` message that tells the table this."""
        return StoredMessage(self.table, self.shipped.records, self.shipped.head, gap,
                             self.refused_seq, self.refused_reason, self.conflict_seq,
                             self.conflict_reason)


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
        follow = self._all("SELECT records, head, conflict_seq, conflict_reason FROM "
                           "floor_follow WHERE name = %s", (table,))
        shipped, conflict, why = None, 0, ""
        if follow:
            shipped = Tip(int(follow[0][0]), str(follow[0][1]))
            conflict, why = int(follow[0][2]), str(follow[0][3])
        return TableCopy(table, Tip(int(records), str(head)),
                         Tip(int(anchor_records), str(anchor_head)), int(refused_seq),
                         str(reason), shipped, conflict, why)

    def other_versions(self, table: str) -> list[Entry]:
        """The rows kept beside the copy of `table` (other versions of a seq), by seq."""
        return [_entry(r) for r in self._guard(lambda: self._all(
            f"SELECT {_ROW} FROM floor_other WHERE table_name = %s ORDER BY seq, data",
            (table,)))]

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
        tip, follow, gap = held.tip, held.shipped, False
        conflict = (held.conflict_seq, held.conflict_reason)
        for entry in records:
            if entry.seq > follow.records + 1:
                gap = True
                break
            if entry.seq == tip.records + 1 and entry.prev == tip.head and follow == tip:
                self._insert("floor_record", table, entry)  # the usual case: no look-up
                tip = follow = Tip(entry.seq, entry.hash)
                continue
            versions = self._versions(table, entry.seq)
            if entry in versions:  # a repeat
                follow = Tip(entry.seq, entry.hash)
                continue
            if entry.prev not in self._hashes(table, entry.seq - 1):
                follow, gap = self._back(table, entry.seq), True
                break
            if entry.seq == tip.records + 1 and entry.prev == tip.head:
                self._insert("floor_record", table, entry)
                tip = Tip(entry.seq, entry.hash)
            else:
                self._insert("floor_other", table, entry)
                if versions and not conflict[0]:
                    conflict = (entry.seq, f"record {entry.seq} arrived in two versions "
                                f"({versions[0].kind} {versions[0].hash[:16]}, then "
                                f"{entry.kind} {entry.hash[:16]}): the table's journal was "
                                "rewritten or replaced, or someone else sent rows in its name")
            follow = Tip(entry.seq, entry.hash)
        if not gap and 0 < anchor.records <= follow.records and (
                anchor.head not in self._hashes(table, anchor.records)):
            follow, gap = self._back(table, anchor.records), True  # the table's own rows, again
        announced = anchor if anchor.records >= held.anchor.records else held.anchor
        self._run("UPDATE floor_table SET records = %s, head = %s, anchor_records = %s, "
                  "anchor_head = %s WHERE name = %s",
                  (tip.records, tip.head, announced.records, announced.head, table))
        if follow != tip or conflict[0] or held.follow is not None:
            self._run("INSERT INTO floor_follow VALUES (%s, %s, %s, %s, %s) ON CONFLICT (name) "
                      "DO UPDATE SET records = excluded.records, head = excluded.head, "
                      "conflict_seq = excluded.conflict_seq, "
                      "conflict_reason = excluded.conflict_reason",
                      (table, follow.records, follow.head, conflict[0], conflict[1]))
        return TableCopy(table, tip, announced, held.refused_seq, held.refused_reason,
                         follow if follow != tip or held.follow is not None else None,
                         *conflict), gap

    def _insert(self, into: str, table: str, entry: Entry) -> None:
        self._run(f"INSERT INTO {into} VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                  _row(table, entry))

    def _versions(self, table: str, seq: int) -> list[Entry]:
        """Every version the floor holds of `table`'s record `seq` (the copy's first)."""
        return [_entry(r) for r in (
            self._all(f"SELECT {_ROW} FROM floor_record WHERE table_name = %s AND seq = %s",
                      (table, seq))
            + self._all(f"SELECT {_ROW} FROM floor_other WHERE table_name = %s AND seq = %s",
                        (table, seq)))]

    def _hashes(self, table: str, seq: int) -> set[str]:
        """The hashes of every version of record `seq` (record 0: the genesis)."""
        if seq == 0:
            return {GENESIS}
        return {e.hash for e in self._versions(table, seq)}

    def _back(self, table: str, seq: int) -> Tip:
        """Where to send the table back to, when its record `seq` links to nothing held."""
        records = max(0, seq - 1 - WALK_BACK)
        heads = sorted(self._hashes(table, records))
        return Tip(records, heads[0] if heads else GENESIS)

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
