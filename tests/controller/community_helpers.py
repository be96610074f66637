"""A community-card table on a real journal, its timers on a fake clock's event loop."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.journal.store import JournalStore
from controller.procedure.community import CommunityModel
from controller.procedure.shared.setup import Setup
from controller.rules.hands import Game
from controller.rules.options import GameConfig
from controller.service.loop import EventLoop
from controller.service.runtime import RecordingOutputs, TableRuntime
from controller.service.tableconfig import load_default_table
from tests.support.clock import FakeClock

SECONDS = 15.0
CREDITS = 1_000_000
"""Each station's credits at the start (cents)."""


SIDE_BETS = ("perfect-pairs", "lucky-ladies", "match-the-dealer")


def community_config(side_bets: tuple[str, ...] = ()) -> GameConfig:
    """The shipped table set to the community game (offering `side_bets` on every spot)."""
    base = load_default_table().game
    return replace(base, table=replace(base.table, game=Game.COMMUNITY, side_bets=()),
                   community=replace(base.community, side_bets=side_bets))


@dataclass
class Table:
    """The runtime, its fake clock and loop."""

    rt: TableRuntime
    clock: FakeClock
    loop: EventLoop

    @property
    def model(self) -> CommunityModel:
        model = self.rt.model
        assert isinstance(model, CommunityModel)
        return model

    def fire(self, name: str, **kwargs: Any) -> bool:
        return self.rt.fire(name, **kwargs)

    def deal(self, *codes: str) -> None:
        for code in codes:
            assert self.fire("card", code=code), (code, self.model.state)

    def wait(self, seconds: float) -> None:
        """Let `seconds` pass on the loop's clock and run what falls due."""
        self.clock.advance(seconds)
        self.loop.run_until_idle()

    def phase(self, station: int) -> str:
        game = self.model.game
        assert game is not None
        return game.station_phase(station).value

    def kinds(self) -> list[str]:
        return [e.kind for e in self.rt.journal.entries()]

    def records(self, kind: str) -> list[dict[str, Any]]:
        return [e.data for e in self.rt.journal.entries() if e.kind == kind]


def table(state_dir: Path, stations: int = 3, credits: int = CREDITS,
          side_bets: tuple[str, ...] = ()) -> Table:
    """A community table whose timers run on a fake clock (`credits` added to each station:
    0 for none, a table restarted on its journal keeps what it had)."""
    factory = functools.partial(CommunityModel, stations=stations, decision_seconds=SECONDS)
    rt = TableRuntime(Setup(community_config(side_bets), burn=False),
                      JournalStore(state_dir, clock=time.monotonic), RecordingOutputs(),
                      factory, "test")
    clock = FakeClock()
    loop = EventLoop(rt.handle, clock)
    model = rt.model
    assert isinstance(model, CommunityModel)
    model.timers.attach(loop, rt.fire, rt.fire_together)
    rt.commit_pending()
    rt.return_to_betting = False
    for station in range(1, stations + 1) if credits else ():  # the attendant's credits
        assert rt.fire("credits_in", station=station, cents=credits, who="attendant")
    return Table(rt, clock, loop)


def open_round(t: Table, wagers: dict[int, dict[int, int]], initial: list[str]) -> None:
    """Bets placed, no more bets, the eight starting cards (spot 1-3, up, spot 1-3, hole)."""
    if t.model.state == "shoe_loading":
        assert t.fire("shuffle_done")
    for station, spots in wagers.items():
        for spot, cents in spots.items():
            assert t.fire("wager", station=station, spot=spot, cents=cents, source="test")
    assert t.fire("no_more_bets")
    t.deal(*initial)
