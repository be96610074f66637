"""Whole-journal checks: the keyed chain, the anchor, the critical state, meter reconciliation.

Everything here reads a private copy of the journal's files (`controller.journal.readonly`):
checking a journal never changes a byte of it, and a damaged one gives a verdict, never an
exception from SQLite or JSON.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from controller.journal import readonly
from controller.journal.anchor import ANCHOR_NAME, Anchor
from controller.journal.chain import DB_NAME, Entry, UnreadableRecordError, entries, read_critical
from controller.journal.errors import JournalTrustError
from controller.journal.keys import JournalKey
from controller.journal.store import journal_key
from controller.journal.verdict import Verdict, judge
from controller.procedure.community import (
    STATION_KINDS,
    reconcile_credits,
    replay_credits,
    stored_credits,
)
from controller.procedure.shared import meter_books


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict of `verify_state_dir`."""

    ok: bool
    records: int
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Opened:
    db: sqlite3.Connection | None
    verdict: Verdict
    key: JournalKey


@contextmanager
def _judged(state_dir: Path, key: JournalKey | None) -> Iterator[_Opened]:
    """The journal of `state_dir`, copied, opened and judged.

    Raises:
        JournalError: no journal there, or its files cannot be read.
        JournalTrustError: its key is missing or unusable.
    """
    key = key or journal_key(state_dir)
    with readonly.private_copy(state_dir) as copy:
        slots = Anchor.read(copy / ANCHOR_NAME, key)
        db_path = copy / DB_NAME
        db = sqlite3.connect(db_path) if db_path.exists() else None
        try:
            verdict = judge(db, slots, key, state_dir / DB_NAME, state_dir / ANCHOR_NAME)
            yield _Opened(db, verdict, key)
        finally:
            if db is not None:
                db.close()


def verify_state_dir(state_dir: Path, key: JournalKey | None = None) -> AuditReport:
    """Verify the journal in `state_dir` from a private copy (nothing is written).

    It verifies when the chain is intact under the key and in step with its anchor, the
    critical state is intact and the meters reconcile.

    Raises:
        JournalError: there is no journal in `state_dir`, or it cannot be read.
        JournalTrustError: its key is missing or unusable.
    """
    with _judged(state_dir, key) as opened:
        return _audit(opened)


def _audit(opened: _Opened) -> AuditReport:
    """On failure the last line is the problem."""
    verdict = opened.verdict
    lines = tuple(line for line in verdict.lines if line)
    if not verdict.ok or opened.db is None:
        return AuditReport(verdict.ok, verdict.records, lines)
    if verdict.degraded:
        return AuditReport(False, verdict.records, (*lines, *verdict.degraded))
    problem = _meter_problem(opened)
    if problem:
        return AuditReport(False, verdict.records, (*lines, problem))
    return AuditReport(True, verdict.records, (
        *lines, "meters reconcile with the recorded contributions, hits and corrections"))


def _critical(opened: _Opened) -> dict[str, object] | None:
    assert opened.db is not None
    body = read_critical(opened.db, opened.key, opened.verdict.tail).body
    parsed = json.loads(body) if body is not None else None
    return parsed if isinstance(parsed, dict) else None


def _meter_problem(opened: _Opened) -> str:
    assert opened.db is not None
    try:
        records = [(e.kind, e.data) for e in entries(opened.db, meter_books.METER_KINDS)]
        replayed, problem = meter_books.replay(iter(records))
        critical = _critical(opened)
    except (UnreadableRecordError, sqlite3.Error, ValueError) as exc:
        return f"meter records unreadable: {exc}"
    if problem:
        return f"meter records inconsistent: {problem}"
    stored = critical.get("meters") if critical else None
    if stored is None:
        return "" if replayed is None else "the journal has meter records but no stored meters"
    if not isinstance(stored, dict):
        return "stored meters unreadable"
    try:
        return meter_books.reconcile(meter_books.Meters.from_json(stored), replayed)
    except (KeyError, TypeError, ValueError) as exc:
        return f"stored meters unreadable: {exc}"


@contextmanager
def _verified(state_dir: Path, key: JournalKey | None) -> Iterator[_Opened]:
    """`_judged`, refused unless the journal verifies.

    Raises:
        JournalError: no journal there, or its files cannot be read.
        JournalTrustError: it does not verify (the verdict's last line), or its key is
            missing or unusable.
    """
    with _judged(state_dir, key) as opened:
        report = _audit(opened)
        if not report.ok:
            raise JournalTrustError(report.lines[-1])
        yield opened


def stored_meters(state_dir: Path, key: JournalKey | None = None) -> meter_books.Meters | None:
    """The meters in the critical state of `state_dir` (None when none were recorded).

    Only from a journal that verifies and whose meters reconcile.

    Raises:
        JournalError: there is no journal in `state_dir`, or it cannot be read.
        JournalTrustError: it does not verify (the verdict's first line), or its key is
            missing or unusable.
    """
    with _verified(state_dir, key) as opened:
        critical = _critical(opened) if opened.db is not None else None
    meters = critical.get("meters") if critical else None
    return meter_books.Meters.from_json(meters) if isinstance(meters, dict) else None


def stored_stations(state_dir: Path, key: JournalKey | None = None
                    ) -> tuple[dict[int, dict[str, int]], list[str]]:
    """The stations' credits and meters in the critical state, and where they differ.

    The second item lists where the kept credits and meters do not reconcile with the
    journal's station records (empty: they do). Only from a journal that verifies.

    Raises:
        JournalError: there is no journal in `state_dir`, or it cannot be read.
        JournalTrustError: it does not verify, or its key is missing or unusable.
    """
    with _verified(state_dir, key) as opened:
        if opened.db is None:
            return {}, []
        critical = _critical(opened)
        records = [(e.kind, e.data) for e in entries(opened.db, STATION_KINDS)]
    kept = stored_credits(critical)
    return kept, reconcile_credits(kept, replay_credits(records))


def export_entries(state_dir: Path, key: JournalKey | None = None) -> tuple[list[Entry],
                                                                              AuditReport]:
    """Every readable record of `state_dir`'s journal, in order, and its verdict.

    The records are given even from a journal that does not verify: they are the evidence.

    Raises:
        JournalError: there is no journal in `state_dir`, or it cannot be read.
        JournalTrustError: its key is missing or unusable.
    """
    with _judged(state_dir, key) as opened:
        report = _audit(opened)
        found = _readable(opened.db) if opened.db is not None else []
    return found, report


def _readable(db: sqlite3.Connection) -> list[Entry]:
    found: list[Entry] = []
    # Up to the first row that cannot be read: the verdict names it.
    with contextlib.suppress(UnreadableRecordError, sqlite3.Error, UnicodeError):
        found.extend(entries(db))
    return found


def stored_records(state_dir: Path, kinds: tuple[str, ...],
                   key: JournalKey | None = None) -> list[Entry]:
    """The records of these kinds in `state_dir`'s journal, in order.

    Only from a journal that verifies.

    Raises:
        JournalError: there is no journal in `state_dir`, or it cannot be read.
        JournalTrustError: it does not verify, or its key is missing or unusable.
    """
    with _verified(state_dir, key) as opened:
        return list(entries(opened.db, kinds)) if opened.db is not None else []


def stored_critical(state_dir: Path, key: JournalKey | None = None) -> dict[str, object] | None:
    """The whole critical state of `state_dir` (None when none was stored).

    Only from a journal that verifies and whose meters reconcile.

    Raises:
        JournalError: there is no journal in `state_dir`, or it cannot be read.
        JournalTrustError: it does not verify, or its key is missing or unusable.
    """
    with _verified(state_dir, key) as opened:
        return _critical(opened) if opened.db is not None else None
