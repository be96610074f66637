"""A shift's figures by their definitions, on records whose times are known."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from controller.analysis.shift import Row, ShiftReader, shift_figures

T0 = datetime(2026, 12, 6, 18, 0, tzinfo=UTC)


def at(seconds: float, kind: str, **data: Any) -> Row:
    return Row(T0 + timedelta(seconds=seconds), kind, data)


def state(seconds: float, to: str) -> Row:
    return at(seconds, "procedure:state", **{"from": "", "to": to})


def blackjack_round(start: float, number: int, main: int, net: int) -> list[Row]:
    """A round of one seat: betting 20 s, players 10 s (one double), settled at +60 s."""
    return [
        at(start, "round:open", round=number),
        state(start, "betting"),
        at(start + 20, "round:no_more_bets", round=number,
           bets=[[1, main, {"perfect-pairs": 100}]]),
        state(start + 20, "dealing"),
        state(start + 30, "players"),
        at(start + 35, "decision:double", turn=[1, 0], cents=None, source="console"),
        state(start + 40, "dealer"),
        at(start + 60, "round:settled", round=number,
           seats=[{"seat": 1, "hands": [{"cards": [], "net": net}],
                   "side_bets": {"perfect-pairs": -100}}]),
        state(start + 60, "round_over"),
    ]


def shift() -> list[Row]:
    rows = [state(0, "shoe_loading"), state(300, "burn"),
            at(301, "console:command", by="dealer:D17", command="shuffle_done")]
    rows += blackjack_round(310, 1, 1000, -2000)
    rows += blackjack_round(370, 2, 2000, 4000)
    rows += [state(430, "fault"), state(550, "betting"), at(550, "round:void", round=3)]
    rows += blackjack_round(600, 4, 1000, 0)
    return rows


def test_the_figures_follow_their_definitions() -> None:
    record = shift_figures(shift()).as_record()
    assert record["rounds"] == 3
    assert record["voids"] == 1
    assert record["shuffle_seconds"] == 310.0   # shoe_loading 300 s + burn 10 s
    assert record["fault_seconds"] == 120.0
    # open: 660 s of records less 310 s shuffling and 120 s in the fault = 230 s
    assert record["rounds_per_hour"] == pytest.approx(round(3 / (230 / 3600), 1))
    assert record["seconds_per_round"] == {"median": 60.0, "p90": 60.0}
    assert record["hands_per_seat"] == {"1": 3}
    assert record["decisions"] == 3
    assert record["decisions_per_minute"] == 6.0  # 3 decisions in 3 x 10 s of players
    main = record["wagers"]["main"]  # type: ignore[index]
    assert main == {"drop": 8000, "win": -2000, "hold": -0.25}  # 1000+1000, 2000+2000, 1000+1000
    assert record["wagers"]["perfect-pairs"] == {"drop": 300, "win": 300, "hold": 1.0}  # type: ignore[index]
    assert record["dealers"] == {"dealer:D17": {"rounds": 3, "seconds_per_round": 60.0,
                                                "rounds_per_hour": 60.0}}
    assert record["rounds_by_hour"] == {"2026-12-06T18:00": 3}


def test_a_window_counts_only_its_own_rounds_and_time() -> None:
    record = shift_figures(shift(), T0 + timedelta(seconds=375),
                           T0 + timedelta(seconds=500)).as_record()
    assert record["rounds"] == 1          # round 2, settled at 430 (round 1 at 370: before)
    assert record["fault_seconds"] == 70.0  # the fault from 430 up to the window's end
    assert record["shuffle_seconds"] == 0.0
    assert record["wagers"]["main"]["drop"] == 4000  # type: ignore[index]
    assert record["from"] == (T0 + timedelta(seconds=375)).isoformat()
    assert record["rounds_per_hour"] == pytest.approx(round(1 / (55 / 3600), 1))


def test_a_window_after_the_journal_has_no_figures() -> None:
    record = shift_figures(shift(), T0 + timedelta(days=1)).as_record()
    assert record["rounds"] == 0
    assert record["from"] is None
    assert record["rounds_per_hour"] is None


def test_figures_so_far_leave_the_reader_reading_on() -> None:
    reader = ShiftReader()
    rows = shift()
    for row in rows[:12]:
        reader.take(row)
    early = reader.so_far()
    assert reader.so_far() == early  # asking twice changes nothing
    for row in rows[12:]:
        reader.take(row)
    assert reader.so_far() == shift_figures(rows).as_record()


def test_a_pending_net_counts_nothing_and_breaks_nothing() -> None:
    rows = [at(0, "round:open", round=1),
            at(5, "round:no_more_bets", round=1, bets=[[1, 1000, {"blazing7s": 500}]]),
            at(60, "round:settled", round=1, seats=[{
                "seat": 1, "hands": [{"cards": [], "net": -1000}],
                "side_bets": {"blazing7s": None}}])]  # a linked hit awaiting the controller
    record = shift_figures(rows).as_record()
    assert record["wagers"]["blazing7s"] == {"drop": 500, "win": 0, "hold": 0.0}  # type: ignore[index]
    assert record["wagers"]["main"]["win"] == 1000  # type: ignore[index]


def test_community_stations_have_their_rounds_and_win() -> None:
    rows = [at(0, "round:open", round=1),
            at(50, "round:settled", round=1, shared=[], dealer=[], stations=[
                {"station": 1, "spots": [{"spot": 1, "cards": [], "net": 1500,
                                          "side_bets": {"perfect-pairs": 500}},
                                         {"spot": 2, "cards": [], "net": -1000}]},
                {"station": 3, "spots": [{"spot": 1, "cards": [], "net": -2000}]}])]
    record = shift_figures(rows).as_record()
    assert record["stations"] == {"1": {"rounds": 1, "win": -500}, "3": {"rounds": 1, "win": 2000}}
    assert record["wagers"]["main"]["win"] == 2000  # type: ignore[index]
    assert record["wagers"]["perfect-pairs"]["win"] == -500  # type: ignore[index]
