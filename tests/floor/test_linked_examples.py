"""The README's "Three linked tables" example files load, with the group and broker it says.

`docs/examples/linked-table.toml` is a linked table's file and `docs/examples/progressive.toml`
the progressive controller's: both name group `bank-a` on `mqtt://127.0.0.1:1883` and the
same meter parameters, so the three tables and the controller keep one meter.
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
    assert link == controller.link
    assert (str(link.broker), link.group) == ("mqtt://127.0.0.1:1883", "bank-a")
    assert table.game.progressive == controller.progressive
