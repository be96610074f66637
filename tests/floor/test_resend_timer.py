"""The resend timer: a send left unanswered is sent again after `RESEND_S` of the given clock.

A message published before the controller ever subscribed is dropped by the broker (no
session holds it) and no reconnect of the table will come: only the timer delivers it. The
clock is injected (the loop's in the service), so no test here waits on the wall clock for
the timer; real waits are only for the broker and the controller's answers, with a ceiling.
"""

from __future__ import annotations

from pathlib import Path

from controller.cli import simulate_command
from controller.floor.link import BrokerUrl
from controller.floor.settings import LinkSettings
from controller.floor.table_link import RESEND_S
from controller.service.floor_link import FloorAttachment
from controller.service.loop import EventLoop
from controller.sim.in_process import make_runtime
from tests.support.floor_rig import GROUP, Controller, Table, wait_for
from tests.support.mosquitto import Mosquitto


class FakeClock:
    """A monotonic clock that moves only when the test says."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_send_the_broker_dropped_is_resent_after_resend_s(
        tmp_path: Path, broker: Mosquitto) -> None:
    clock = FakeClock()
    table = Table(tmp_path, "T1", broker.url, clock=clock)
    wait_for(lambda: table.link.view.connected, "T1 connected")
    table.link.contribute(1, 1)  # no controller has ever subscribed: the broker drops it
    controller = Controller(tmp_path, broker.url)
    controller.start()
    try:
        wait_for(lambda: table.link.view.controller_online, "the controller online")
        clock.now = RESEND_S - 0.5
        assert table.link.resend_overdue() == 0  # not yet due
        assert table.link.outstanding == 2  # the boot's announcement and the contribution
        clock.now = RESEND_S
        assert table.link.resend_overdue() == 2
        wait_for(table.all_confirmed, "the resent contribution confirmed")
        assert controller.show()["progressive_in"] == 1
        clock.now += 10 * RESEND_S
        assert table.link.resend_overdue() == 0  # a confirmed send is never sent again
        assert len(table.records("floor:send")) == 2  # a resend is no new send
    finally:
        table.close()
        controller.stop()


def test_the_service_resends_on_the_loops_clock(tmp_path: Path, broker: Mosquitto) -> None:
    clock = FakeClock()
    runtime = make_runtime(simulate_command.parse_options([]), tmp_path / "T1")
    loop = EventLoop(runtime.handle, clock=clock)
    settings = LinkSettings(BrokerUrl.parse(broker.url), GROUP, None)
    attachment = FloorAttachment(settings, "T1", runtime, loop, lambda: None)
    attachment.start()
    controller = Controller(tmp_path, broker.url)
    try:
        wait_for(lambda: attachment.link.view.connected, "T1 connected")
        attachment.link.contribute(1, 1)  # dropped: no controller yet
        controller.start()
        wait_for(lambda: attachment.link.view.controller_online, "the controller online")
        clock.now = RESEND_S - 0.5
        loop.run_until_idle()
        assert attachment.link.outstanding == 2  # the timer has not fired (boot, contribution)
        clock.now = RESEND_S
        wait_for(lambda: (loop.run_until_idle(), attachment.link.outstanding == 0)[1],
                 "the loop's timer resent it and the answer was journalled")
        assert controller.show()["progressive_in"] == 1
    finally:
        attachment.stop()
        runtime.journal.close()
        controller.stop()
