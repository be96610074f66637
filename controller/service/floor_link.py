"""A linked table in the service: `[progressive] link` (docs/floor-protocol.md).

The table's floor link is one more progressive link (device `link`): while it is down the
procedure refuses Blazing 7's wagers and the sign says PROGRESSIVE OFF, exactly as for a lost
sign. Each round's accepted contributions are sent at the lock-out, journalled in the table's
journal; answers are journalled on the loop thread. Every `RESEND_S` of the loop's clock the
link sends again what has waited that long for its answer. The sign shows the group's meter,
and PENDING with the locked amount while a 100% hit of the group is not yet confirmed paid.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.floor.settings import LinkSettings
from controller.floor.table_link import RESEND_S, TableLink
from controller.service.loop import EventLoop, TimerHandle
from controller.service.runtime import TableRuntime
from drivers.events import LinkDown, LinkUp

LINK_DEVICE = "floor"
"""The floor link's device name in link events, the journal and the console ("floor down")."""
PENDING_TEXT = "PENDING"


class FloorAttachment:
    """The table's `TableLink`, wired to its loop, its runtime and its sign."""

    def __init__(self, settings: LinkSettings, table: str, runtime: TableRuntime,
                 loop: EventLoop, reshow: Callable[[], None]) -> None:
        self.loop = loop
        self.runtime = runtime
        self.reshow = reshow
        self.link = TableLink(settings, table, runtime.journal,
                              execute=lambda work: loop.call_later(0, work),
                              on_change=self._changed, clock=loop.clock)
        self._resend_timer: TimerHandle | None = None
        runtime.watchers.append(self._forward)

    def start(self) -> None:
        """Down until the broker and the controller answer; then connect; start resending."""
        self.loop.post(LinkDown(LINK_DEVICE, "not connected yet", self.loop.clock()))
        self.link.start()
        self._resend_timer = self.loop.call_later(RESEND_S, self._resend)

    def stop(self) -> None:
        """Disconnect (unconfirmed sends stay in the journal for the next start)."""
        self.loop.cancel(self._resend_timer)
        self.link.stop()

    def _resend(self) -> None:
        """Loop timer: what waited `RESEND_S` for its answer goes out again."""
        self.link.resend_overdue()
        self._resend_timer = self.loop.call_later(RESEND_S, self._resend)

    def sign(self) -> tuple[int, str] | None:
        """The group's meter and the sign's text ("" or PENDING); None before the first."""
        meter = self.link.view.meter
        if "amount" not in meter:
            return None
        pending = meter.get("pending") or []
        if pending:
            return int(pending[0]["amount"]), PENDING_TEXT
        return int(meter["amount"]), ""

    def _changed(self, up: bool | None) -> None:
        if up is None:
            self.loop.call_later(0, self.reshow)
        elif up:
            self.loop.post(LinkUp(LINK_DEVICE, "broker and controller answer", self.loop.clock()))
        else:
            self.loop.post(LinkDown(LINK_DEVICE, "broker or controller lost", self.loop.clock()))

    def _forward(self, runtime: TableRuntime) -> None:
        """After a commit: send the round's contributions once (a restart never resends)."""
        round_ = runtime.model.round
        if round_.number > self.link.last_round and round_.contributions:
            for contribution in round_.contributions:
                self.link.contribute(round_.number, int(contribution["seat"]))
