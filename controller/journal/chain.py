"""The keyed chain: what is stored per record, and the checks over an open journal database.

Every record is chained: `hash = HMAC-SHA256(key, prev_hash + canonical JSON of the record)`,
so a changed, removed, reordered or added record breaks the chain at that point, and nobody
without the table's key can compute a chain that verifies. The critical state's copies carry
`HMAC-SHA256(key, "critical|<seq>|<head>|<body>")`, binding them to the record they were
written with (the last one: every commit re-binds them).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from controller.journal.anchor import Tip
from controller.journal.keys import JournalKey

GENESIS: Final = "0" * 64
DB_NAME: Final = "journal.sqlite3"
FORMAT: Final = 2
"""`PRAGMA user_version` of a keyed journal (0 was the unkeyed SHA-256 chain)."""

SCHEMA: Final = """
CREATE TABLE journal (
    seq INTEGER PRIMARY KEY,
    wall TEXT NOT NULL,
    mono REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'journal is append-only: UPDATE refused'); END;
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'journal is append-only: DELETE refused'); END;
CREATE TABLE critical (
    copy INTEGER PRIMARY KEY CHECK (copy IN (0, 1)),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    checksum TEXT NOT NULL
);
PRAGMA user_version = 2;
"""


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 text (the form that is hashed)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(key: JournalKey, prev: str, record: dict[str, Any]) -> str:
    """The keyed hash of one record given the previous record's hash."""
    return key.mac(prev + canonical(record))


def critical_mac(key: JournalKey, seq: int, head: str, body: str) -> str:
    """The MAC of a critical-state copy written with record `seq` (hash `head`)."""
    return key.mac(f"critical|{seq}|{head}|{body}")


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


class UnreadableRecordError(ValueError):
    """A stored row that is not a record (bad JSON or a field of the wrong type)."""


def entry_of(row: tuple[Any, ...]) -> Entry:
    """The record of one `journal` row.

    Raises:
        UnreadableRecordError: the row's fields are not a record's.
    """
    seq, wall, mono, kind, data, prev, digest = row
    try:
        payload = json.loads(data)
    except (ValueError, TypeError) as exc:
        raise UnreadableRecordError(f"record {seq}: data is not JSON ({exc})") from None
    typed = (isinstance(seq, int) and isinstance(wall, str) and isinstance(mono, float | int)
             and isinstance(kind, str) and isinstance(payload, dict)
             and isinstance(prev, str) and isinstance(digest, str))
    if not typed:
        raise UnreadableRecordError(f"record {seq}: a field has the wrong type")
    return Entry(seq, wall, float(mono), kind, payload, prev, digest)


def entries(db: sqlite3.Connection, kinds: tuple[str, ...] = (),
            after: int = 0) -> Iterator[Entry]:
    """Every record in order after seq `after`, optionally only the given kinds.

    Raises:
        UnreadableRecordError: a row is not a record.
        sqlite3.DatabaseError: the file is damaged.
    """
    sql = "SELECT seq, wall, mono, kind, data, prev, hash FROM journal WHERE seq > ?"
    if kinds:
        sql += f" AND kind IN ({','.join('?' * len(kinds))})"
    for row in db.execute(sql + " ORDER BY seq", (after, *kinds)):
        yield entry_of(row)


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The outcome of checking a journal database (chain, format, critical state)."""

    records: int
    ok: bool
    first_bad_seq: int | None = None
    problem: str = ""
    tail: Tip = field(default_factory=lambda: Tip(0, GENESIS))
    notes: tuple[str, ...] = ()


def check_format(db: sqlite3.Connection) -> str:
    """"" when `db` is a keyed journal of this format (or empty), else the problem."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables and version == 0:
        return "empty"
    if version != FORMAT:
        return (f"journal format {version}, expected {FORMAT} (a journal of an older release, "
                "unkeyed, or not a shoectl journal)")
    if not {"journal", "critical"} <= tables:
        return f"journal tables missing (found: {', '.join(sorted(tables)) or 'none'})"
    return ""


def walk_chain(db: sqlite3.Connection, key: JournalKey) -> ChainReport:
    """Walk the chain from the start; report the first record that does not hold.

    Raises:
        sqlite3.DatabaseError: the file is damaged.
    """
    prev, expected, count = GENESIS, 1, 0
    try:
        for entry in entries(db):
            problem = _entry_problem(key, entry, prev, expected)
            if problem:
                return ChainReport(count, False, entry.seq, problem)
            prev, expected, count = entry.hash, entry.seq + 1, count + 1
    except UnreadableRecordError as exc:
        return ChainReport(count, False, expected, str(exc))
    return ChainReport(count, True, tail=Tip(count, prev))


def _entry_problem(key: JournalKey, entry: Entry, prev: str, expected_seq: int) -> str:
    if entry.seq != expected_seq:
        return f"record {entry.seq}: expected sequence {expected_seq} (a record is missing)"
    if entry.prev != prev:
        return f"record {entry.seq}: previous-hash link broken (a record was changed or removed)"
    if chain_hash(key, prev, entry.hashed_part()) != entry.hash:
        return (f"record {entry.seq} ({entry.kind}): content does not match its keyed hash "
                "(changed, forged, or written under another key)")
    return ""


@dataclass(frozen=True, slots=True)
class CriticalCopies:
    """The critical state's stored copies, judged."""

    body: str | None
    intact: int
    stored: int
    problem: str = ""

    @property
    def agree(self) -> bool:
        """True when every stored copy is intact (and so identical)."""
        return self.intact == self.stored


def read_critical(db: sqlite3.Connection, key: JournalKey, tail: Tip) -> CriticalCopies:
    """The critical state bound to the chain's `tail`, from the copies whose MAC holds.

    A copy holds when its MAC is right for its body, its seq and the hash of the record at
    that seq, and that record is the tail (every commit re-binds the copies).

    Raises:
        sqlite3.DatabaseError: the file is damaged.
    """
    rows = db.execute("SELECT copy, seq, body, checksum FROM critical ORDER BY copy").fetchall()
    intact: list[str] = []
    for _copy, seq, body, checksum in rows:
        if (isinstance(body, str) and seq == tail.records
                and critical_mac(key, tail.records, tail.head, body) == checksum):
            intact.append(body)
    if rows and not intact:
        return CriticalCopies(None, 0, len(rows), "critical state corrupt in every copy "
                              f"(or not bound to record {tail.records})")
    if len(set(intact)) > 1:
        return CriticalCopies(None, len(intact), len(rows), "critical state copies differ")
    return CriticalCopies(intact[0] if intact else None, len(intact), len(rows))


def check_database(db: sqlite3.Connection, key: JournalKey) -> ChainReport:
    """Structure (SQLite's quick_check), format and the keyed chain.

    Raises:
        sqlite3.DatabaseError: the file is too damaged to read.
    """
    structure = db.execute("PRAGMA quick_check").fetchall()
    if [r[0] for r in structure] != ["ok"]:
        return ChainReport(0, False, None, f"damaged: {structure[0][0]}")
    problem = check_format(db)
    if problem == "empty":
        return ChainReport(0, True, notes=("journal file empty",))
    if problem:
        return ChainReport(0, False, None, problem)
    return walk_chain(db, key)
