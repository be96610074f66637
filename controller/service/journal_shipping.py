"""A linked table ships its journal to the floor store (docs/floor-protocol.md).

Every table with `[progressive] link` ships, over the same broker and with the same
certificate as its progressive link, on the journal's own topics. The shipper reads the
journal through a connection of its own; each commit of the table wakes it.
"""

from __future__ import annotations

from controller.floor.settings import LinkSettings
from controller.floor.shipping import JournalShipper
from controller.service.runtime import TableRuntime


def ship_journal(settings: LinkSettings, table: str, runtime: TableRuntime) -> JournalShipper:
    """Start shipping the table's journal; the caller stops the shipper before closing it."""
    journal = runtime.journal
    shipper = JournalShipper(settings.broker, settings.tls, table, journal.path.parent,
                             journal.key)
    runtime.watchers.append(lambda _runtime: shipper.wake())
    shipper.start()
    return shipper
