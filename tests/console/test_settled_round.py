"""The settled round on the dealer's console: kept on screen until the next round begins.

The table runs as live (it returns to betting by itself after settlement) with a console hub
attached, as `shoectl run` has it, so the console sees every commit; commands go through the
console's `execute`. The settled round, its pay line and NEXT ROUND must stay until the first
chip or seat of the next round, NEXT ROUND, a hold or a card in error, and never come back;
the dealer's part shows a face-down card and a total, never the hole card's value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.console.commands import execute, table_now
from controller.console.hub import ConsoleHub
from controller.service.runtime import TableRuntime
from drivers import events as ev
from tests.controller.helpers import runtime

# Seat 1 (10.00 main, 1.00 Perfect Pairs) TS 9D = 19; seat 3 (25.00) 9H 7H = 16 stands;
# the dealer shows 9C, has 7C in the hole (16) and draws 5S: 21. Seat 1 loses 10.00 and its
# Perfect Pairs (no pair), seat 3 loses 25.00.
LOSING = ["TS", "9H", "9C", "9D", "7H", "7C", "5S"]
# Seat 1 (10.00 main, 1.00 Perfect Pairs) 8S 8D (a mixed pair, but it wins the hand);
# the dealer shows 6C, 7C in the hole (13), draws TD: bust.
PAIR_WINS = ["8S", "6C", "8D", "7C", "TD"]


@pytest.fixture
def rt(tmp_path: Path) -> TableRuntime:
    table = runtime(tmp_path, return_to_betting=True)
    ConsoleHub(lambda _call: None).attach(table)  # publishes after every commit
    assert execute(table, {"command": "shuffle_done"}).status == 200
    return table


def command(rt: TableRuntime, name: str, **fields: Any) -> dict[str, Any]:
    reply = execute(rt, {"command": name, **fields}, by="dealer:D17")
    assert reply.status == 200, reply.body
    return reply.body


def draw(rt: TableRuntime, *codes: str) -> None:
    for code in codes:
        rt.handle(ev.CardDrawn("shoe", 0, code, 100, 0.0))


def settle_losing_round(rt: TableRuntime) -> dict[str, Any]:
    command(rt, "seat", seat=1, in_play=True, main=1000)
    command(rt, "wager", seat=1, bet="perfect-pairs", cents=100)
    command(rt, "seat", seat=3, in_play=True, main=2500)
    draw(rt, *LOSING[:6])
    assert rt.model.state == "players"
    command(rt, "stand")
    command(rt, "stand")
    draw(rt, LOSING[6])
    table = table_now(rt)
    assert table["phase"] == "betting"
    return table


def test_the_settled_round_stays_with_its_hands_totals_results_and_pay(rt: TableRuntime
                                                                       ) -> None:
    table = settle_losing_round(rt)
    settled = table["settled"]
    assert settled["round"] == table["last_round"]["round"] == 1
    assert settled["dealer"] == {"cards": ["9C", "7C", "5S"], "total": 21, "soft": False,
                                 "bust": False, "blackjack": False}
    one, three = settled["seats"]
    assert one["hands"] == [{"cards": ["TS", "9D"], "total": 19, "soft": False,
                             "result": "lose", "net": -1000, "pay": "COLLECT 10.00"}]
    assert one["side_bets"] == [{"bet": "perfect-pairs", "name": "PERFECT PAIRS",
                                 "result": "lose", "net": -100, "pay": "COLLECT 1.00"}]
    assert one["net"] == -1100
    assert three["hands"][0]["pay"] == "COLLECT 25.00"
    assert table["prompt"].startswith("collect seat 1; collect seat 3; then place your bets")
    assert "next_round" in table["accepting"]


def test_a_main_win_beside_a_side_bet_loss_says_each_apart(rt: TableRuntime) -> None:
    command(rt, "seat", seat=1, in_play=True, main=1000)
    command(rt, "wager", seat=1, bet="lucky-ladies", cents=100)
    draw(rt, *PAIR_WINS[:4])
    command(rt, "stand")
    draw(rt, PAIR_WINS[4])
    seat = table_now(rt)["settled"]["seats"][0]
    assert seat["hands"][0]["result"] == "win"
    assert seat["hands"][0]["pay"] == "PAY 10.00"
    assert seat["side_bets"] == [{"bet": "lucky-ladies", "name": "LUCKY LADIES",
                                  "result": "lose", "net": -100, "pay": "COLLECT 1.00"}]
    assert seat["net"] == 900


def test_next_round_takes_the_settled_round_off_and_is_journalled(rt: TableRuntime) -> None:
    settle_losing_round(rt)
    table = command(rt, "next_round")
    assert table["settled"] is None
    assert not table["prompt"].startswith("collect")
    assert "next_round" not in table["accepting"]
    assert {"by": "dealer:D17", "command": "next_round"} in [
        e.data for e in rt.journal.entries() if e.kind == "console:command"]
    refused = execute(rt, {"command": "next_round"})
    assert refused.status == 409
    assert refused.body["error"] == "no settled round is on the screen"
    assert rt.model.state == "betting"  # the procedure never saw it


def test_the_first_seat_of_the_next_round_ends_it_for_good(rt: TableRuntime) -> None:
    settle_losing_round(rt)
    assert command(rt, "seat", seat=2, in_play=True, main=1000)["settled"] is None
    table = command(rt, "seat", seat=2, in_play=False)
    assert table["settled"] is None
    assert "collect seat" not in table["prompt"]


def test_a_chip_sensed_ends_it(rt: TableRuntime) -> None:
    settle_losing_round(rt)
    rt.handle(ev.BetSensorChanged("layout", "seat4.main", True, 0.0))
    table = table_now(rt)
    assert table["settled"] is None
    assert "collect seat" not in table["prompt"]


def test_a_jam_and_its_clearing_end_it(rt: TableRuntime) -> None:
    settle_losing_round(rt)
    rt.handle(ev.ShoeFault("shoe", ev.ShoeFaultKind.JAM, 7, True, 0.0))
    assert rt.model.state == "shoe_error"
    assert table_now(rt)["settled"] is None
    rt.handle(ev.ShoeFault("shoe", ev.ShoeFaultKind.JAM, 7, False, 0.0))
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    table = table_now(rt)
    assert table["phase"] == "betting"
    assert table["settled"] is None
    assert "collect seat" not in table["prompt"]


def test_a_card_in_error_ends_it(rt: TableRuntime) -> None:
    settle_losing_round(rt)
    draw(rt, "2D")  # no seat in play: drawn in error
    assert table_now(rt)["phase"] == "card_in_error"
    table = command(rt, "error_unexposed")
    assert table["phase"] == "betting"
    assert table["settled"] is None
    assert "collect seat" not in table["prompt"]


def test_the_dealer_shows_a_face_down_card_and_a_total_never_the_hole(rt: TableRuntime
                                                                     ) -> None:
    command(rt, "seat", seat=1, in_play=True, main=1000)
    draw(rt, "TS", "9C", "9D")
    assert table_now(rt)["dealer"] == {"cards": ["9C"], "total": 9, "soft": False,
                                       "face_down": 0, "blackjack": None}
    draw(rt, "7C")  # the hole card
    table = table_now(rt)
    assert table["dealer"] == {"cards": ["9C"], "total": 9, "soft": False, "face_down": 1,
                               "blackjack": None}
    assert "7C" not in json.dumps(table)
    assert table["turn"] == {"seat": 1, "hand": 1}
    table = command(rt, "stand")
    assert table["dealer"]["cards"] == ["9C", "7C"]
    assert table["dealer"]["face_down"] == 0
    assert table["turn"] is None


def test_chips_let_ride_are_no_new_bet_but_a_chip_put_down_is(rt: TableRuntime) -> None:
    """Seat 1 played by its chips alone and leaves them on the spot: the wager book counts
    them for the next round, yet nothing new was bet, so the settled round stays; the
    player lifting them does not end it either; chips put down again do."""
    rt.handle(ev.BetSensorChanged("layout", "seat1.main", True, 0.0))
    command(rt, "no_more_bets")
    draw(rt, "TS", "TD", "9H", "KC")  # seat 1 19, the dealer 20
    command(rt, "stand")
    table = table_now(rt)
    assert table["phase"] == "betting"
    assert rt.model.wagers.seats_in_play() == {1: None}  # the chips left on the spot
    assert table["settled"]["seats"][0]["hands"][0]["result"] == "lose"
    rt.handle(ev.BetSensorChanged("layout", "seat1.main", False, 0.0))  # collected
    assert table_now(rt)["settled"] is not None
    rt.handle(ev.BetSensorChanged("layout", "seat1.main", True, 0.0))  # a new bet
    table = table_now(rt)
    assert table["settled"] is None
    assert "collect seat 1" not in table["prompt"]
