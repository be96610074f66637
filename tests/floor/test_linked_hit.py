"""A meter hit at a linked table is settled with the progressive controller's amount.

The table is the real blackjack procedure wired to the floor as the service wires it
(`tests.support.linked_table`), against a real Mosquitto and `shoectl progressive serve` in
its own process; a second table (a bare `TableLink`) grows the group's meter, so the group's
amount differs from what this table's own books would pay. After each case the controller's
figures equal what the tables' journals alone say and `progressive verify` passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.console.prompts import faults
from controller.service.runtime import TableRuntime
from tests.controller.helpers import deal, open_round
from tests.support.floor_rig import INCREMENT, RESET, Controller, Table, online, wait_for
from tests.support.linked_table import (
    B7,
    THREE_7D,
    TableJournal,
    confirmed,
    linked_table,
    pump,
    reconciled,
    sends,
)
from tests.support.mosquitto import Mosquitto
from tests.support.tcp_proxy import TcpProxy


def grown_by_another_table(tmp_path: Path, broker: Mosquitto, wagers: int) -> Table:
    other = Table(tmp_path, "T2", broker.url)
    wait_for(lambda: online(other), "T2 online")
    for seat in range(1, wagers + 1):
        other.link.contribute(1, seat)
    wait_for(other.all_confirmed, "T2's contributions confirmed")
    return other


def settle_with_a_hit(rt: TableRuntime, bets: dict[int, dict[str, int]], cards: list[str]
                      ) -> dict[str, Any]:
    open_round(rt, bets)
    deal(rt, *cards)
    for _seat in bets:
        assert rt.fire("stand")
    assert rt.model.state == "round_over"
    return rt.model.results[-1]


def records(rt: TableRuntime, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in rt.journal.entries((kind,))]


def test_a_hit_waits_for_the_controller_and_is_paid_its_amount(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    other = grown_by_another_table(tmp_path, broker, 5)
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        result = settle_with_a_hit(rt, {1: B7}, THREE_7D)
        assert result["seats"][0]["side_bets"]["blazing7s"] is None  # waits
        assert result["linked_hits"] == [{"seat": 1, "kind": "100%"}]
        assert rt.model.progressive.waiting == [{"round": 1, "seat": 1, "kind": "100%",
                                                 "stake": 500, "cards": ["7D", "7D", "7D"]}]
        [waits] = [f for f in faults(rt.model) if f["kind"] == "progressive_waiting"]
        assert waits["what_to_do"].startswith("seat 1's Blazing 7's 100% hit (round 1) waits")
        assert records(rt, "meter:hit") == []  # not paid from this table's books
        confirmed(rt, attachment)
        [paid] = records(rt, "meter:linked_paid")
        group = RESET + INCREMENT * 6  # T2's five and T1's one
        assert (paid["seat"], paid["paid"], paid["net"]) == (1, group, group - 500)
        assert rt.model.progressive.waiting == []
        assert not [f for f in faults(rt.model) if f["kind"] == "progressive_waiting"]
        wait_for(lambda: other.link.view.sign_text() == str(RESET),
                 "PENDING ended on the other table's sign: the reseeded meter")
        figures = reconciled(controller, [TableJournal("T1", rt), other])
        assert (figures["hits"], figures["cumulative_paid"]) == (1, group)
    other.close()


def test_two_hits_in_one_round_are_paid_in_the_order_the_controller_got_them(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    other = grown_by_another_table(tmp_path, broker, 3)
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        settle_with_a_hit(rt, {1: B7, 2: B7}, ["7D", "7D", "7D", "7D", "7D", "TD"])
        assert [h["seat"] for h in rt.model.progressive.waiting] == [2, 1]  # from the right
        confirmed(rt, attachment)
        paid = {p["seat"]: p["paid"] for p in records(rt, "meter:linked_paid")}
        assert paid == {2: RESET + INCREMENT * 5, 1: RESET}  # the second from the reseed
        reconciled(controller, [TableJournal("T1", rt), other])
    other.close()


def test_a_hit_whose_answer_the_power_cut_is_settled_once_after_it(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    proxy = TcpProxy(broker.port)
    url = f"mqtt://127.0.0.1:{proxy.port}"
    with linked_table(tmp_path / "T1", url) as (rt, attachment):
        open_round(rt, {1: B7})
        confirmed(rt, attachment)
        proxy.hold_down()
        wait_for(lambda: not attachment.link.view.connected, "T1 sees its link down")
        deal(rt, *THREE_7D)
        assert rt.fire("stand")
        attachment.loop.run_until_idle()
        assert len(sends(rt, "hit")) == 1  # journalled, never answered: the power goes
    proxy.release()
    with linked_table(tmp_path / "T1", url, wait_up=False) as (rt, attachment):
        # before its loop runs: the answer to the resent hit may come as soon as it is up
        assert [h["seat"] for h in rt.model.progressive.waiting] == [1]
        confirmed(rt, attachment)
        [paid] = records(rt, "meter:linked_paid")
        assert paid["paid"] == RESET + INCREMENT
        assert len(sends(rt, "hit")) == 1  # resent with its first boot and seq, not anew
        reconciled(controller, [TableJournal("T1", rt)])
    with linked_table(tmp_path / "T1", url) as (rt, attachment):
        confirmed(rt, attachment)
        assert len(records(rt, "meter:linked_paid")) == 1  # settled once, whatever the starts
        reconciled(controller, [TableJournal("T1", rt)])
    proxy.close()


def test_a_hit_recorded_just_before_a_power_cut_is_sent_at_the_next_start(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        open_round(rt, {1: B7})
        confirmed(rt, attachment)
        rt.watchers.clear()  # the power goes right after the settlement's commit
        deal(rt, *THREE_7D)
        assert rt.fire("stand")
        assert sends(rt, "hit") == []
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        pump(attachment.loop, lambda: records(rt, "meter:linked_paid"), "the hit settled")
        assert len(sends(rt, "hit")) == 1
        reconciled(controller, [TableJournal("T1", rt)])


def test_a_ten_percent_hit_is_a_tenth_of_the_live_group_meter(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    other = grown_by_another_table(tmp_path, broker, 7)
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        settle_with_a_hit(rt, {1: B7}, ["7H", "7H", "7H", "TD"])  # three suited 7s: 10%
        confirmed(rt, attachment)
        [paid] = records(rt, "meter:linked_paid")
        live = RESET + INCREMENT * 8
        assert (paid["kind"], paid["paid"]) == ("10%", live // 10)
        assert reconciled(controller, [TableJournal("T1", rt), other])["meter"] == (
            live - live // 10)
    other.close()


def test_an_answer_lost_with_the_power_is_given_again_and_settled_once(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        open_round(rt, {1: B7})
        confirmed(rt, attachment)
        deal(rt, *THREE_7D)
        assert rt.fire("stand")  # the hit is sent after this commit
        wait_for(lambda: controller.show()["hits"] == 1, "the controller applied the hit")
        # The answer waits for this table's loop, which never runs again: the power goes.
    assert controller.show()["hits"] == 1
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        confirmed(rt, attachment)
        [paid] = records(rt, "meter:linked_paid")
        assert paid["paid"] == RESET + INCREMENT  # the first answer's award, not a new hit
        figures = reconciled(controller, [TableJournal("T1", rt)])
        assert (figures["hits"], figures["cumulative_paid"]) == (1, RESET + INCREMENT)
