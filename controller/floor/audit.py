"""`shoectl progressive show` and `verify`: the controller's journal, read from a private copy.

The journal verifies as a table's does (keyed chain, anchor, critical state, the meter
replayed from its records), and besides: no (table, boot, seq) was applied twice, and each
stream's last applied seq in the books is the last one recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.floor.ledger import FLOOR_KINDS, FloorBook
from controller.journal import audit
from controller.journal.chain import Entry


@dataclass(frozen=True, slots=True)
class FloorReport:
    """The verdict of `verify`: ok, and the lines that explain it (the last: the problem)."""

    ok: bool
    lines: tuple[str, ...]


def summary(state_dir: Path) -> dict[str, int]:
    """`{"meter", "hits", "cumulative_paid", "progressive_in"}` of a journal that verifies.

    Raises:
        JournalError: no journal there or unreadable; JournalTrustError: it does not verify.
    """
    meters = audit.stored_meters(state_dir)
    if meters is None:
        return {"meter": 0, "hits": 0, "cumulative_paid": 0, "progressive_in": 0}
    return {"meter": meters.amount, "hits": meters.hits,
            "cumulative_paid": meters.cumulative_paid, "progressive_in": meters.progressive_in}


def verify(state_dir: Path) -> FloorReport:
    """Verify the controller's journal in `state_dir` (nothing is written).

    Raises:
        JournalError: no journal there, or unreadable; JournalTrustError: key unusable.
    """
    found, report = audit.export_entries(state_dir)
    lines = report.lines
    if not report.ok:
        return FloorReport(False, lines)
    problem = _stream_problem(found) or _books_problem(state_dir, found)
    if problem:
        return FloorReport(False, (*lines, problem))
    applied = sum(1 for e in found if "seq" in e.data and e.kind in FLOOR_KINDS)
    return FloorReport(True, (*lines, f"{applied} table messages applied, each exactly once"))


def _streams(found: list[Entry]) -> dict[str, list[int]]:
    streams: dict[str, list[int]] = {}
    for entry in found:
        data: dict[str, Any] = entry.data
        if entry.kind in FLOOR_KINDS and "boot" in data:
            streams.setdefault(f"{data['table']}/{data['boot']}", []).append(int(data["seq"]))
    return streams


def _stream_problem(found: list[Entry]) -> str:
    for stream, seqs in _streams(found).items():
        if seqs != list(range(1, len(seqs) + 1)):
            repeated = sorted({s for s in seqs if seqs.count(s) > 1})
            what = f"seq {repeated[0]} applied twice" if repeated else "its seqs have a gap"
            return f"table stream {stream}: {what}"
    return ""


def _books_problem(state_dir: Path, found: list[Entry]) -> str:
    critical = audit.stored_critical(state_dir)
    if critical is None or "floor" not in critical:
        return "the critical state holds no floor books"
    try:
        book = FloorBook.from_json(critical)
    except (KeyError, TypeError, ValueError) as exc:
        return f"the floor books are unreadable: {exc}"
    recorded = {stream: seqs[-1] for stream, seqs in _streams(found).items()}
    if book.applied != recorded:
        return (f"the floor books' last applied seqs {book.applied} differ from the "
                f"journal's {recorded}")
    return ""
