"""A linked table ships its journal to the floor store and shows itself on the floor's pit view.

Every table with `[progressive] link` ships, over its progressive link's connection (the same
broker, certificate and client id), on the journal's own topics (docs/floor-protocol.md).
The shipper reads the journal through a connection of its own; each commit of the table wakes
it. After each commit that changes it, the table's public state (game, phase, round, faults:
what its own console shows anyway, never a card) is published, retained, for the floor's pit
view on `shoectl/pit/TABLE/state`.
"""

from __future__ import annotations

from typing import Any

from controller.floor.journal_protocol import table_state_topic
from controller.floor.protocol import encode
from controller.floor.settings import LinkSettings
from controller.floor.shipping import JournalShipper
from controller.floor.table_link import TableLink
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.states import TableState
from controller.service.runtime import TableRuntime


def floor_state(runtime: TableRuntime) -> dict[str, Any]:
    """The table's public state for the floor's pit view."""
    model = runtime.model
    table = model.setup.config.table
    faults: list[dict[str, str]] = []
    if model.state in HOLD_STATES or model.state == TableState.CARD_HOLD:
        faults.append({"kind": model.hold_kind or "device_fault",
                       "detail": model.hold_reason})
    faults += [{"kind": f"link_down:{device}", "detail": ""}
               for device in sorted(model.progressive.links_down)]
    if model.camera_down:
        faults.append({"kind": "camera_down", "detail": str(model.camera_down)})
    faults.extend({"kind": f"bad_frames:{device}", "detail": detail}
                  for device, detail in sorted(model.link_alarms.items()))
    return {"table": table.name, "game": table.game.value, "phase": model.state,
            "round": model.round.number, "faults": faults}


class _StatePublisher:
    """Publish the table's public state when a commit changed it."""

    def __init__(self, shipper: JournalShipper) -> None:
        self.shipper = shipper
        self.last = b""

    def __call__(self, runtime: TableRuntime) -> None:
        self.shipper.wake()
        payload = encode(floor_state(runtime))
        if payload != self.last:
            self.last = payload
            self.shipper.client.publish(table_state_topic(self.shipper.table), payload, qos=1,
                                        retain=True)


def ship_journal(settings: LinkSettings, table: str, runtime: TableRuntime,
                 over: TableLink | None = None) -> JournalShipper:
    """Start shipping the table's journal; the caller stops the shipper before closing it.

    `over`: the table's progressive link, whose connection the shipping shares (one
    certificate is one client id on the floor's broker).
    """
    journal = runtime.journal
    shipper = JournalShipper(settings.broker, settings.tls, table, journal.path.parent,
                             journal.key, over)
    publisher = _StatePublisher(shipper)
    runtime.watchers.append(publisher)
    shipper.start()
    publisher(runtime)
    return shipper
