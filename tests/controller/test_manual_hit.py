"""A linked hit the progressive controller rejected is settled by hand by the supervisor.

The real blackjack procedure on a runtime with its own journal, linked (`progressive.linked`);
the controller's answers are committed as the floor link commits them (the answer's record
and the critical state in one transaction), without a broker: tests/floor/test_manual_hit.py
runs the same through the real link, controller and pit view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.console import hit_commands
from controller.console.commands import CommandError
from controller.console.prompts import faults
from controller.service.runtime import TableRuntime
from tests.controller.helpers import deal, open_round, runtime
from tests.support.linked_table import B7, THREE_7D

REASON = "round 1: void, its wagers returned: no meter hit is paid for it"
SUPERVISOR = "pit:supervisor"


def linked_hit(tmp_path: Path) -> TableRuntime:
    """A linked table whose seat 1 hit the 100% of round 1; the hit waits."""
    rt = runtime(tmp_path)
    rt.model.progressive.linked = True
    open_round(rt, {1: B7})
    deal(rt, *THREE_7D)
    assert rt.fire("stand")
    assert [h["seat"] for h in rt.model.progressive.waiting] == [1]
    return rt


def answer(rt: TableRuntime, kind: str, **fields: Any) -> None:
    """The controller's answer to round 1 seat 1's hit, committed as the floor link does."""
    desk = rt.model.progressive
    reply = {"boot": "b0", "seq": 3, "type": kind, **fields}
    record = (desk.reject_linked(1, 1, reply) if kind == "reject"
              else desk.settle_linked(1, 1, int(fields["paid"]), reply))
    assert record is not None
    rt.journal.commit([record], rt.critical_state(rt.model))


def records(rt: TableRuntime, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in rt.journal.entries((kind,))]


def fault_kinds(rt: TableRuntime) -> list[str]:
    return [f["kind"] for f in faults(rt.model)]


def settle(rt: TableRuntime, cents: int, reason: str = "paid from the cage") -> bool:
    return rt.fire("settle_hit_by_hand", round=1, seat=1, cents=cents, reason=reason,
                   who=SUPERVISOR)


def test_a_rejected_hit_no_longer_waits_and_its_fault_says_what_to_do(tmp_path: Path) -> None:
    rt = linked_hit(tmp_path)
    answer(rt, "reject", reason=REASON)
    desk = rt.model.progressive
    assert desk.waiting == []
    assert [(h["round"], h["seat"], h["kind"], h["reason"]) for h in desk.rejected] == [
        (1, 1, "100%", REASON)]
    assert "progressive_waiting" not in fault_kinds(rt)
    [fault] = [f for f in faults(rt.model) if f["kind"] == "progressive_rejected"]
    assert fault["what_to_do"].startswith("seat 1's Blazing 7's 100% hit (round 1) was "
                                          "rejected by the progressive controller")
    assert "settles it by hand" in fault["what_to_do"]
    assert fault["detail"] == f"the controller's reason: {REASON}"
    [rejected] = records(rt, "meter:linked_rejected")
    assert rejected == {"round": 1, "seat": 1, "kind": "100%", "stake": 500,
                        "cards": ["7D", "7D", "7D"], "reason": REASON, "boot": "b0", "seq": 3}


def test_the_supervisor_settles_a_rejected_hit_by_hand_once(tmp_path: Path) -> None:
    rt = linked_hit(tmp_path)
    meters = rt.model.progressive.meters
    answer(rt, "reject", reason=REASON)
    assert settle(rt, 123_45)
    [paid] = records(rt, "meter:linked_paid")
    assert paid == {"round": 1, "seat": 1, "kind": "100%", "stake": 500, "paid": 123_45,
                    "net": 123_45 - 500, "manual": True, "who": SUPERVISOR,
                    "reason": "paid from the cage",
                    "rejected": {"boot": "b0", "seq": 3, "reason": REASON}}
    desk = rt.model.progressive
    assert desk.rejected == []
    assert "progressive_rejected" not in fault_kinds(rt)
    assert (desk.sign_message, desk.sign_win) == ("WIN 1 123.45", (1, 123_45))
    assert desk.meters == meters  # a house payment: no meter moves
    assert desk.refuse_by_hand(1, 1, 123_45, "again") == (
        "round 1 seat 1: no hit rejected by the progressive controller waits to be settled")
    assert not settle(rt, 123_45)
    assert len(records(rt, "meter:linked_paid")) == 1


def test_a_hit_that_still_waits_is_not_settled_by_hand(tmp_path: Path) -> None:
    rt = linked_hit(tmp_path)
    why = rt.model.progressive.refuse_by_hand(1, 1, 100, "the controller is slow")
    assert why.startswith("round 1 seat 1: the hit still waits for the progressive "
                          "controller, which may pay it")
    assert not settle(rt, 100)
    assert records(rt, "meter:linked_paid") == []
    answer(rt, "ack", paid=2_000_00)  # the controller paid it after all: paid once
    assert len(records(rt, "meter:linked_paid")) == 1
    assert not settle(rt, 100)


@pytest.mark.parametrize(("cents", "reason", "refusal"), [
    (-1, "cage", "round 1 seat 1: -1 cents is not an amount to pay (0..4294967295 cents)"),
    (4_294_967_296, "cage",
     "round 1 seat 1: 4294967296 cents is not an amount to pay (0..4294967295 cents)"),
    (100, "  ", "round 1 seat 1: the reason must be 1..200 printable characters"),
    (100, "x" * 201, "round 1 seat 1: the reason must be 1..200 printable characters"),
    (100, "two\nlines", "round 1 seat 1: the reason must be 1..200 printable characters"),
])
def test_a_bad_amount_or_reason_is_refused_in_one_line(
        tmp_path: Path, cents: int, reason: str, refusal: str) -> None:
    rt = linked_hit(tmp_path)
    answer(rt, "reject", reason=REASON)
    assert rt.model.progressive.refuse_by_hand(1, 1, cents, reason) == refusal
    assert not settle(rt, cents, reason)
    assert records(rt, "meter:linked_paid") == []
    assert len(rt.model.progressive.rejected) == 1


def test_the_ceiling_is_the_meter_limit_when_one_is_set(tmp_path: Path) -> None:
    rt = linked_hit(tmp_path)
    answer(rt, "reject", reason=REASON)
    desk = rt.model.progressive
    desk.meters = desk.meters.__class__.from_json(
        {**desk.meters.to_json(), "params": {**desk.meters.to_json()["params"],
                                             "limit": 5_000_000}})
    assert desk.manual_ceiling() == 5_000_000
    assert desk.refuse_by_hand(1, 1, 5_000_000, "cage") == ""
    assert "5000001 cents is not an amount to pay" in desk.refuse_by_hand(1, 1, 5_000_001,
                                                                          "cage")


def test_a_rejected_hit_survives_a_power_cut_and_is_settled_after_it(tmp_path: Path) -> None:
    rt = linked_hit(tmp_path)
    answer(rt, "reject", reason=REASON)
    rt.journal.close()  # no power-off record: a cut
    rt = runtime(tmp_path)
    rt.model.progressive.linked = True
    assert [(h["round"], h["seat"], h["reason"]) for h in rt.model.progressive.rejected] == [
        (1, 1, REASON)]
    assert rt.model.progressive.waiting == []
    assert "progressive_rejected" in fault_kinds(rt)
    assert settle(rt, 250_00)
    rt.journal.close()
    rt = runtime(tmp_path)
    assert rt.model.progressive.rejected == []
    assert "progressive_rejected" not in fault_kinds(rt)


@pytest.mark.parametrize(("body", "error"), [
    ([1], 'a settlement by hand is a JSON object: {"round", "seat", "cents", "reason"}'),
    ({"round": 1, "seat": 1, "cents": "12.50", "reason": "x"},
     "settle by hand: field 'cents' must be an integer (cents for 'cents'), got '12.50'"),
    ({"round": 1, "seat": True, "cents": 1, "reason": "x"},
     "settle by hand: field 'seat' must be an integer (cents for 'cents'), got True"),
    ({"round": 1, "seat": 1, "cents": 1},
     "settle by hand: field 'reason' must be a text (why it is paid this amount)"),
    ({"round": 1, "seat": 1, "cents": 1, "reason": "x", "who": "me"},
     "settle by hand: unknown field 'who'"),
])
def test_a_malformed_settlement_is_refused_in_one_line(body: object, error: str) -> None:
    with pytest.raises(CommandError) as refused:
        hit_commands.parse(body)
    assert str(refused.value) == error


def test_the_command_refuses_at_a_table_that_is_not_linked(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    command = hit_commands.parse({"round": 1, "seat": 1, "cents": 1, "reason": "x"})
    reply = hit_commands.execute(rt, command, SUPERVISOR)
    assert (reply.status, reply.body) == (409, {
        "error": "this table's meter is not linked: no hit is settled by hand here"})
