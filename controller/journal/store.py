"""The secured audit journal: append-only, hash-chained SQLite, plus the critical state.

Every record is chained: `hash = SHA-256(prev_hash + canonical JSON of the record)`, so a
changed, removed or reordered record breaks the chain at that point. Triggers refuse UPDATE
and DELETE on the journal. The critical state (meters, configuration hash, the round in
progress) is kept in two checksummed copies and written in the same transaction as the
records that change it (R14), so after a power loss at any instant the state on disk is
exactly the state after the last committed record.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.procedure.effects import Journal as JournalRecord

_LOG = logging.getLogger(__name__)

GENESIS: Final = "0" * 64
DB_NAME: Final = "journal.sqlite3"

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    wall TEXT NOT NULL,
    mono REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'journal is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'journal is append-only: DELETE refused'); END;
CREATE TABLE IF NOT EXISTS critical (
    copy INTEGER PRIMARY KEY CHECK (copy IN (0, 1)),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    checksum TEXT NOT NULL
);
"""


class JournalError(RuntimeError):
    """The journal or the critical state cannot be read, written or trusted."""


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 text (the form that is hashed)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev: str, record: dict[str, Any]) -> str:
    """The hash of one record given the previous record's hash."""
    return hashlib.sha256((prev + canonical(record)).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Entry:
    """One stored journal record."""

    seq: int
    wall: str
    mono: float
    kind: str
    data: dict[str, Any]
    prev: str
    hash: str

    def hashed_part(self) -> dict[str, Any]:
        """The fields covered by the hash."""
        return {"seq": self.seq, "wall": self.wall, "mono": self.mono, "kind": self.kind,
                "data": self.data}

    def as_json(self) -> dict[str, Any]:
        """The record with its chain fields, as exported."""
        return {**self.hashed_part(), "prev": self.prev, "hash": self.hash}


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The outcome of walking the chain."""

    records: int
    ok: bool
    first_bad_seq: int | None = None
    problem: str = ""


def _utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")


class JournalStore:
    """The journal database in a state directory.

    Args:
        state_dir: Directory holding `journal.sqlite3` (created if missing).
        clock: Monotonic clock recorded with each record.
        wall: Wall-clock source (ISO-8601 UTC text).
        durable: Wait for the storage on every commit (always, except throwaway journals).
    """

    def __init__(self, state_dir: Path, clock: Callable[[], float],
                 wall: Callable[[], str] = _utc_now, *, durable: bool = True) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / DB_NAME
        self._clock = clock
        self._wall = wall
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is on the storage before it returns (R14). Only throwaway journals
        # (property tests) may turn it off.
        self._db.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=OFF")
        self._db.executescript(_SCHEMA)
        self._last_seq, self._last_hash = self._tail()

    def _tail(self) -> tuple[int, str]:
        row = self._db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        return (0, GENESIS) if row is None else (int(row[0]), str(row[1]))

    def record_count(self) -> int:
        """How many records the journal holds (sequence numbers run 1, 2, 3...)."""
        return self._last_seq

    def last_kind(self) -> str:
        """The kind of the newest record ("" when the journal is empty)."""
        row = self._db.execute("SELECT kind FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        return "" if row is None else str(row[0])

    def commit(self, records: Sequence[JournalRecord], critical: dict[str, Any] | None) -> int:
        """Append records and (optionally) replace the critical state in one transaction.

        Returns:
            The sequence number of the last record written.

        Raises:
            JournalError: the database refused the write; nothing of it was kept.
        """
        seq, prev = self._last_seq, self._last_hash
        rows = []
        for record in records:
            seq += 1
            entry = {"seq": seq, "wall": self._wall(), "mono": self._clock(),
                     "kind": record.kind, "data": record.data}
            digest = chain_hash(prev, entry)
            rows.append((seq, entry["wall"], entry["mono"], record.kind, canonical(record.data),
                         prev, digest))
            prev = digest
        try:
            self._write(rows, seq, critical)
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: write failed: {exc}") from exc
        self._last_seq, self._last_hash = seq, prev
        return seq

    def _write(self, rows: list[tuple[Any, ...]], seq: int,
               critical: dict[str, Any] | None) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            if critical is not None:
                body = canonical(critical)
                checksum = hashlib.sha256(body.encode()).hexdigest()
                self._db.executemany(
                    "INSERT OR REPLACE INTO critical VALUES (?, ?, ?, ?)",
                    [(copy, seq, body, checksum) for copy in (0, 1)],
                )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def load_critical(self) -> dict[str, Any] | None:
        """The critical state, from the first copy whose checksum holds.

        Raises:
            JournalError: a copy exists but none is intact (critical memory error, R14).
        """
        rows = self._db.execute("SELECT copy, seq, body, checksum FROM critical ORDER BY copy")
        found = list(rows)
        for _copy, _seq, body, checksum in found:
            if hashlib.sha256(str(body).encode()).hexdigest() == checksum:
                state: dict[str, Any] = json.loads(body)
                return state
        if found:
            raise JournalError(f"journal {self.path}: critical state corrupt in every copy")
        return None

    def critical_copies_agree(self) -> bool:
        """True when both stored copies of the critical state are identical and intact."""
        rows = self._db.execute("SELECT body, checksum FROM critical").fetchall()
        intact = [b for b, c in rows if hashlib.sha256(str(b).encode()).hexdigest() == c]
        return len(intact) == len(rows) and len(set(intact)) <= 1

    def entries(self, kinds: Sequence[str] = ()) -> Iterator[Entry]:
        """Every record in order, optionally only the given kinds."""
        sql = "SELECT seq, wall, mono, kind, data, prev, hash FROM journal"
        args: tuple[str, ...] = ()
        if kinds:
            sql += f" WHERE kind IN ({','.join('?' * len(kinds))})"
            args = tuple(kinds)
        for seq, wall, mono, kind, data, prev, digest in self._db.execute(sql + " ORDER BY seq",
                                                                          args):
            yield Entry(int(seq), str(wall), float(mono), str(kind), json.loads(data), str(prev),
                        str(digest))

    def verify_chain(self) -> ChainReport:
        """Walk the chain from the start; report the first record that does not hold."""
        prev, expected_seq, count = GENESIS, 1, 0
        for entry in self.entries():
            problem = _entry_problem(entry, prev, expected_seq)
            if problem:
                return ChainReport(count, False, entry.seq, problem)
            prev, expected_seq, count = entry.hash, entry.seq + 1, count + 1
        return ChainReport(count, True)

    def close(self) -> None:
        """Close the database (idempotent)."""
        self._db.close()


@contextmanager
def open_existing(state_dir: Path) -> Iterator[JournalStore]:
    """Open the journal already in `state_dir` for reading (closed again on leaving).

    Raises:
        JournalError: there is no journal in `state_dir`.
    """
    if not (state_dir / DB_NAME).exists():
        raise JournalError(f"no journal in {state_dir} ({DB_NAME} not found)")
    store = JournalStore(state_dir, clock=lambda: 0.0)
    try:
        yield store
    finally:
        store.close()


def _entry_problem(entry: Entry, prev: str, expected_seq: int) -> str:
    if entry.seq != expected_seq:
        return f"record {entry.seq}: expected sequence {expected_seq} (a record is missing)"
    if entry.prev != prev:
        return f"record {entry.seq}: previous-hash link broken (a record was changed or removed)"
    if chain_hash(prev, entry.hashed_part()) != entry.hash:
        return f"record {entry.seq} ({entry.kind}): content does not match its hash"
    return ""
