"""The baccarat coup in the console's table object: the Player's and the Banker's cards and
totals as dealt, the result once complete, and the last coup again while the next is bet."""

from __future__ import annotations

from pathlib import Path

from controller.console.commands import table_now
from tests.controller.helpers import deal, open_round, runtime


def test_the_coup_is_shown_as_dealt_and_kept_while_the_next_is_bet(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "baccarat", return_to_betting=True)
    assert table_now(rt)["baccarat"]["player"] == {"cards": [], "total": None}
    open_round(rt, {1: {"banker": 1000}})
    deal(rt, "4H", "3C")
    coup = table_now(rt)["baccarat"]
    assert (coup["player"], coup["banker"]) == ({"cards": ["4H"], "total": 4},
                                               {"cards": ["3C"], "total": 3})
    assert (coup["result"], coup["settled"]) == (None, False)
    deal(rt, "5D", "5S")  # Player 9, Banker 8: naturals, the coup is over
    shown = table_now(rt)
    assert shown["phase"] == "betting"
    assert shown["baccarat"] == {"round": 1, "player": {"cards": ["4H", "5D"], "total": 9},
                                 "banker": {"cards": ["3C", "5S"], "total": 8},
                                 "result": "player", "settled": True}
    assert table_now(runtime(tmp_path / "bj", "blackjack"))["baccarat"] is None
