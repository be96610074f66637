"""What the floor view shows of an attack: the controller's alarms, a copy in conflict, the hits
after the conflict marked disputed (controller/floor/floor_view.py, pure: no broker)."""

from __future__ import annotations

from controller.floor.floor_store import TableCopy
from controller.floor.floor_view import FloorView
from controller.journal.anchor import Tip
from controller.journal.chain import GENESIS, Entry

ALARM = {"table": "T1", "why": "too_many_boots", "reason": "table T1: 10 boots on 2026-12-06 "
         "already, at most 10 a day ([link] max_boots_per_day)", "count": 3,
         "first": "2026-12-06T20:00:00+00:00", "last": "2026-12-06T20:00:02+00:00"}


def _paid_row(seq: int, paid: int) -> Entry:
    return Entry(seq, "2026-12-06T20:00:00+00:00", 1.0, "floor:confirmed",
                 {"answer": {"type": "ack", "paid": paid}}, GENESIS, f"{seq:064x}")


def test_the_view_shows_alarms_conflicts_and_disputed_hits() -> None:
    view = FloorView()
    view.heard("shoectl/floor/bank-a/table/T1/status", {"state": "online"})
    view.heard("shoectl/floor/bank-a/alarms", {"group": "bank-a", "alarms": [ALARM, "junk"]})
    clean = TableCopy("T1", Tip(10, "a" * 64), Tip(10, "a" * 64))
    view.stored(clean, [_paid_row(10, 100_000)])
    conflicted = TableCopy("T1", Tip(23, "b" * 64), Tip(23, "b" * 64), follow=Tip(30, "c" * 64),
                           conflict_seq=21, conflict_reason="record 21 arrived in two versions")
    view.stored(conflicted, [_paid_row(22, 99_999_999)])
    snapshot = view.snapshot()
    [group] = snapshot["groups"]
    assert group["alarms"] == [ALARM]
    assert [(h["paid"], h["disputed"]) for h in group["hits"]] == [(99_999_999, True),
                                                                  (100_000, False)]
    [table] = snapshot["tables"]
    assert table["journal"]["agreement"] == "conflict at seq 21: two versions kept"
    assert table["journal"]["conflict"] == "record 21 arrived in two versions"
    assert table["shipping"] == "unknown"
    view.heard("shoectl/journal/T1/status", {"state": "online"})
    view.heard("shoectl/floor/bank-a/table/T1/status", {"state": "offline"})  # its last will
    assert view.snapshot()["tables"][0]["shipping"] == "offline"
