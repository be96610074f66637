"""Whole-journal checks: the hash chain, the critical state, and meter reconciliation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.journal.store import JournalError, JournalStore, open_existing
from controller.procedure import meter_books


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict of `verify_state_dir`."""

    ok: bool
    records: int
    lines: tuple[str, ...]


def verify_state_dir(state_dir: Path) -> AuditReport:
    """Verify the journal in `state_dir`: chain intact, critical state intact, meters reconcile.

    Raises:
        JournalError: there is no journal in `state_dir`.
    """
    with open_existing(state_dir) as store:
        return _verify(store)


def _verify(store: JournalStore) -> AuditReport:
    chain = store.verify_chain()
    if not chain.ok:
        return AuditReport(False, chain.records,
                           (f"chain broken at record {chain.first_bad_seq}: {chain.problem}",))
    lines = [f"chain intact: {chain.records} records"]
    try:
        critical = store.load_critical()
    except JournalError as exc:
        return AuditReport(False, chain.records, (*lines, str(exc)))
    if not store.critical_copies_agree():
        return AuditReport(False, chain.records, (*lines, "critical state copies disagree"))
    problem = _meter_problem(store, critical)
    if problem:
        return AuditReport(False, chain.records, (*lines, problem))
    lines.append("meters reconcile with the recorded contributions, hits and corrections")
    return AuditReport(True, chain.records, tuple(lines))


def _meter_problem(store: JournalStore, critical: dict[str, object] | None) -> str:
    records = ((e.kind, e.data) for e in store.entries(meter_books.METER_KINDS))
    replayed, problem = meter_books.replay(records)
    if problem:
        return f"meter records inconsistent: {problem}"
    stored = critical.get("meters") if critical else None
    if stored is None:
        return "" if replayed is None else "the journal has meter records but no stored meters"
    if not isinstance(stored, dict):
        return "stored meters unreadable"
    return meter_books.reconcile(meter_books.Meters.from_json(stored), replayed)


def stored_meters(state_dir: Path) -> meter_books.Meters | None:
    """The meters in the critical state of `state_dir` (None when none were recorded).

    Raises:
        JournalError: there is no journal in `state_dir`, or its critical state is corrupt.
    """
    with open_existing(state_dir) as store:
        critical = store.load_critical()
    meters = critical.get("meters") if critical else None
    return meter_books.Meters.from_json(meters) if isinstance(meters, dict) else None
