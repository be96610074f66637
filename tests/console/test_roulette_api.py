"""The roulette table's console API over real HTTP (controller/console/API.md, "Roulette"):
wagers with their spots, the marker, losers cleared then winners paid, the result board and
the pit view's wheel-bias monitor. The wheel's facts are posted as its driver posts them.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from drivers import events as ev

from .live import PIT_PASSWORD, LiveTable, start


@pytest.fixture
def table(tmp_path: Path) -> Iterator[LiveTable]:
    live = start(tmp_path, "roulette")
    live.attach()
    try:
        yield live
    finally:
        live.close()


def status(phase: ev.WheelPhase, state: int, game: int) -> ev.WheelStatus:
    return ev.WheelStatus("wheel", phase, state, game, 0, 0.0)


def open_game(table: LiveTable, game: int) -> None:
    table.post(status(ev.WheelPhase.PLACE_BETS, 2, game))


def spin(table: LiveTable, game: int, number: str) -> None:
    """One whole spin with one wager, the dealer's steps at the console."""
    open_game(table, game)
    assert table.command("wager", seat=1, bet="red", cents=1000)[0] == 200
    table.post(status(ev.WheelPhase.NO_MORE_BETS, 4, game),
               ev.WheelResult("wheel", game, number, ("status",), 0.0))
    for command, fields in (("marker", {"number": number}), ("losers_cleared", {}),
                            ("winners_paid", {})):
        assert table.command(command, **fields)[0] == 200


def test_an_arcade_wheel_has_no_spin_button(table: LiveTable) -> None:
    open_game(table, 3)
    _, body = table.get()
    assert "launch" not in body["accepting"]
    assert body["prompt"].endswith("no more bets when the ball is in the track")
    code, refused = table.command("launch")
    assert code == 409
    assert refused["error"] == "this table's wheel launches each game itself: there is no SPIN"


def test_the_croupier_spins_a_wheel_that_waits_for_its_host(tmp_path: Path) -> None:
    live = start(tmp_path, "roulette")
    live.runtime.model.setup = replace(live.runtime.model.setup, wheel_launch="host")
    live.attach()
    try:
        open_game(live, 8)
        _, body = live.get()
        assert "launch" in body["accepting"]
        assert body["prompt"] == ("place your bets (wheel game 008): 0 wagers on the layout; "
                                  "SPIN when the bets are down")
        code, body = live.command("launch")
        assert code == 200
        assert "launch" not in body["accepting"]
        assert body["prompt"].endswith("no more bets when the ball is in the track")
        code, refused = live.command("launch")
        assert (code, refused["error"]) == (409, "launch is not taken now (phase betting)")
    finally:
        live.close()


def test_a_spin_with_no_wager_settles_itself_and_asks_nothing(table: LiveTable) -> None:
    open_game(table, 5)
    table.post(status(ev.WheelPhase.NO_MORE_BETS, 4, 5),
               ev.WheelResult("wheel", 5, "9", ("status",), 0.0))
    _, body = table.get()
    assert body["phase"] == "betting"
    assert body["last_round"]["number"] == "9"
    assert "marker" not in body["accepting"]


def test_the_console_says_why_when_the_wheel_plays_on_without_the_table(
        table: LiveTable) -> None:
    open_game(table, 12)
    assert table.command("wager", seat=1, bet="red", cents=2000)[0] == 200
    table.post(status(ev.WheelPhase.NO_MORE_BETS, 4, 12),
               ev.WheelResult("wheel", 12, "3", ("status",), 0.0))
    _, body = table.get()
    assert body["prompt"] == "winning number 3 RED: put the marker on 3"
    open_game(table, 13)  # a wheel that launches itself does not wait for the marker
    _, body = table.get()
    assert body["prompt"] == ("WHEEL AHEAD: game 013 is played without wagers until this spin "
                              "is paid; winning number 3 RED: put the marker on 3")
    assert table.command("marker", number="3")[0] == 200
    _, body = table.get()
    assert body["prompt"].startswith("WHEEL AHEAD: game 013 is played without wagers")
    assert body["prompt"].endswith("then LOSERS CLEARED")


def test_a_spin_at_the_console_clears_then_pays_in_words(table: LiveTable) -> None:
    _, body = table.get()
    assert (body["game"], body["phase"], body["accepting"]) == ("roulette", "closed", [])
    assert body["prompt"] == "the wheel is closed: betting opens when it starts a game"
    open_game(table, 12)
    _, body = table.get()
    assert "wager" in body["accepting"]
    assert "no_more_bets" in body["accepting"]
    assert body["roulette"]["wheel_game"] == 12
    assert table.command("wager", seat=1, bet="straight", numbers=["17"], cents=1000)[0] == 200
    assert table.command("wager", seat=1, bet="red", cents=2000)[0] == 200
    status_code, body = table.command("wager", seat=2, bet="dozen", which=3, cents=1500)
    assert status_code == 200
    assert [w["named"] for w in body["roulette"]["wagers"]] == ["straight 17", "red", "dozen 3"]
    assert [(s["seat"], s["in_play"], s["main"]) for s in body["seats"][:3]] == [
        (1, True, 3000), (2, True, 1500), (3, False, None)]
    table.post(status(ev.WheelPhase.NO_MORE_BETS, 4, 12))
    table.post(ev.WheelResult("wheel", 12, "17", ("number_line", "status"), 0.0))
    _, body = table.get()
    assert (body["phase"], body["accepting"]) == ("marker", ["marker"])
    assert body["prompt"] == "winning number 17 BLACK: put the marker on 17"
    assert body["display"] == "17 BLACK"
    code, refused = table.command("marker", number="18")
    assert code == 409
    assert refused["error"] == "the winning number is 17: put the marker on 17, not on 18"
    code, body = table.command("marker", number="17")
    assert code == 200
    assert body["prompt"] == "clear the losing bets: seat 1 red 20.00; seat 2 dozen 3 15.00; " \
                             "then LOSERS CLEARED"
    assert [w["named"] for w in body["roulette"]["to_clear"]] == ["red", "dozen 3"]
    code, body = table.command("losers_cleared")
    assert code == 200
    assert body["prompt"] == ("pay the winners: seat 1 straight 17 10.00 at 35:1: pay 350.00; "
                              "then WINNERS PAID")
    assert body["roulette"]["to_pay"][0]["win"] == 35000
    code, body = table.command("winners_paid")
    assert (code, body["phase"]) == (200, "betting")
    assert body["last_round"]["number"] == "17"
    assert body["last_round"]["game"] == 12
    assert body["roulette"]["history"] == ["17"]


@pytest.mark.parametrize(("fields", "code", "error"), [
    ({"seat": 1, "bet": "split", "numbers": ["1", "5"], "cents": 1000}, 409,
     "split 1-5: no such spot on the double-zero wheel (38 pockets) layout"),
    ({"seat": 1, "bet": "red", "cents": 99_999_999}, 409, "outside the table limits"),
    ({"seat": 1, "bet": "straight", "numbers": "17", "cents": 1000}, 400,
     "wager: field 'numbers' must be list, got '17'"),
    ({"seat": 1, "bet": "column", "which": True, "cents": 1000}, 400,
     "wager: field 'which' must be int, got True"),
    ({"seat": 1, "bet": "straight", "numbers": [17], "cents": 1000}, 409,
     "numbers must be a list of pockets"),
])
def test_a_wager_the_table_cannot_take_is_refused_with_why(table: LiveTable,
                                                           fields: dict[str, object],
                                                           code: int, error: str) -> None:
    open_game(table, 3)
    answer, body = table.command("wager", **fields)
    assert answer == code
    assert error in body["error"]
    if code == 409:
        assert body["what_to_do"].startswith("place your bets")


def test_wagers_are_refused_once_the_ball_is_in_the_track(table: LiveTable) -> None:
    open_game(table, 3)
    table.post(status(ev.WheelPhase.NO_MORE_BETS, 4, 3))
    code, body = table.command("wager", seat=1, bet="red", cents=1000)
    assert code == 409
    assert body["error"] == "wager is not taken now (phase no_more_bets)"
    assert body["what_to_do"] == "no more bets: the ball is in the track"


def test_the_result_board_shows_the_last_numbers_and_the_windows_figures(
        table: LiveTable) -> None:
    numbers = ["0", "17", "00", "17", "32", "5", "17", "24"]
    for game, number in enumerate(numbers, 1):
        spin(table, game, number)
    code, board = table.get("/api/board")
    assert code == 200
    assert [n["number"] for n in board["last"]] == list(reversed(numbers))
    assert [n["colour"] for n in board["last"][:3]] == ["black", "black", "red"]
    assert (board["spins"], board["window"]) == (8, 100)
    assert board["percent"]["green"] == 25  # 2 of 8
    assert board["percent"]["red"] == 25  # 32 and 5
    assert board["percent"]["black"] == 50  # 17, 17, 17, 24
    assert (board["percent"]["dozen2"], board["counts"]["dozen2"]) == (50, 4)
    assert board["hot"][0] == {"number": "17", "colour": "black", "hits": 3}
    assert board["cold"][0] == {"number": "1", "colour": "red", "hits": 0}
    code, page = table.get("/board")
    assert code == 200
    assert "result board" in page


def test_the_pit_sees_the_wheel_bias_monitor(table: LiveTable) -> None:
    for game in range(1, 6):
        spin(table, game, "7")
    token = base64.b64encode(f"supervisor:{PIT_PASSWORD}".encode()).decode()
    code, pit = table.request("GET", "/api/pit", port=table.pit.port,
                              headers={"Authorization": f"Basic {token}"})
    assert code == 200
    bias = pit["wheel_bias"]
    assert (bias["spins"], bias["window"], bias["pockets"], bias["degrees"]) == (5, 1000, 38, 37)
    assert bias["chi_square_exact"] == "185/1"  # (5 - 5/38)^2/(5/38) + 37 x 5/38
    assert bias["enough"] is False
    assert bias["needed"] == 190
    assert bias["extreme"]["number"] == "7"
    assert bias["p_value"] < 1e-15
