"""A void round at a linked table is given back on the group's meter, exactly once.

The table is the real procedure (a blackjack runtime, its journal) wired to the floor as the
service wires it (`FloorAttachment` on an event loop), against a real Mosquitto and
`shoectl progressive serve` in its own process. After each case the controller's figures
equal what the table's journal alone says (`expected_figures`) and `progressive verify`
passes.
"""

from __future__ import annotations

from pathlib import Path

from controller.service.runtime import TableRuntime
from drivers import events as ev
from tests.controller.helpers import open_round
from tests.support.floor_rig import RESET, Controller
from tests.support.linked_table import (
    TableJournal,
    confirmed,
    linked_table,
    reconciled,
    sends,
)
from tests.support.mosquitto import Mosquitto

BETS = {1: {"main": 1000, "blazing7s": 500}, 2: {"main": 2000, "blazing7s": 500}}


def void_the_round(rt: TableRuntime) -> None:
    number = rt.model.round.number
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    assert rt.fire("void_round", reason="misdeal")
    assert rt.model.voided[-1] == number


def test_a_void_round_is_given_back_on_the_linked_meter_once(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        open_round(rt, BETS)
        confirmed(rt, attachment)
        assert controller.show()["meter"] == RESET + 200
        void_the_round(rt)
        confirmed(rt, attachment)
        [void] = [e.data["answer"] for e in rt.journal.entries(("floor:confirmed",))
                  if e.data["answer"].get("wagers")]
        assert (void["returned"], void["wagers"]) == (200, 2)
        assert reconciled(controller, [TableJournal("T1", rt)]) == {
            "meter": RESET, "hits": 0, "cumulative_paid": 0, "progressive_in": 0}
        open_round(rt, {1: BETS[1]})  # the next round's commits send no void again
        confirmed(rt, attachment)
        assert len(sends(rt, "void")) == 1
        assert reconciled(controller, [TableJournal("T1", rt)])["meter"] == RESET + 100


def test_a_void_journalled_just_before_a_power_cut_is_sent_at_the_next_start(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        open_round(rt, BETS)
        confirmed(rt, attachment)
        rt.watchers.clear()  # the power goes right after round:void's commit: nothing sent
        void_the_round(rt)
        assert sends(rt, "void") == []
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        confirmed(rt, attachment)
        assert [v["round"] for v in sends(rt, "void")] == [1]
        assert reconciled(controller, [TableJournal("T1", rt)])["meter"] == RESET
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        confirmed(rt, attachment)
        assert len(sends(rt, "void")) == 1  # sent once, whatever the number of starts
        assert reconciled(controller, [TableJournal("T1", rt)])["progressive_in"] == 0
