"""A linked table in the service: `[progressive] link` (docs/floor-protocol.md).

The table's floor link is one more progressive link (device `link`): while it is down the
procedure refuses Blazing 7's wagers and the sign says PROGRESSIVE OFF, exactly as for a lost
sign. Each round's accepted contributions are sent at the lock-out, journalled in the table's
journal; answers are journalled on the loop thread. A void round whose contributions were
sent is sent as a `void` (the controller gives them back), once: a `round:void` journalled
but not yet sent when the power went is sent at the next start. Every `RESEND_S` of the
loop's clock the link sends again what has waited that long for its answer. The sign shows
the group's meter, and PENDING with the locked amount while a 100% hit of the group is not
yet confirmed paid.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.floor.settings import LinkSettings
from controller.floor.table_link import RESEND_S, TableLink, rounds_sent
from controller.journal.store import JournalStore
from controller.service.loop import EventLoop, TimerHandle
from controller.service.runtime import TableRuntime
from drivers.events import LinkDown, LinkUp

LINK_DEVICE = "floor"
"""The floor link's device name in link events, the journal and the console ("floor down")."""
PENDING_TEXT = "PENDING"
KIND_ROUND_VOID = "round:void"


def voids_unsent(store: JournalStore) -> list[int]:
    """Void rounds whose contributions were sent and whose void was not, oldest first."""
    contributed = rounds_sent(store, "contribution")
    done = rounds_sent(store, "void")
    voided = {int(e.data["round"]) for e in store.entries((KIND_ROUND_VOID,))}
    return sorted(r for r in voided if r in contributed and r not in done)


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
        self._voids_sent = rounds_sent(runtime.journal, "void")
        runtime.watchers.append(self._forward)

    def start(self) -> None:
        """Down until the broker and the controller answer; then connect; start resending."""
        self.loop.post(LinkDown(LINK_DEVICE, "not connected yet", self.loop.clock()))
        self.link.start()
        for round_no in voids_unsent(self.runtime.journal):  # journalled before a power cut
            self._send_void(round_no)
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
        """After a commit: send the round's contributions, or its void, once."""
        round_ = runtime.model.round
        if round_.number > self.link.last_round and round_.contributions:
            for contribution in round_.contributions:
                self.link.contribute(round_.number, int(contribution["seat"]))
        voided = runtime.model.voided
        if voided and voided[-1] == self.link.last_round and voided[-1] not in self._voids_sent:
            self._send_void(voided[-1])

    def _send_void(self, round_no: int) -> None:
        self._voids_sent.add(round_no)
        self.link.void(round_no)
