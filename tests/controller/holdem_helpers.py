"""A Texas Hold'em Bonus table on a real journal, driven through its triggers."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.journal.store import JournalStore
from controller.procedure.holdem import HoldemModel
from controller.procedure.shared.setup import Setup
from controller.rules.hands import Game
from controller.rules.options import GameConfig
from controller.service.runtime import RecordingOutputs, TableRuntime
from controller.service.tableconfig import load_default_table


def holdem_config() -> GameConfig:
    """The shipped table set to Texas Hold'em Bonus."""
    base = load_default_table().game
    return replace(base, table=replace(base.table, game=Game.HOLDEM, side_bets=()))


@dataclass
class Table:
    """The runtime of a hold'em table."""

    rt: TableRuntime

    @property
    def model(self) -> HoldemModel:
        model = self.rt.model
        assert isinstance(model, HoldemModel)
        return model

    def fire(self, name: str, **kwargs: Any) -> bool:
        return self.rt.fire(name, **kwargs)

    def read(self, area: str, *codes: str, seat: int | None = None) -> None:
        """The camera reads each card confidently in `area`."""
        for code in codes:
            assert self.fire("camera_card", area=area, seat=seat, card=code, confirmed=True)

    def records(self, kind: str) -> list[dict[str, Any]]:
        return [e.data for e in self.rt.journal.entries() if e.kind == kind]


def table(state_dir: Path) -> Table:
    """A fresh hold'em table that stays in `round_over` after settlement."""
    rt = TableRuntime(Setup(holdem_config(), burn=False),
                      JournalStore(state_dir, clock=time.monotonic), RecordingOutputs(),
                      HoldemModel, "test")
    rt.return_to_betting = False
    return Table(rt)


def open_round(t: Table, antes: dict[int, tuple[int, int]]) -> None:
    """Shuffled, each seat's ante (and bonus) placed, no more bets, the hole cards down."""
    assert t.fire("shuffle_done")
    for seat, (ante, bonus) in antes.items():
        assert t.fire("wager", seat=seat, bet="ante", cents=ante, source="test")
        if bonus:
            assert t.fire("wager", seat=seat, bet="bonus", cents=bonus, source="test")
    assert t.fire("no_more_bets")
    assert t.fire("hole_cards_dealt")
