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

A meter hit at this table waits (`ProgressiveDesk.waiting`) for the controller's answer: the
hit is sent after the commit of its round's settlement (or after the first commit of the
next start, when the power went in between: the waiting hits are in the critical state), and
the answer's `paid` settles it: `meter:linked_paid` is journalled in
the same transaction as the answer's `floor:confirmed` and the critical state without the
hit, so it is settled exactly once, also when the power goes between the hit and its answer
(the hit is resent at the next start and the controller answers it again with the same
`paid`). A `reject` answer to a hit is journalled the same way (`meter:linked_rejected`, in
the transaction of its `floor:confirmed`): the hit no longer waits, it is to be settled by
hand by the supervisor (the pit view's `POST /api/pit/progressive/settle`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from controller.floor.settings import LinkSettings
from controller.floor.table_link import KIND_SEND, RESEND_S, Confirmation, TableLink, rounds_sent
from controller.journal.store import JournalStore
from controller.rules.money import format_cents
from controller.service.loop import EventLoop, TimerHandle
from controller.service.runtime import TableRuntime
from drivers.events import LinkDown, LinkUp

LINK_DEVICE = "floor"
"""The floor link's device name in link events, the journal and the console ("floor down")."""
PENDING_TEXT = "PENDING"
KIND_ROUND_VOID = "round:void"
_OPLOG = logging.getLogger("shoectl.table")


def hits_sent(store: JournalStore) -> set[tuple[int, int]]:
    """(round, seat) of every hit journalled as sent."""
    return {(int(e.data["message"]["round"]), int(e.data["message"]["seat"]))
            for e in store.entries((KIND_SEND,)) if e.data["message"]["type"] == "hit"}


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
                              on_change=self._changed, clock=loop.clock,
                              on_confirmed=self._confirmed,
                              ceiling=runtime.model.progressive.manual_ceiling)
        self._resend_timer: TimerHandle | None = None
        self._voids_sent = rounds_sent(runtime.journal, "void")
        self._hits_sent = hits_sent(runtime.journal)
        runtime.model.progressive.linked = True
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
        self._send_hits()

    def _send_hits(self) -> None:
        """Send each waiting hit not sent yet, in the order the table recorded them."""
        for hit in self.runtime.model.progressive.waiting:
            key = (int(hit["round"]), int(hit["seat"]))
            if key not in self._hits_sent:
                self._hits_sent.add(key)
                self.link.hit(key[0], key[1], str(hit["kind"]),
                              [str(c) for c in hit.get("cards", ())])

    def _confirmed(self, sent: dict[str, Any], answer: dict[str, Any]) -> Confirmation:
        """A hit's answer settles it, or a reject leaves it to be settled by hand.

        Either is committed with the confirmation (loop thread).
        """
        if sent["type"] != "hit":
            return [], None, lambda: None
        desk = self.runtime.model.progressive
        round_no, seat = int(sent["round"]), int(sent["seat"])
        before = desk.linked_state()
        if answer.get("type") == "reject":
            record = desk.reject_linked(round_no, seat, answer)
            line = (logging.WARNING, "round %s seat %s: Blazing 7's %s hit rejected by the "
                    "progressive controller (%s): the supervisor settles it by hand",
                    (round_no, seat, sent["kind"], answer.get("reason", "")))
        elif answer.get("type") == "ack" and "paid" in answer:
            record = desk.settle_linked(round_no, seat, int(answer["paid"]), answer)
            line = (logging.INFO, "round %s seat %s: Blazing 7's %s hit paid %s by the "
                    "progressive controller",
                    (round_no, seat, sent["kind"], format_cents(int(answer["paid"]))))
        else:
            return [], None, lambda: None
        if record is None:
            return [], None, lambda: None
        critical = self.runtime.critical_state(self.runtime.model)
        after = desk.linked_state()
        desk.set_linked_state(before)  # until the commit succeeds

        def committed() -> None:
            desk.set_linked_state(after)
            _OPLOG.log(line[0], line[1], *line[2])
            self.loop.call_later(0, self._settled)
        return [record], critical, committed

    def _settled(self) -> None:
        """After a hit's settlement: the sign again, and the watchers (the console's view)."""
        self.runtime.reassert()
        for watcher in list(self.runtime.watchers):
            watcher(self.runtime)

    def _send_void(self, round_no: int) -> None:
        self._voids_sent.add(round_no)
        self.link.void(round_no)
