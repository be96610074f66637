"""`progressive verify --floor`'s reconciliation, pure: what the controller applied against the
rows of the tables' journals (controller/floor/reconcile.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from controller.floor.reconcile import first_disagreement
from controller.journal.chain import GENESIS, Entry


def _entry(seq: int, kind: str, data: dict[str, Any]) -> Entry:
    return Entry(seq, "2026-12-06T20:00:00+00:00", 1.0, kind, data, GENESIS, f"{seq:064x}")


TABLE_ROWS = [
    _entry(1, "round:open", {"round": 1}),
    _entry(2, "bet:lock_out", {"round": 1, "accepted_progressive": [1, 3]}),
    _entry(3, "meter:linked_hit", {"round": 1, "seat": 3, "kind": "100%", "stake": 500,
                                   "cards": ["7D", "7D", "7D"]}),
    _entry(4, "round:void", {"round": 2}),
]
WHERE = {"table": "T1", "boot": "b", "seq": 2}


def _rows_of(table: str) -> Iterable[Entry]:
    return TABLE_ROWS if table == "T1" else []


def _applied(*records: tuple[str, dict[str, Any]]) -> list[Entry]:
    return [_entry(n, kind, WHERE | data) for n, (kind, data) in enumerate(records, start=10)]


def test_what_the_tables_played_reconciles() -> None:
    applied = _applied(("meter:init", {}), ("meter:contribution", {"round": 1, "seat": 1}),
                       ("meter:contribution", {"round": 1, "seat": 3}),
                       ("meter:hit", {"round": 1, "seat": 3, "kind": "100%",
                                      "cards": ["7D", "7D", "7D"]}),
                       ("floor:void", {"round": 2}), ("floor:boot", {}))
    assert first_disagreement(applied, _rows_of) == ("", 4)


@pytest.mark.parametrize(("record", "says"), [
    (("meter:contribution", {"round": 1, "seat": 2}),
     "table T1's contribution of round 1 seat 2 (boot b, seq 2): no Blazing 7's wager of that "
     "round and seat (the floor's copy of T1's journal, 4 records)"),
    (("meter:contribution", {"round": 5, "seat": 1}), "contribution of round 5 seat 1"),
    (("meter:hit", {"round": 1, "seat": 1, "kind": "100%", "cards": ["7D", "7D", "7D"]}),
     "hit of round 1 seat 1 (boot b, seq 2): no meter hit of that round and seat"),
    (("meter:hit", {"round": 1, "seat": 3, "kind": "100%", "cards": ["7D", "7D", "7C"]}),
     "the table's hit is 100%, cards ['7D', '7D', '7D']"),
    (("meter:hit", {"round": 1, "seat": 3, "kind": "10%", "cards": ["7D", "7D", "7D"]}),
     "the table's hit is 100%"),
    (("meter:void", {"round": 1}), "void of round 1 (boot b, seq 2): no void of that round"),
])
def test_what_no_table_played_is_named(record: tuple[str, dict[str, Any]], says: str) -> None:
    applied = _applied(("meter:contribution", {"round": 1, "seat": 1}), record)
    problem, checked = first_disagreement(applied, _rows_of)
    assert problem.startswith("controller record 11: ")
    assert says in problem
    assert checked == 1


def test_a_table_with_nothing_on_the_floor_disagrees() -> None:
    applied = [_entry(5, "meter:contribution", {"table": "T9", "boot": "x", "seq": 2,
                                                "round": 1, "seat": 1})]
    problem, _ = first_disagreement(applied, _rows_of)
    assert problem.endswith("(the floor's copy of T9's journal, 0 records)")
