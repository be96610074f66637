"""The floor view's figures of the day, from the rows the floor stores (controller.analysis)."""

from __future__ import annotations

from typing import Any

from controller.floor.floor_store import TableCopy
from controller.floor.floor_view import FloorView
from controller.journal.chain import GENESIS, Entry, Tip


def rows(day: str, first_seq: int, rounds: int) -> list[Entry]:
    """`rounds` rounds of 60 s from 18:00 of `day`, each opened and settled."""
    found: list[Entry] = []
    for n in range(rounds):
        for second, kind in ((0, "round:open"), (60, "round:settled")):
            minute, rest = divmod(n * 120 + second, 60)
            wall = f"{day}T18:{minute:02d}:{rest:02d}+00:00"
            found.append(Entry(first_seq + len(found), wall, 0.0, kind,
                               {"round": n + 1, "seats": []}, "", ""))
    return found


def today(view: FloorView) -> dict[str, Any]:
    (table,) = view.snapshot()["tables"]
    return table["today"]


def copy_of(records: int) -> TableCopy:
    return TableCopy("T1", Tip(records, GENESIS), Tip(records, GENESIS))


def test_the_day_s_rounds_pace_and_hours_are_shown() -> None:
    view = FloorView()
    first = rows("2026-12-06", 1, 10)
    view.stored(copy_of(len(first)), first)
    figures = today(view)
    assert figures["day"] == "2026-12-06"
    assert figures["rounds"] == 10
    assert figures["seconds_per_round"] == {"median": 60.0, "p90": 60.0}
    assert figures["rounds_by_hour"] == {"2026-12-06T18:00": 10}
    assert "wagers" not in figures


def test_a_new_day_starts_the_figures_again_and_a_restart_reads_them_back() -> None:
    view = FloorView()
    yesterday, now = rows("2026-12-05", 1, 4), rows("2026-12-06", 9, 3)
    view.stored(copy_of(8), yesterday)
    view.stored(copy_of(14), now)
    assert (today(view)["day"], today(view)["rounds"]) == ("2026-12-06", 3)
    restarted = FloorView()
    assert len(list(restarted.read_stored("T1", yesterday + now))) == 14
    restarted.stored(copy_of(14))
    assert today(restarted)["rounds"] == 3
