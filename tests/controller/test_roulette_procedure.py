"""The roulette procedure on the table runtime: the wheel's facts in, journal first, then lamps.

Place bets -> no more bets (the lamp and the console) when the ball is in the track ->
the winning number -> the marker (console) -> losing bets cleared, then winners paid; void
spins journalled and announced; every spin journalled with the wheel's own game number.
The wheel's facts are posted as its driver posts them (`drivers.events`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.procedure.core.effects import (
    LampState,
    LaunchWheel,
    OpLog,
    SetLamp,
    ShowDealer,
)
from controller.procedure.roulette import RouletteModel
from controller.rules.roulette import Wheel
from controller.service.runtime import RecordingOutputs, TableRuntime
from drivers import events as ev

from .helpers import runtime


def status(phase: ev.WheelPhase, game: int, flags: int = 0) -> ev.WheelStatus:
    states = {ev.WheelPhase.BEFORE_GAME: 1, ev.WheelPhase.PLACE_BETS: 2,
              ev.WheelPhase.BALL_IN_RIM: 3, ev.WheelPhase.NO_MORE_BETS: 4,
              ev.WheelPhase.WINNING_NUMBER: 5, ev.WheelPhase.CLOSED: 6}
    return ev.WheelStatus("wheel", phase, states.get(phase, 7), game, flags, 0.0)


def result(game: int, number: str) -> ev.WheelResult:
    return ev.WheelResult("wheel", game, number, ("number_line", "status"), 0.0)


def model_of(rt: TableRuntime) -> RouletteModel:
    assert isinstance(rt.model, RouletteModel)
    return rt.model


def records(rt: TableRuntime, *kinds: str) -> list[tuple[str, dict[str, Any]]]:
    return [(e.kind, e.data) for e in rt.journal.entries() if not kinds or e.kind in kinds]


def lamp(rt: TableRuntime, name: str) -> LampState:
    outputs = rt.outputs
    assert isinstance(outputs, RecordingOutputs)
    return [e.state for e in outputs.applied if isinstance(e, SetLamp) and e.lamp == name][-1]


def dealer_text(rt: TableRuntime) -> str:
    outputs = rt.outputs
    assert isinstance(outputs, RecordingOutputs)
    return [e.text for e in outputs.applied if isinstance(e, ShowDealer)][-1]


@pytest.fixture
def rt(tmp_path: Path) -> TableRuntime:
    table = runtime(tmp_path, "roulette", return_to_betting=True)
    assert table.model.state == "closed"
    return table


def open_game(rt: TableRuntime, game: int = 31) -> None:
    rt.handle(status(ev.WheelPhase.BEFORE_GAME, game - 1))
    rt.handle(status(ev.WheelPhase.PLACE_BETS, game))
    assert rt.model.state == "betting"


def bet(rt: TableRuntime, seat: int, name: str, cents: int, **spot: Any) -> bool:
    return rt.fire("wager", seat=seat, bet=name, cents=cents, source="console", **spot)


def test_a_spin_from_bets_to_payment_in_the_customers_order(rt: TableRuntime) -> None:
    open_game(rt)
    assert lamp(rt, "no_more_bets") is LampState.OFF
    assert bet(rt, 1, "straight", 1000, numbers=["17"])
    assert bet(rt, 1, "red", 2000)
    assert bet(rt, 2, "split", 500, numbers=["20", "17"])
    assert bet(rt, 3, "column", 1000, which=1)  # 1, 4, ... 34: 17 is not in it
    rt.handle(status(ev.WheelPhase.BALL_IN_RIM, 31))
    assert rt.model.state == "betting"  # the ball once round the rim: still betting
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    assert rt.model.state == "no_more_bets"
    assert lamp(rt, "no_more_bets") is LampState.ON
    assert dealer_text(rt) == "NO MORE BETS"
    assert not bet(rt, 4, "red", 1000)  # refused after no more bets, and journalled so
    rt.handle(result(31, "17"))
    assert (rt.model.state, dealer_text(rt)) == ("marker", "17 BLACK")
    assert not rt.fire("marker", number="18")
    assert rt.fire("marker", number="17", source="console")
    assert rt.model.state == "clearing"
    assert rt.fire("losers_cleared", source="console")
    assert rt.model.state == "paying"
    assert lamp(rt, "no_more_bets") is LampState.ON  # no bets while the dealer pays
    assert rt.fire("winners_paid", source="console")
    assert rt.model.state == "betting"
    assert lamp(rt, "no_more_bets") is LampState.OFF
    spin = records(rt, "spin:no_more_bets", "spin:result", "spin:marker",
                   "spin:losers_cleared", "spin:winners_paid", "round:settled")
    assert [kind for kind, _ in spin] == ["spin:no_more_bets", "spin:result", "spin:marker",
                                         "spin:losers_cleared", "spin:winners_paid",
                                         "round:settled"]
    assert spin[1][1] == {"round": 1, "game": 31, "number": "17", "colour": "black",
                          "played": True, "warnings": []}
    losers = spin[3][1]["losers"]
    assert [(w["seat"], w["named"], w["cents"]) for w in losers] == [(1, "red", 2000),
                                                                      (3, "column 1", 1000)]
    winners = spin[4][1]["winners"]
    assert [(w["seat"], w["named"], w["pays"], w["net"]) for w in winners] == [
        (1, "straight 17", "35:1", 35000), (2, "split 17-20", "17:1", 8500)]
    settled = spin[5][1]
    assert settled["game"] == 31
    assert [[w["net"] for w in s["wagers"]] for s in settled["seats"]] == [
        [-2000, 35000], [8500], [-1000]]
    rejected = records(rt, "procedure:rejected")
    assert [(d["trigger"], d["state"]) for _, d in rejected] == [("wager", "no_more_bets"),
                                                                 ("marker", "marker")]


def test_the_dealer_may_call_no_more_bets_before_the_wheel(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 1, "odd", 1000)
    assert rt.fire("no_more_bets", source="layout")
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    (_, locked), = records(rt, "spin:no_more_bets")
    assert locked["by"] == "dealer"
    assert rt.model.state == "no_more_bets"


def test_a_void_spin_is_announced_journalled_and_the_wagers_stand(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 1, "straight", 1000, numbers=["0"])
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31, flags=1))
    rt.handle(ev.WheelWarning("wheel", 31, "ball_not_detected", "state 4", 0.0))
    rt.handle(ev.WheelVoid("wheel", 31, "no ball: not detected for 10 status lines", 0.0))
    model = model_of(rt)
    assert model.state == "betting"
    assert dealer_text(rt) == "NO SPIN - PLACE YOUR BETS"
    assert len(model.wagers.placed) == 1
    (_, void), = records(rt, "spin:void")
    assert void["game"] == 31
    assert void["warnings"] == ["ball_not_detected"]
    assert [w["named"] for w in void["standing"]] == ["straight 0"]
    outputs = rt.outputs
    assert isinstance(outputs, RecordingOutputs)
    assert any(isinstance(e, OpLog) and e.message.startswith("NO SPIN: wheel game 031 void")
               for e in outputs.applied)
    assert model.spin_log == [{"game": 31, "number": None, "void": True,
                               "warnings": ["ball_not_detected"]}]
    assert model.history == []  # a void is no result
    rt.handle(status(ev.WheelPhase.PLACE_BETS, 31))  # the re-spin of the same game
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(result(31, "0"))
    assert rt.fire("marker", number="0")
    assert rt.fire("losers_cleared")
    assert rt.fire("winners_paid")
    assert model.results[-1]["seats"][0]["wagers"][0]["net"] == 35000


def test_a_number_the_layout_does_not_have_stops_the_table(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "roulette")
    model = model_of(rt)
    model.setup = replace(model.setup, config=replace(
        model.setup.config, roulette=replace(model.setup.config.roulette, wheel=Wheel.SINGLE)))
    open_game(rt)
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(result(31, "00"))
    assert model.state == "fault"
    assert model.hold_reason == ("the wheel reported '00', which the single-zero wheel (37 "
                                 "pockets) layout does not have")
    assert lamp(rt, "fault") is LampState.FLASH


def test_the_wheel_contradicting_itself_holds_until_the_supervisor(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 2, "black", 1000)
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(ev.DeviceFault("wheel", "wheel contradicts itself: game 031: ...", 0.0))
    assert rt.model.state == "fault"
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    assert rt.model.state == "no_more_bets"  # resumed; no result will come for that game
    rt.handle(status(ev.WheelPhase.PLACE_BETS, 32))  # the wheel goes on: no spin
    assert rt.model.state == "betting"
    assert [w.describe() for w in model_of(rt).wagers.placed] == ["black"]  # they stand
    (_, void), = records(rt, "spin:void")
    assert (void["game"], void["reason"]) == (31, "no result: the wheel went on to game 32")
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 32))
    assert rt.fire("void_round", reason="the supervisor returns the wagers")
    (_, returned), = records(rt, "round:void")
    assert [w["named"] for w in returned["returned"]] == ["black"]
    assert rt.model.state == "betting"
    assert model_of(rt).wagers.placed == []


def test_a_number_for_a_game_the_wagers_were_not_on_is_not_settled(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 2, "straight", 1000, numbers=["9"])
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(result(33, "9"))  # the lines of games 31 and 32 were lost
    assert rt.model.state == "betting"
    assert [w.describe() for w in model_of(rt).wagers.placed] == ["straight 9"]
    assert [(d["game"], d["played"]) for _, d in records(rt, "spin:result")] == [(33, False)]
    assert model_of(rt).results == []


def test_a_result_repeated_after_a_restart_changes_nothing(tmp_path: Path) -> None:
    first = runtime(tmp_path, "roulette", return_to_betting=True)
    open_game(first)
    assert bet(first, 1, "dozen", 1000, which=3)
    first.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    first.handle(result(31, "30"))
    first.shutdown("test restart")
    first.journal.close()
    again = runtime(tmp_path, "roulette", return_to_betting=True)
    model = model_of(again)
    assert (model.state, model.spin.number, model.spin.game) == ("marker", "30", 31)
    assert [w.describe() for w in model.wagers.placed] == ["dozen 3"]
    again.handle(status(ev.WheelPhase.WINNING_NUMBER, 31))
    again.handle(result(31, "30"))  # the restarted driver saw the result lines again
    assert model.state == "marker"
    assert len(records(again, "wheel:result_repeated")) == 1
    assert again.fire("marker", number="30")
    assert again.fire("losers_cleared")
    assert again.fire("winners_paid")
    assert model.results[-1]["seats"] == [{"seat": 1, "wagers": [
        {"bet": "dozen", "numbers": [str(n) for n in range(25, 37)], "cents": 1000,
         "net": 2000}]}]
    assert model.history == ["30"]


def test_a_restart_between_clearing_and_paying_pays_the_same(tmp_path: Path) -> None:
    first = runtime(tmp_path, "roulette", return_to_betting=True)
    open_game(first)
    assert bet(first, 1, "six-line", 1000, numbers=["4", "5", "6", "7", "8", "9"])
    first.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    first.handle(result(31, "9"))
    assert first.fire("marker", number="9")
    assert first.fire("losers_cleared")
    first.journal.close()  # power lost: no orderly shutdown
    again = runtime(tmp_path, "roulette", return_to_betting=True)
    assert again.model.state == "paying"
    assert again.fire("winners_paid")
    (_, paid), = records(again, "spin:winners_paid")
    assert [(w["named"], w["net"]) for w in paid["winners"]] == [("six-line 4-5-6-7-8-9",
                                                                  5000)]


def test_a_game_decided_while_the_table_settles_is_journalled_unplayed(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 1, "odd", 1000)
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(result(31, "5"))
    assert rt.fire("marker", number="5")
    rt.handle(status(ev.WheelPhase.PLACE_BETS, 32))  # arcade mode: the wheel moves on
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 32))
    assert rt.model.state == "clearing"
    rt.handle(result(32, "6"))  # decided before the dealer cleared: no wagers were on it
    assert rt.fire("losers_cleared")
    assert rt.fire("winners_paid")
    assert rt.model.state == "betting"
    rt.handle(status(ev.WheelPhase.PLACE_BETS, 33))
    assert bet(rt, 1, "odd", 1000)
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 33))
    rt.handle(result(33, "7"))
    assert rt.model.state == "marker"
    rt.handle(result(34, "8"))  # yet another, before the marker
    unplayed = [d for _, d in records(rt, "spin:result") if not d["played"]]
    assert [(d["game"], d["number"], d["round"]) for d in unplayed] == [(32, "6", None),
                                                                        (34, "8", None)]
    assert model_of(rt).history == ["5", "6", "7", "8"]


def test_the_wheel_past_bets_when_the_table_is_paid_goes_straight_to_no_more_bets(
        rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 1, "odd", 1000)
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(result(31, "5"))
    assert rt.fire("marker", number="5")
    rt.handle(status(ev.WheelPhase.PLACE_BETS, 32))
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 32))
    assert rt.fire("losers_cleared")
    assert rt.fire("winners_paid")
    assert rt.model.state == "no_more_bets"  # straight on to the wheel's next game
    rt.handle(result(32, "6"))  # nobody could bet on it: it settles itself
    assert rt.model.state == "betting"
    assert [r["game"] for r in model_of(rt).results] == [31, 32]


def test_the_wheel_closing_returns_the_wagers_and_closes_the_table(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 1, "low", 1000)
    rt.handle(status(ev.WheelPhase.CLOSED, 31))
    assert rt.model.state == "closed"
    (_, closed), = records(rt, "spin:closed")
    assert [w["named"] for w in closed["returned"]] == ["low"]
    assert dealer_text(rt) == "TABLE CLOSED"
    open_game(rt, 40)
    assert model_of(rt).wagers.placed == []


@pytest.mark.parametrize(("spot", "reason"), [
    ({"bet": "split", "numbers": ["1", "5"], "cents": 1000}, "split 1-5: no such spot"),
    ({"bet": "red", "cents": 100}, "100 cents is outside the table limits 500..500000 cents"),
    ({"bet": "red", "cents": 10**12}, "is outside the table limits"),
    ({"bet": "red", "cents": 1000, "seat": 12}, "seat must be a seat number from 1 to 7"),
    ({"bet": "five-number", "cents": 1000, "numbers": ["0", "1"]}, "five-number covers"),
    ({"bet": "column", "cents": 1000}, "`which` must be 1, 2 or 3, got None"),
])
def test_a_wager_the_table_cannot_take_says_why(rt: TableRuntime, spot: dict[str, Any],
                                                reason: str) -> None:
    open_game(rt)
    kwargs = {"seat": 1, **spot}
    assert reason in model_of(rt).wagers.refusal(kwargs)
    assert not rt.fire("wager", **kwargs)
    assert model_of(rt).wagers.placed == []


def test_a_wager_taken_back_before_no_more_bets(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 1, "corner", 1000, numbers=["1", "2", "4", "5"])
    assert not rt.fire("cancel_wager", seat=1, bet="corner", cents=500,
                       numbers=["1", "2", "4", "5"])
    assert rt.fire("cancel_wager", seat=1, bet="corner", cents=1000,
                   numbers=["5", "4", "2", "1"])
    assert model_of(rt).wagers.placed == []
    assert [d["named"] for _, d in records(rt, "bet:cancelled")] == ["corner 1-2-4-5"]


def test_a_number_before_no_more_bets_closes_betting_as_an_irregularity(rt: TableRuntime) -> None:
    open_game(rt)
    assert bet(rt, 1, "even", 1000)
    rt.handle(result(31, "2"))  # every no-more-bets line was lost
    assert rt.model.state == "marker"
    assert [d["game"] for _, d in records(rt, "irregularity:no_more_bets_missed")] == [31]
    assert records(rt, "spin:no_more_bets")[0][1]["wagers"][0]["named"] == "even"


def test_every_spin_record_carries_the_wheels_game_number(rt: TableRuntime) -> None:
    for game, number in ((7, "1"), (8, "00"), (9, "36")):
        rt.handle(status(ev.WheelPhase.PLACE_BETS, game))
        assert bet(rt, 2, "straight", 500, numbers=[number])
        rt.handle(status(ev.WheelPhase.NO_MORE_BETS, game))
        rt.handle(result(game, number))
        for step in (("marker", {"number": number}), ("losers_cleared", {}),
                     ("winners_paid", {})):
            assert rt.fire(step[0], **step[1])
    assert [(d["game"], d["number"]) for _, d in records(rt, "spin:result")] == [
        (7, "1"), (8, "00"), (9, "36")]
    assert [r["game"] for r in model_of(rt).results] == [7, 8, 9]
    assert [r["round"] for r in model_of(rt).results] == [1, 2, 3]


@pytest.mark.parametrize("locked", [True, False], ids=["after no more bets", "number first"])
def test_a_game_no_wager_was_on_settles_itself(rt: TableRuntime, locked: bool) -> None:
    open_game(rt)
    if locked:
        rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(result(31, "12"))
    assert rt.model.state == "betting"  # no marker, no LOSERS CLEARED, no WINNERS PAID
    assert not rt.fire("marker", number="12")
    (_, settled), = records(rt, "round:settled")
    assert (settled["game"], settled["number"], settled["seats"]) == (31, "12", [])
    assert [d["played"] for _, d in records(rt, "spin:result")] == [True]
    assert records(rt, "spin:marker", "spin:losers_cleared", "spin:winners_paid") == []
    assert model_of(rt).history == ["12"]
    open_game(rt, 32)  # the next game is taken as usual
    assert bet(rt, 1, "red", 1000)


@pytest.fixture
def host_launched(tmp_path: Path) -> TableRuntime:
    table = runtime(tmp_path, "roulette", return_to_betting=True)
    table.model.setup = replace(table.model.setup, wheel_launch="host")
    return table


def launches(rt: TableRuntime) -> int:
    outputs = rt.outputs
    assert isinstance(outputs, RecordingOutputs)
    return sum(isinstance(e, LaunchWheel) for e in outputs.applied)


def test_the_croupier_launches_a_game_the_wheel_holds_once(host_launched: TableRuntime) -> None:
    rt = host_launched
    assert not rt.fire("launch", source="console")  # closed: no game is held
    open_game(rt)
    assert bet(rt, 1, "black", 1000)
    assert rt.fire("launch", source="console")
    assert launches(rt) == 1
    assert not rt.fire("launch", source="console")  # that game is launched already
    (_, record), = records(rt, "spin:launch")
    assert record == {"round": 1, "game": 31, "wagers": 1, "source": "console"}
    rt.handle(status(ev.WheelPhase.BALL_IN_RIM, 31))
    assert not rt.fire("launch", source="console")
    rt.handle(status(ev.WheelPhase.NO_MORE_BETS, 31))
    rt.handle(result(31, "4"))
    for step, kwargs in (("marker", {"number": "4"}), ("losers_cleared", {}),
                         ("winners_paid", {})):
        assert not rt.fire("launch", source="console")  # not before the spin is paid
        assert rt.fire(step, **kwargs)
    rt.handle(status(ev.WheelPhase.PLACE_BETS, 32))
    assert rt.fire("launch", source="console")
    assert launches(rt) == 2
    kinds_in_order = [kind for kind, _ in records(rt, "spin:launch", "spin:result")]
    assert kinds_in_order == ["spin:launch", "spin:result", "spin:launch"]


def test_a_wheel_that_launches_itself_is_never_sent_a_launch(rt: TableRuntime) -> None:
    open_game(rt)
    assert not rt.fire("launch", source="console")
    assert launches(rt) == 0
    assert records(rt, "spin:launch") == []
