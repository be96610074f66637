"""A void round at a linked table is given back on the group's meter, exactly once.

The table is the real procedure (a blackjack runtime, its journal) wired to the floor as the
service wires it (`FloorAttachment` on an event loop), against a real Mosquitto and
`shoectl progressive serve` in its own process. After each case the controller's figures
equal what the table's journal alone says (`expected_figures`) and `progressive verify`
passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.floor.link import BrokerUrl
from controller.floor.settings import LinkSettings
from controller.floor.table_link import unconfirmed
from controller.service.floor_link import LINK_DEVICE, FloorAttachment
from controller.service.loop import EventLoop
from controller.service.runtime import TableRuntime
from drivers import events as ev
from tests.controller.helpers import open_round, runtime
from tests.support.floor_rig import (
    GROUP,
    RESET,
    Controller,
    TableJournal,
    expected_figures,
    wait_for,
)
from tests.support.mosquitto import Mosquitto

BETS = {1: {"main": 1000, "blazing7s": 500}, 2: {"main": 2000, "blazing7s": 500}}


@contextmanager
def linked_table(state_dir: Path, broker: Mosquitto) -> Iterator[tuple[TableRuntime,
                                                                      FloorAttachment]]:
    """A blackjack table linked to group bank-a; yields once its floor link is up."""
    rt = runtime(state_dir)
    loop = EventLoop(rt.handle)
    attachment = FloorAttachment(LinkSettings(BrokerUrl.parse(broker.url), GROUP, None), "T1",
                                 rt, loop, lambda: None)
    attachment.start()
    try:
        pump(loop, lambda: LINK_DEVICE not in rt.model.progressive.links_down, "link up")
        yield rt, attachment
    finally:
        attachment.stop()
        rt.journal.close()


def pump(loop: EventLoop, fact: object, what: str) -> None:
    """Run the table's loop (this thread) until `fact()` holds."""
    assert callable(fact)
    wait_for(lambda: (loop.run_until_idle(), fact())[1], what)


def confirmed(rt: TableRuntime, attachment: FloorAttachment) -> None:
    pump(attachment.loop, lambda: not unconfirmed(rt.journal), "every send confirmed")


def void_the_round(rt: TableRuntime) -> None:
    number = rt.model.round.number
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    assert rt.fire("void_round", reason="misdeal")
    assert rt.model.voided[-1] == number


def sends(rt: TableRuntime, kind: str) -> list[dict[str, object]]:
    return [e.data["message"] for e in rt.journal.entries(("floor:send",))
            if e.data["message"]["type"] == kind]


def reconciled(controller: Controller, rt: TableRuntime) -> dict[str, int]:
    figures = controller.show()
    assert figures == expected_figures([TableJournal("T1", rt.journal)])
    verified = controller.shoectl("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    return figures


def test_a_void_round_is_given_back_on_the_linked_meter_once(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    with linked_table(tmp_path / "T1", broker) as (rt, attachment):
        open_round(rt, BETS)
        confirmed(rt, attachment)
        assert controller.show()["meter"] == RESET + 200
        void_the_round(rt)
        confirmed(rt, attachment)
        [void] = [e.data["answer"] for e in rt.journal.entries(("floor:confirmed",))
                  if e.data["answer"].get("wagers")]
        assert (void["returned"], void["wagers"]) == (200, 2)
        assert reconciled(controller, rt) == {"meter": RESET, "hits": 0, "cumulative_paid": 0,
                                              "progressive_in": 0}
        open_round(rt, {1: BETS[1]})  # the next round's commits send no void again
        confirmed(rt, attachment)
        assert len(sends(rt, "void")) == 1
        assert reconciled(controller, rt)["meter"] == RESET + 100


def test_a_void_journalled_just_before_a_power_cut_is_sent_at_the_next_start(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    with linked_table(tmp_path / "T1", broker) as (rt, attachment):
        open_round(rt, BETS)
        confirmed(rt, attachment)
        rt.watchers.clear()  # the power goes right after round:void's commit: nothing sent
        void_the_round(rt)
        assert sends(rt, "void") == []
    with linked_table(tmp_path / "T1", broker) as (rt, attachment):
        confirmed(rt, attachment)
        assert [v["round"] for v in sends(rt, "void")] == [1]
        assert reconciled(controller, rt)["meter"] == RESET
    with linked_table(tmp_path / "T1", broker) as (rt, attachment):
        confirmed(rt, attachment)
        assert len(sends(rt, "void")) == 1  # sent once, whatever the number of starts
        assert reconciled(controller, rt)["progressive_in"] == 0
