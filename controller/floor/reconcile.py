"""`shoectl progressive verify --floor`: what the controller applied, against the tables' journals.

The controller takes no table's word at apply time beyond what it can check alone (a known
table, an announced boot, one contribution per round and seat, a hit only on a contributed
seat whose cards make the line). What it cannot check alone is that a wager was played: the
floor's copy of each table's journal says so. Every contribution the controller applied
(`meter:contribution` with `table`) must have that table's accepted Blazing 7's wager on that
round and seat (its `bet:lock_out`'s `accepted_progressive`); every hit (`meter:hit` with
`table`) the table's own record of the hit waiting for the controller (`meter:linked_hit`,
same round, seat and kind, the same cards); every void (`meter:void`, `floor:void`) the
table's `round:void`. The first that has none is named in one line. Pure but for the reading
of the floor's store through `rows_of`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.journal.chain import Entry

APPLIED_KINDS = ("meter:contribution", "meter:hit", "meter:void", "floor:void")
"""The controller's records that changed the meter for a table."""


@dataclass
class _TableFacts:
    """What one table's journal on the floor says was played."""

    records: int = 0
    wagers: set[tuple[int, int]] = field(default_factory=set)
    hits: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    voids: set[int] = field(default_factory=set)


def _facts(rows: Iterable[Entry]) -> _TableFacts:
    facts = _TableFacts()
    for entry in rows:
        facts.records += 1
        data = entry.data
        if entry.kind == "bet:lock_out":
            facts.wagers |= {(int(data["round"]), int(seat))
                             for seat in data.get("accepted_progressive", ())}
        elif entry.kind == "meter:linked_hit":
            facts.hits[(int(data["round"]), int(data["seat"]))] = data
        elif entry.kind == "round:void":
            facts.voids.add(int(data["round"]))
    return facts


def first_disagreement(applied: Sequence[Entry],
                       rows_of: Callable[[str], Iterable[Entry]]) -> tuple[str, int]:
    """("", how many applied records were checked), or the first disagreement and the count.

    `rows_of(table)` gives the floor's copy of a table's journal, in order.
    """
    tables: dict[str, _TableFacts] = {}
    checked = 0
    for entry in applied:
        data = entry.data
        if entry.kind not in APPLIED_KINDS or "table" not in data:
            continue
        table = str(data["table"])
        if table not in tables:
            tables[table] = _facts(rows_of(table))
        facts = tables[table]
        problem = _problem(entry, facts)
        if problem:
            subject, missing = problem
            return (f"controller record {entry.seq}: table {table}'s {subject} (boot "
                    f"{data.get('boot')}, seq {data.get('seq')}): {missing} (the floor's copy "
                    f"of {table}'s journal, {facts.records} records)"), checked
        checked += 1
    return "", checked


def _problem(entry: Entry, facts: _TableFacts) -> tuple[str, str] | None:
    """(what the record is, what the table's journal lacks), or None when nothing."""
    data = entry.data
    round_no = int(data["round"])
    if entry.kind == "meter:contribution":
        seat = int(data["seat"])
        if (round_no, seat) not in facts.wagers:
            return (f"contribution of round {round_no} seat {seat}",
                    "no Blazing 7's wager of that round and seat")
        return None
    if entry.kind == "meter:hit":
        seat = int(data["seat"])
        subject = f"hit of round {round_no} seat {seat}"
        held = facts.hits.get((round_no, seat))
        if held is None:
            return subject, "no meter hit of that round and seat"
        if held.get("kind") != data.get("kind") or held.get("cards") != data.get("cards"):
            return (f"{subject} ({data.get('kind')}, cards {data.get('cards')})",
                    f"the table's hit is {held.get('kind')}, cards {held.get('cards')}")
        return None
    if round_no not in facts.voids:
        return f"void of round {round_no}", "no void of that round"
    return None
