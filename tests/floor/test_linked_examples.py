"""The guide "Three linked tables" (docs/guides/linked-tables.md): its example files load,
with the group and broker it says.

`docs/examples/linked-table.toml` is a linked table's file and `docs/examples/progressive.toml`
the progressive controller's: both name group `bank-a` on `mqtts://127.0.0.1:8883` and the
same meter parameters, so the three tables and the controller keep one meter; each with the
certificate `shoectl floor certs` writes for it, and the controller knows the three tables.
"""

from __future__ import annotations

from pathlib import Path

from controller.floor import settings
from controller.rules.hands import Game
from controller.service.tableconfig import load_table_file

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def test_the_linked_table_and_its_controller_share_one_group() -> None:
    table = load_table_file(EXAMPLES / "linked-table.toml")
    link = settings.table_link_from_document(table.document, EXAMPLES)
    controller = settings.load(EXAMPLES / "progressive.toml")
    assert (table.game.table.game, table.game.table.name) == (Game.BLACKJACK, "T1")
    assert table.document["console"]["listen"] == "127.0.0.1:8431"
    assert link is not None
    assert (link.broker, link.group) == (controller.link.broker, controller.link.group)
    assert (str(link.broker), link.group) == ("mqtts://127.0.0.1:8883", "bank-a")
    assert link.tls is not None
    assert controller.link.tls is not None
    assert (link.tls.cert.name, controller.link.tls.cert.name) == (
        "T1.pem", "progressive-bank-a.pem")
    # The guide copies the table's file one folder below the controller's: one certs/.
    assert link.tls.ca == EXAMPLES / ".." / "certs" / "ca.pem"
    assert controller.link.tls.ca == EXAMPLES / "certs" / "ca.pem"
    assert controller.tables == ("T1", "T2", "T3")
    assert table.game.progressive == controller.progressive
