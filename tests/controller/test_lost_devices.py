"""A lost device stops only what it must (R9, R15): the sign the progressive, the layout a round.

The sign: while it is down the Blazing 7's chips on a spot are not put in play, for the rest
of that betting even once it is back; the rest of the table plays on, and a round whose
wagers were locked in before the loss settles them normally. The layout board: a card table
pauses, its betting stays open and cannot close, a card drawn meanwhile is held as drawn in
error; a round in play goes on with the shoe's cards and the console's decisions.
"""

from __future__ import annotations

from pathlib import Path

from controller.console import commands
from controller.console.prompts import prompt
from controller.procedure.core.effects import Lamp, LampState, SetLamp, ShowSign
from controller.service.runtime import TableRuntime
from drivers import events as ev
from tests.controller.helpers import deal, runtime


def records(rt: TableRuntime, kind: str) -> list[dict]:
    return [e.data for e in rt.journal.entries([kind])]


def fault_lamp(rt: TableRuntime) -> LampState:
    assert rt.shown is not None
    return dict(rt.shown.lamps)[str(Lamp.FAULT)]


def bet(rt: TableRuntime, seat: int, *, progressive: bool) -> None:
    assert rt.fire("wager", seat=seat, bet="main", cents=1000)
    if progressive:
        rt.fire("bet_sensor", sensor=f"seat{seat}.blazing7s", occupied=True)


# ---------------------------------------------------------------- the sign
def test_a_lost_sign_refuses_the_progressive_and_nothing_else(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    rt.fire("shuffle_done")
    rt.handle(ev.LinkDown("sign", "timeout", 0.0))
    bet(rt, 1, progressive=True)
    bet(rt, 2, progressive=False)
    assert prompt(rt.model).startswith("progressive closed: sign down; place your bets")
    assert rt.shown is not None
    assert rt.shown.dealer_text == "PLACE YOUR BETS - PROGRESSIVE CLOSED"
    assert fault_lamp(rt) is LampState.ON
    assert rt.fire("no_more_bets")
    assert rt.model.state == "dealing"
    assert records(rt, "bet:lock_out")[-1] == {
        "round": 1, "accepted_progressive": [], "refused_progressive": [1],
        "closed": "sign down"}
    assert rt.model.progressive.meters.progressive_in == 0
    assert [seat for seat, *_ in records(rt, "round:no_more_bets")[-1]["bets"]] == [1, 2]


def test_a_sign_back_during_betting_reopens_the_progressive_at_the_next_betting(
    tmp_path: Path,
) -> None:
    rt = runtime(tmp_path, return_to_betting=True)
    rt.fire("shuffle_done")
    rt.handle(ev.LinkDown("sign", "timeout", 0.0))
    rt.handle(ev.LinkUp("sign", "ok", 0.0))
    bet(rt, 1, progressive=True)
    assert prompt(rt.model).startswith("progressive closed: reopens at the next betting;")
    assert rt.fire("no_more_bets")
    assert rt.model.wagers.accepted_progressive_seats() == []
    deal(rt, "2C", "3C", "4C", "5C")
    rt.fire("stand")
    while rt.model.state == "dealer":
        deal(rt, "TC")
    assert rt.model.state == "betting"
    assert rt.model.round.number == 2
    assert rt.model.progressive.is_open()
    assert fault_lamp(rt) is LampState.OFF
    bet(rt, 1, progressive=True)
    assert rt.fire("no_more_bets")
    assert records(rt, "bet:lock_out")[-1] == {"round": 2, "accepted_progressive": [1]}


def test_a_round_under_way_when_the_sign_drops_settles_its_progressive(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    rt.fire("shuffle_done")
    bet(rt, 1, progressive=True)
    assert rt.fire("no_more_bets")
    rt.handle(ev.LinkDown("sign", "timeout", 0.0))
    deal(rt, "7D", "7D", "7D", "KC")  # seat 1: three suited 7s with the up card, 100%
    rt.fire("stand")
    assert rt.model.state == "round_over"
    (hit,) = records(rt, "meter:hit")
    assert hit["seat"] == 1
    assert hit["paid"] == 1_000_100
    assert rt.model.results[-1]["seats"][0]["side_bets"]["blazing7s"] == 1_000_100 - 500


def test_the_meter_is_shown_again_when_the_sign_is_back(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    rt.fire("shuffle_done")
    rt.handle(ev.LinkDown("sign", "timeout", 0.0))
    applied = len(rt.outputs.applied)  # type: ignore[attr-defined]
    rt.handle(ev.LinkUp("sign", "ok", 0.0))
    again = [e for e in rt.outputs.applied[applied:]  # type: ignore[attr-defined]
             if isinstance(e, ShowSign)]
    assert [(e.amount, e.message) for e in again] == [(1_000_000, "FAULT")]


def test_a_progressive_closed_for_the_round_stays_closed_across_a_restart(
    tmp_path: Path,
) -> None:
    first = runtime(tmp_path)
    first.fire("shuffle_done")
    first.handle(ev.LinkDown("sign", "timeout", 0.0))
    first.handle(ev.LinkUp("sign", "ok", 0.0))
    first.shutdown()
    first.journal.close()
    again = runtime(tmp_path)
    assert again.model.state == "betting"
    assert not again.model.progressive.is_open()
    assert again.model.progressive.closed_because() == "reopens at the next betting"


# ---------------------------------------------------------------- the layout
def test_a_lost_layout_pauses_betting_until_it_is_back(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    rt.fire("shuffle_done")
    bet(rt, 1, progressive=False)
    rt.handle(ev.LinkDown("layout", "timeout", 0.0))
    assert records(rt, "table:paused") == [
        {"device": "layout", "state": "betting", "round": 1, "round_in_play": False}]
    assert prompt(rt.model).startswith("layout down: table paused")
    assert rt.shown is not None
    assert rt.shown.dealer_text == "LAYOUT DOWN: TABLE PAUSED"
    reply = commands.execute(rt, {"command": "no_more_bets"})
    assert reply.status == 409
    assert reply.body["what_to_do"].startswith("layout down: table paused")
    assert not rt.fire("no_more_bets")
    assert rt.model.state == "betting"
    # A card drawn meanwhile is never dealt into the unlit layout: it is a card in error.
    assert rt.fire("card", code="9H")
    assert rt.model.state == "card_in_error"
    rt.fire("error_unexposed")
    assert rt.model.state == "betting"
    rt.handle(ev.LinkUp("layout", "ok", 0.0))
    assert records(rt, "table:resumed") == [{"device": "layout", "state": "betting", "round": 1}]
    assert rt.fire("no_more_bets")
    assert rt.model.state == "dealing"


def test_a_round_in_play_goes_on_when_the_layout_drops_and_the_next_waits(
    tmp_path: Path,
) -> None:
    rt = runtime(tmp_path, return_to_betting=True)
    rt.fire("shuffle_done")
    bet(rt, 1, progressive=False)
    assert rt.fire("no_more_bets")
    deal(rt, "9C")
    rt.handle(ev.LinkDown("layout", "timeout", 0.0))
    assert records(rt, "table:paused")[-1]["round_in_play"] is True
    assert prompt(rt.model).startswith("layout down: no new round until it is back; deal")
    deal(rt, "8C", "7C", "TC")  # the shoe is the record: every card of the round is taken
    assert commands.execute(rt, {"command": "stand"}).status == 200
    assert rt.model.results[-1]["round"] == 1
    assert rt.model.state == "betting"
    assert rt.model.round.number == 2
    bet(rt, 1, progressive=False)
    assert not rt.fire("no_more_bets")
    assert rt.model.state == "betting"


def test_a_baccarat_table_pauses_too(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "baccarat")
    rt.fire("shuffle_done")
    assert rt.fire("wager", seat=1, bet="banker", cents=1000)
    rt.handle(ev.LinkDown("layout", "timeout", 0.0))
    assert rt.fire("card", code="9H")
    assert rt.model.state == "card_in_error"


def test_the_fault_lamp_is_steady_while_a_device_is_lost(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    rt.fire("shuffle_done")
    assert fault_lamp(rt) is LampState.OFF
    rt.handle(ev.LinkDown("shoe", "timeout", 0.0))
    assert fault_lamp(rt) is LampState.ON
    lamps = [e for e in rt.outputs.applied  # type: ignore[attr-defined]
             if isinstance(e, SetLamp) and e.lamp == Lamp.FAULT]
    assert lamps[-1].state is LampState.ON


def test_a_sign_still_down_when_betting_opens_keeps_the_progressive_closed(
    tmp_path: Path,
) -> None:
    rt = runtime(tmp_path, return_to_betting=True)
    rt.fire("shuffle_done")
    bet(rt, 1, progressive=False)
    assert rt.fire("no_more_bets")
    rt.handle(ev.LinkDown("sign", "timeout", 0.0))  # mid-round, and still down after it
    deal(rt, "2C", "3C", "4C", "5C")
    rt.fire("stand")
    while rt.model.state == "dealer":
        deal(rt, "TC")
    assert rt.model.round.number == 2
    bet(rt, 1, progressive=True)
    assert rt.fire("no_more_bets")
    assert records(rt, "bet:lock_out")[-1]["refused_progressive"] == [1]


def test_a_boards_first_link_at_start_up_does_not_close_the_progressive(tmp_path: Path) -> None:
    # A restart recovers a table into betting; its boards then report their first link. That is
    # no sign coming back, and the betting stays open to the progressive.
    rt = runtime(tmp_path)
    rt.fire("shuffle_done")
    rt.handle(ev.LinkUp("sign", "ok", 0.0))
    rt.handle(ev.LinkUp("layout", "ok", 0.0))
    assert rt.model.progressive.is_open()
    bet(rt, 1, progressive=True)
    assert rt.fire("no_more_bets")
    assert records(rt, "bet:lock_out")[-1] == {"round": 1, "accepted_progressive": [1]}
