"""A linked blackjack table in the tests: the real procedure wired to the floor as a service.

A table runtime (`tests.controller.helpers.runtime`, its own journal) and its
`FloorAttachment` on an event loop that the test's thread pumps, linked to group bank-a of a
real broker. Nothing waits on the clock but `wait_for`'s ceiling for the broker's answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.floor.link import BrokerUrl, TlsFiles
from controller.floor.settings import LinkSettings
from controller.floor.table_link import unconfirmed
from controller.service.floor_link import LINK_DEVICE, FloorAttachment
from controller.service.journal_shipping import ship_journal
from controller.service.loop import EventLoop
from controller.service.runtime import TableRuntime
from tests.controller.helpers import runtime
from tests.support.floor_rig import GROUP, Controller, HasRecords, expected_figures, wait_for

B7 = {"main": 1000, "blazing7s": 500}
"""Seat 1's wagers in the linked-hit tests: a main wager and a Blazing 7's."""
THREE_7D = ["7D", "7D", "7D", "TD"]
"""Seat 1: 7D 7D, the dealer 7D up and TD: the 100% line."""


class TableJournal:
    """A table journal's records, read through the journal that is open (the table's own)."""

    def __init__(self, name: str, rt: TableRuntime) -> None:
        self.name = name
        self.rt = rt

    def records(self, kind: str) -> list[dict[str, Any]]:
        """Every journalled record of `kind`."""
        return [e.data for e in self.rt.journal.entries((kind,))]


@contextmanager
def linked_table(state_dir: Path, broker_url: str, name: str = "T1",
                 tls: TlsFiles | None = None, *, ship: bool = False, wait_up: bool = True
                 ) -> Iterator[tuple[TableRuntime, FloorAttachment]]:
    """A blackjack table linked to group bank-a; yields once its floor link is up.

    With `ship` it ships its journal to the floor over its link's connection, as a service;
    without `wait_up` it yields at once, before its loop ran (no answer taken yet).
    On leaving, the link stops and the journal closes with no power-off record (as a cut).
    """
    rt = runtime(state_dir)
    loop = EventLoop(rt.handle)
    settings = LinkSettings(BrokerUrl.parse(broker_url), GROUP, tls)
    attachment = FloorAttachment(settings, name, rt, loop, lambda: None)
    attachment.start()
    shipper = ship_journal(settings, name, rt, attachment.link) if ship else None
    try:
        if wait_up:
            pump(loop, lambda: LINK_DEVICE not in rt.model.progressive.links_down, "link up")
        yield rt, attachment
    finally:
        if shipper is not None:
            shipper.stop()
        attachment.stop()
        rt.journal.close()


def pump(loop: EventLoop, fact: Callable[[], object], what: str) -> None:
    """Run the table's loop (this thread) until `fact()` holds."""
    wait_for(lambda: (loop.run_until_idle(), fact())[1], what)


def confirmed(rt: TableRuntime, attachment: FloorAttachment) -> None:
    """Run the loop until every send in the table's journal has its answer journalled."""
    pump(attachment.loop, lambda: not unconfirmed(rt.journal), "every send confirmed")


def sends(rt: TableRuntime, kind: str) -> list[dict[str, Any]]:
    """The messages of `kind` the table journalled as sent."""
    return [e.data["message"] for e in rt.journal.entries(("floor:send",))
            if e.data["message"]["type"] == kind]


def reconciled(controller: Controller, tables: list[HasRecords]) -> dict[str, int]:
    """The controller's figures, once checked against the tables' journals and verified."""
    figures = controller.show()
    assert figures == expected_figures(tables)
    verified = controller.shoectl("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    return figures
