"""Building a table runtime in a temporary directory for controller tests."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from controller.baccarat import BaccaratModel
from controller.blackjack import BlackjackModel
from controller.journal import JournalStore
from controller.rules.hands import Game
from controller.rules.options import GameConfig
from controller.runtime import RecordingOutputs, TableRuntime
from controller.tableconfig import load_default_table
from controller.tablemodel import Setup


def config(game: str = "blackjack", decks: int | None = None) -> GameConfig:
    base = load_default_table().game
    g = Game(game)
    sides = {Game.BLACKJACK: base.table.side_bets, Game.SPANISH21: ("match-the-dealer",),
             Game.BACCARAT: ("dragon-bonus",)}[g]
    table = replace(base.table, game=g, decks=decks or (8 if g is Game.BACCARAT else 6),
                    side_bets=sides)
    return replace(base, table=table)


def runtime(state_dir: Path, game: str = "blackjack", burn: bool = False,
            durable: bool = True) -> TableRuntime:
    cfg = config(game)
    factory = BaccaratModel if game == "baccarat" else BlackjackModel
    journal = JournalStore(state_dir, clock=time.monotonic, durable=durable)
    return TableRuntime(Setup(cfg, burn=burn), journal, RecordingOutputs(), factory, "test")


def open_round(rt: TableRuntime, wagers: dict[int, dict[str, int]]) -> None:
    if rt.model.state == "shoe_loading":
        rt.fire("shuffle_done")
    for seat, bets in wagers.items():
        for bet, cents in bets.items():
            if bet == "blazing7s":
                rt.fire("bet_sensor", sensor=f"seat{seat}.blazing7s", occupied=True)
            else:
                assert rt.fire("wager", seat=seat, bet=bet, cents=cents), (seat, bet)
    assert rt.fire("no_more_bets")
