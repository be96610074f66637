"""Chips left on a main spot from the last round are a wager of the next (a bet let ride).

The felt decides before no more bets (decision 158): a main-spot sensor still covered when the
next round opens puts that seat in play without a new edge; one uncovered while the dealer
settled does not. Side-wager and Blazing 7's sensors never carry (the dealer collects those
chips each round).
"""

from __future__ import annotations

from pathlib import Path

from controller.service.runtime import TableRuntime

from .helpers import deal, runtime


def settle_one_round(rt: TableRuntime) -> None:
    """Seat 1 in play by its main-spot chips alone; dealt and settled (dealer 20, seat 19)."""
    if rt.model.state == "shoe_loading":
        assert rt.fire("shuffle_done")
    assert rt.fire("bet_sensor", sensor="seat1.main", occupied=True)
    assert rt.fire("bet_sensor", sensor="seat1.blazing7s", occupied=True)
    assert rt.fire("no_more_bets")
    deal(rt, "TS", "TD", "9H", "KC")  # seat 1 TS 9H, dealer TD, hole KC
    assert rt.fire("stand")
    assert [r["round"] for r in rt.model.results] == [1]


def test_chips_still_on_the_main_spot_play_the_next_round(tmp_path: Path) -> None:
    rt = runtime(tmp_path, return_to_betting=True)
    settle_one_round(rt)
    assert rt.model.state == "betting"
    assert rt.model.wagers.seats_in_play() == {1: None}  # no new edge: the felt says so
    assert rt.model.wagers.progressive_chips() == []


def test_chips_taken_off_while_settling_play_nothing(tmp_path: Path) -> None:
    rt = runtime(tmp_path)  # the settled round waits in round_over
    settle_one_round(rt)
    assert rt.fire("bet_sensor", sensor="seat1.main", occupied=False)  # the player took them
    assert rt.fire("clear_round")
    assert rt.model.state == "betting"
    assert rt.model.wagers.seats_in_play() == {}
    assert not rt.fire("no_more_bets")  # nobody in play
