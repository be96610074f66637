"""The secured audit journal: append-only, keyed-chain SQLite, plus the critical state.

Every record is chained under the table's key (`controller.journal.chain`); the chain's
record count and head are anchored in a second file (`controller.journal.anchor`), written
in step with every commit. Opening a journal checks all of it before anything is written:
a journal that does not verify is refused (`JournalTrustError`) and left byte for byte as it
was. Triggers refuse UPDATE and DELETE on the journal. The critical state (meters,
configuration hash, the round in progress) is kept in two keyed copies and written in the
same transaction as the records that change it (R14), so after a power loss at any instant
the state on disk is exactly the state after the last committed record.
"""

from __future__ import annotations

import datetime
import json
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.journal import keys, readonly, statedir
from controller.journal.anchor import ANCHOR_NAME, Anchor, AnchorSlot, Tip
from controller.journal.chain import (
    DB_NAME,
    GENESIS,
    SCHEMA,
    ChainReport,
    Entry,
    UnreadableRecordError,
    canonical,
    chain_hash,
    critical_mac,
    read_critical,
    walk_chain,
)
from controller.journal.chain import entries as chain_entries
from controller.journal.errors import JournalError, JournalTrustError
from controller.journal.keys import JournalKey
from controller.journal.verdict import Verdict, judge
from controller.procedure.core.effects import Journal as JournalRecord

__all__ = ["DB_NAME", "GENESIS", "Entry", "JournalError", "JournalStore", "JournalTrustError",
           "canonical", "chain_hash", "connect", "journal_key", "journal_present",
           "open_existing"]

_LOG = logging.getLogger(__name__)


def _utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")


def journal_key(state_dir: Path, *, new: bool = False) -> JournalKey:
    """The key of the journal in `state_dir` (`keys.key_file_for`).

    It is made for a new journal where that is allowed (`keys.may_create_on_first_start`).

    Raises:
        JournalTrustError: the key is missing, unreadable or not a key.
    """
    path = keys.key_file_for(state_dir)
    if new and not path.exists() and keys.may_create_on_first_start(path):
        return keys.create_key(path)
    return keys.load_key(path)


def connect(path: Path) -> sqlite3.Connection:
    """Open a journal database (no statement run yet).

    Raises:
        JournalError: SQLite cannot open the file.
    """
    try:
        return sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise JournalError(f"journal {path}: cannot open: {exc}") from None


class JournalStore:
    """The journal database in a state directory, checked before it is used.

    Args:
        state_dir: Directory holding `journal.sqlite3` and `journal.anchor` (created, mode
            0700, if missing).
        clock: Monotonic clock recorded with each record.
        wall: Wall-clock source (ISO-8601 UTC text).
        durable: Wait for the storage on every commit (always, except throwaway journals).
        key: The journal key (default: `journal_key(state_dir)`).

    Raises:
        JournalTrustError: the journal does not verify, or its key is missing or unusable.
        JournalError: the state directory or the files cannot be created or opened.
    """

    def __init__(self, state_dir: Path, clock: Callable[[], float],
                 wall: Callable[[], str] = _utc_now, *, durable: bool = True,
                 key: JournalKey | None = None) -> None:
        statedir.prepare(state_dir)
        self.path = state_dir / DB_NAME
        anchor_path = state_dir / ANCHOR_NAME
        new = not self.path.exists() and not anchor_path.exists()
        self.key = key or journal_key(state_dir, new=new)
        self._clock = clock
        self._wall = wall
        self._anchor = Anchor(anchor_path, self.key, durable=durable)
        if new:
            self._anchor.create(Tip(0, GENESIS))
        statedir.create_private_file(self.path)
        self._db = connect(self.path)
        try:
            self.verdict = self._open(Anchor.read(anchor_path, self.key), durable)
        except BaseException:
            self.close()
            raise
        self._tip = self.verdict.tail
        self._critical_body = read_critical(self._db, self.key, self._tip).body

    def _open(self, slots: list[AnchorSlot | None] | None, durable: bool) -> Verdict:
        verdict = judge(self._db, slots, self.key, self.path, self._anchor.path)
        if not verdict.ok:  # the caller reports it (one line), nothing is written
            raise JournalTrustError(verdict.lines[0])
        assert slots is not None  # judge refuses a journal without its anchor
        try:
            if verdict.empty:
                self._db.executescript(SCHEMA)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit is on the storage before it returns (R14). Only throwaway
            # journals (property tests) may turn it off.
            self._db.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=OFF")
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: cannot prepare: {exc}") from None
        statedir.restrict_files(self.path.parent, (DB_NAME + "-wal", DB_NAME + "-shm"))
        self._anchor.open(slots, verdict.tail)
        _LOG.info("journal %s verified: %s", self.path, "; ".join(verdict.lines[1:2]))
        for line in verdict.degraded:
            _LOG.warning("journal %s: %s; the intact copy is used and the other rewritten",
                         self.path, line)
        return verdict

    def last_kind(self) -> str:
        """The kind of the newest record ("" when the journal is empty)."""
        row = self._db.execute("SELECT kind FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        return "" if row is None else str(row[0])

    @property
    def records(self) -> int:
        """How many records the journal holds."""
        return self._tip.records

    @property
    def head(self) -> str:
        """The hash of the newest record (the chain's head, as the anchor holds it)."""
        return self._tip.head

    def commit(self, records: Sequence[JournalRecord], critical: dict[str, Any] | None) -> int:
        """Append records and (optionally) replace the critical state in one transaction.

        The anchor announces the commit before it and records it after it (both on storage).

        Returns:
            The sequence number of the last record written.

        Raises:
            JournalError: the database or the anchor refused the write; of a refused database
                write nothing was kept.
        """
        rows, tip = self._rows(records)
        body = canonical(critical) if critical is not None else self._critical_body
        if tip == self._tip and body == self._critical_body:
            return tip.records
        self._anchor.pending(tip)
        try:
            self._write(rows, tip, body)
        except sqlite3.Error as exc:
            self._anchor_failed()
            raise JournalError(f"journal {self.path}: write failed: {exc}") from None
        self._anchor.done(tip)
        self._tip, self._critical_body = tip, body
        return tip.records

    def _rows(self, records: Sequence[JournalRecord]) -> tuple[list[tuple[Any, ...]], Tip]:
        seq, prev = self._tip.records, self._tip.head
        rows = []
        for record in records:
            seq += 1
            entry = {"seq": seq, "wall": self._wall(), "mono": self._clock(),
                     "kind": record.kind, "data": record.data}
            digest = chain_hash(self.key, prev, entry)
            rows.append((seq, entry["wall"], entry["mono"], record.kind, canonical(record.data),
                         prev, digest))
            prev = digest
        return rows, Tip(seq, prev)

    def _write(self, rows: list[tuple[Any, ...]], tip: Tip, body: str | None) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            if body is not None:
                checksum = critical_mac(self.key, tip.records, tip.head, body)
                self._db.executemany(
                    "INSERT OR REPLACE INTO critical VALUES (?, ?, ?, ?)",
                    [(copy, tip.records, body, checksum) for copy in (0, 1)],
                )
            self._db.execute("COMMIT")
        except BaseException:
            # A failed COMMIT may already have rolled back: never hide its error behind
            # "cannot rollback - no transaction is active".
            if self._db.in_transaction:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error as rollback:
                    _LOG.error("journal %s: rollback failed: %s", self.path, rollback)
            raise

    def _anchor_failed(self) -> None:
        try:
            self._anchor.failed()
        except JournalError as exc:  # the pending slot still allows the unchanged tip
            _LOG.error("%s", exc)

    def load_critical(self) -> dict[str, Any] | None:
        """The critical state, from the first copy whose keyed checksum holds.

        Raises:
            JournalError: a copy exists but none is intact (critical memory error, R14).
        """
        try:
            copies = read_critical(self._db, self.key, self._tip)
        except (sqlite3.Error, UnicodeError) as exc:
            raise JournalError(f"journal {self.path}: critical state unreadable: {exc}") from None
        if copies.problem:
            raise JournalError(f"journal {self.path}: {copies.problem}")
        if copies.body is None:
            return None
        state: dict[str, Any] = json.loads(copies.body)
        return state

    def critical_copies_agree(self) -> bool:
        """True when both stored copies of the critical state are identical and intact."""
        return read_critical(self._db, self.key, self._tip).agree

    def entries(self, kinds: Sequence[str] = (), after: int = 0) -> Iterator[Entry]:
        """Every record in order after seq `after`, optionally only the given kinds.

        Raises:
            JournalError: a stored row cannot be read.
        """
        try:
            yield from chain_entries(self._db, tuple(kinds), after)
        except (UnreadableRecordError, sqlite3.Error, UnicodeError) as exc:
            raise JournalError(f"journal {self.path}: {exc}") from None

    def verify_chain(self) -> ChainReport:
        """Walk the chain from the start; report the first record that does not hold."""
        return walk_chain(self._db, self.key)

    def close(self) -> None:
        """Close the database and the anchor (idempotent)."""
        self._db.close()
        self._anchor.close()


@contextmanager
def open_existing(state_dir: Path, key: JournalKey | None = None) -> Iterator[JournalStore]:
    """Open a private copy of the journal in `state_dir` for reading (`readonly`).

    The journal's own files are never written; the copy is closed and removed on leaving.

    Raises:
        JournalError: there is no journal in `state_dir`, or it cannot be read.
        JournalTrustError: it does not verify, or its key is missing or unusable.
    """
    key = key or journal_key(state_dir)
    with readonly.private_copy(state_dir) as copy:
        store = JournalStore(copy, clock=lambda: 0.0, key=key)
        try:
            yield store
        finally:
            store.close()


def journal_present(state_dir: Path) -> bool:
    """True when `state_dir` holds a journal (its database or its anchor)."""
    return readonly.journal_present(state_dir)
