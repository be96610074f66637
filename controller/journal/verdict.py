"""One verdict over a journal's files: its database, its anchor, under the table's key.

The service's start-up check (`JournalStore`) and `shoectl journal verify` both judge with
`judge`, so they cannot disagree. Every outcome is a verdict with lines naming the file and
what is wrong; nothing here raises on a damaged file.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from controller.journal.anchor import AnchorSlot, Tip, anchor_problem
from controller.journal.chain import GENESIS, ChainReport, check_database, read_critical
from controller.journal.keys import JournalKey


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a journal can be trusted, and the lines that say why.

    Attributes:
        ok: The chain verifies under the key and agrees with its anchor.
        records: Records in the chain (up to the first bad one).
        lines: Verdict lines: on failure the first names the file and the problem.
        tail: The chain's end.
        empty: The database holds no journal yet (new, or a file emptied: the anchor decides).
        degraded: What is trusted still holds but a redundant copy does not (one anchor slot
            or one critical-state copy unreadable). The service starts, falling back to the
            intact copy and rewriting the other; `shoectl journal verify` fails on it.
    """

    ok: bool
    records: int
    lines: tuple[str, ...]
    tail: Tip
    empty: bool = False
    degraded: tuple[str, ...] = ()


def judge(db: sqlite3.Connection | None, slots: list[AnchorSlot | None] | None,
          key: JournalKey, db_path: Path, anchor_path: Path) -> Verdict:
    """Judge a journal from its database and its anchor's slots.

    `db` is open on the database (None when there is no file), `slots` are the anchor's
    (None when there is no anchor file).
    """
    report = _database(db, key, db_path)
    if isinstance(report, Verdict):
        return report
    empty = db is None or "journal file empty" in report.notes
    if not report.ok:
        line = (f"chain broken at record {report.first_bad_seq}: {report.problem}"
                if report.first_bad_seq is not None else f"journal {db_path}: {report.problem}")
        return Verdict(False, report.records, (line,), report.tail)
    if slots is None:
        return Verdict(False, report.records, (
            f"anchor {anchor_path}: missing while the journal has "
            f"{'no records' if empty else f'{report.records} records'} (the anchor deleted, or "
            "the journal copied in from elsewhere)",), report.tail, empty)
    problem, note = anchor_problem(slots, report.tail, key)
    degraded: tuple[str, ...] = ()
    if not problem and db is not None and not empty:
        problem, degraded = _critical(db, key, report.tail)
    if problem:
        return Verdict(False, report.records, (f"journal {db_path}: {problem}",), report.tail,
                       empty)
    if slots.count(None) == 1:
        degraded = (f"anchor {anchor_path}: one of its two copies is unreadable (a write cut "
                    "short by a power loss, or damage)", *degraded)
    lines = (f"chain intact: {report.records} records (HMAC-SHA256 under key {key.key_id})",
             note, *report.notes)
    return Verdict(True, report.records, lines, report.tail, empty, degraded)


def _critical(db: sqlite3.Connection, key: JournalKey, tail: Tip) -> tuple[str, tuple[str, ...]]:
    try:
        copies = read_critical(db, key, tail)
    except (sqlite3.Error, UnicodeError) as exc:
        return f"critical state unreadable: {exc}", ()
    if copies.problem:
        return copies.problem, ()
    return "", () if copies.agree else ("critical state copies disagree: one is damaged, "
                                        "the other intact",)


def _database(db: sqlite3.Connection | None, key: JournalKey,
              db_path: Path) -> ChainReport | Verdict:
    if db is None:
        return ChainReport(0, True, notes=("journal file empty",))
    try:
        return check_database(db, key)
    except (sqlite3.Error, UnicodeError) as exc:  # undecodable text is damage too
        return Verdict(False, 0, (f"journal {db_path}: damaged: {exc} (SQLite cannot read "
                                  "it)",), Tip(0, GENESIS))
