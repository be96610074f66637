"""`shoectl floor verify`: a table's journal against the floor's copy, and the copy alone.

The floor holds no table's key, so on its own it proves what the links prove: its copy of a
table runs seq 1..N with no gap, each row's `prev` is the hash of the row before (record 1's
is 64 zeros), and the chain head the table's anchor announced is the hash the floor holds at
that seq. It cannot prove that a hash is the keyed hash of its row (only the key can), so
a table that forged its journal before shipping it would pass here; what it does prove is
that nothing the floor received was changed, removed or reordered since, and that a local
journal differing from it was changed after it was shipped. Compared with a table's journal,
the first seq at which the two differ is named in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.floor.floor_store import TableCopy
from controller.journal.chain import GENESIS, Entry


@dataclass(frozen=True, slots=True)
class FloorVerdict:
    """Whether it holds, and the lines that say why (the last one: the problem, if any)."""

    ok: bool
    lines: tuple[str, ...]


def copy_problem(copy: TableCopy, found: Sequence[Entry]) -> str:
    """"" when the floor's copy of a table links up from seq 1 to its tip, else the problem."""
    prev = GENESIS
    for expected, entry in enumerate(found, start=1):
        if entry.seq != expected:
            return f"floor copy of {copy.table}: seq {expected} missing (found {entry.seq})"
        if entry.prev != prev:
            return (f"floor copy of {copy.table}: seq {entry.seq}: prev is not the hash of "
                    f"seq {expected - 1}")
        prev = entry.hash
    if len(found) != copy.tip.records or prev != copy.tip.head:
        return (f"floor copy of {copy.table}: holds {len(found)} rows but its account says "
                f"{copy.tip.records} (head {copy.tip.head[:16]})")
    announced = copy.anchor
    if 0 < announced.records <= len(found) and found[announced.records - 1].hash != announced.head:
        return (f"floor copy of {copy.table}: the table's anchor announced head "
                f"{announced.head[:16]} at seq {announced.records}, the floor holds "
                f"{found[announced.records - 1].hash[:16]} there")
    if copy.refused_seq:
        return (f"floor copy of {copy.table}: the floor refused seq {copy.refused_seq}: "
                f"{copy.refused_reason}")
    if copy.conflict_seq:
        return (f"floor copy of {copy.table}: two versions of seq {copy.conflict_seq} kept "
                f"({copy.conflict_reason}); `shoectl floor verify --state-dir` against the "
                "table's journal says which is the table's")
    return ""


def copy_summary(copy: TableCopy) -> str:
    """One line: what the floor holds of the table."""
    anchor = copy.anchor
    if copy.tip.records == 0:
        return f"floor copy of {copy.table}: 0 records (nothing shipped yet)"
    behind = (f"; the table's anchor last announced {anchor.records} records"
              if anchor.records != copy.tip.records else "")
    return (f"floor copy of {copy.table}: {copy.tip.records} records, seq 1-{copy.tip.records} "
            f"linked, head {copy.tip.head[:16]}{behind} (links checked; the keyed hashes need "
            "the table's key)")


def verify_copy(copy: TableCopy, found: Sequence[Entry]) -> FloorVerdict:
    """The floor's copy of one table, on its own."""
    problem = copy_problem(copy, found)
    if problem:
        return FloorVerdict(False, (problem,))
    return FloorVerdict(True, (copy_summary(copy),))


def _differ(seq: int, local: Entry, floor: Entry, later: str) -> str:
    if local.hashed_part() == floor.hashed_part():
        return (f"seq {seq}: same content, another hash (the local chain was recomputed, "
                f"under another key){later}")
    return (f"seq {seq}: the local record ({local.kind}) differs from the floor's copy "
            f"({floor.kind}){later}")


def first_disagreement(local: Sequence[Entry], floor: Sequence[Entry]) -> str:
    """"" when both hold the same rows, else one line naming the first seq that differs."""
    mine = {e.seq: e for e in local}
    theirs = {e.seq: e for e in floor}
    last_local = max(mine, default=0)
    for seq in range(1, max(last_local, max(theirs, default=0)) + 1):
        here, there = mine.get(seq), theirs.get(seq)
        if here == there:
            continue
        if here is None:
            why = (f"the local journal ends at seq {last_local} (truncated, or lost)"
                   if seq > last_local else "removed from the local journal")
            return f"seq {seq}: on the floor, missing from the local journal ({why})"
        if there is None:
            return (f"seq {seq}: in the local journal, not on the floor (not shipped yet, "
                    "or added behind the floor's back)")
        content = next((s for s in sorted(mine) if s >= seq and s in theirs
                        and mine[s].hashed_part() != theirs[s].hashed_part()), None)
        later = f"; content first differs at seq {content}" if content not in (None, seq) else ""
        return _differ(seq, here, there, later)
    return ""
