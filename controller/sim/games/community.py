"""`shoectl simulate --game community`: stations played by bots through the station commands.

The table is the community procedure on a real journal (`TableRuntime`), its decision timers
on the loop's own clock, which moves only when every bot has had its say (so a run is the same
on a busy machine as on an idle one). An auto-dealer shuffles (seeded, or `--shoe-file`), opens
betting, closes it and draws a card whenever the procedure says one is due. The bots sit at
`--stations` stations and send exactly the commands a station page sends
(`controller.console.station_commands`, source `bot`): `--bets main=CENTS,SIDE=CENTS` on
every spot (each side wager offered by `[rules.community] side_bets`, on the spot with its
main wager);
insurance declined; then, station by station, basic strategy (or `stand`) hand by hand: a
stand on a hand, then the next hand, until a hit, split or double ends the station's round.

With `--json` each settled round is one line on stdout:
`{"round": n, "shared": [6 cards: spot 1, 2, 3 in dealing order], "dealer": [...],
"stations": [{"station": s, "spots": [{"spot": p, "cards": [...], "net": cents}]}]}`
(a split spot adds `"hands": [[...], [...]]`, a spot with side wagers `"side_bets":
{name: net}`, each side wager's own net, which `net` includes; spots without a wager are left
out); a summary goes to stderr. Without it, a line a round.
"""

from __future__ import annotations

import functools
import random
import sys
import time
from pathlib import Path
from typing import Any, Final

from controller.console import station_commands
from controller.journal.store import JournalStore
from controller.procedure.community import CC, MAX_CREDITS_IN, SPOTS, CommunityModel
from controller.procedure.families import model_as
from controller.procedure.shared.setup import Setup
from controller.rules import blackjack as bj
from controller.rules.cards import shoe
from controller.rules.money import format_cents
from controller.rules.strategy import PlayerPolicy, Situation
from controller.service.loop import EventLoop
from controller.service.runtime import RecordingOutputs, TableRuntime
from controller.sim.games.base import Driver, RoundRecords
from controller.sim.options import Options

TOP_UP_ROUNDS: Final = 20
"""A bot's station is topped up when its credits cover fewer than this many rounds of bets."""
RESHUFFLE_BELOW: Final = 60
"""A seeded shoe is replaced between rounds when fewer cards than this are left."""


class StepClock:
    """The simulation's clock: it moves only when the simulation says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        """The current simulated time."""
        return self.now


class CommunitySimulation:
    """The auto-dealer and the station bots around one community table."""

    def __init__(self, options: Options, runtime: TableRuntime, loop: EventLoop,
                 clock: StepClock) -> None:
        self.options = options
        self.runtime = runtime
        self.loop = loop
        self.clock = clock
        self.rng = random.Random(options.seed)
        self.cards: list[str] = []
        self.refused = 0

    @property
    def model(self) -> CommunityModel:
        """The table's procedure model."""
        return model_as(self.runtime.model, CommunityModel)

    def send(self, command: dict[str, Any]) -> bool:
        """One bot command through the station command API; False when refused."""
        reply = station_commands.execute(self.runtime, station_commands.parse(command), "bot")
        if reply.status != 200:
            self.refused += 1
        return reply.status == 200

    def play_round(self) -> dict[str, Any] | None:
        """One whole round; its settled record, or None when the scripted shoe ran out."""
        model = self.model
        done = len(model.results)
        self._fill_shoe()
        if model.state == CC.SHOE_LOADING:
            self.runtime.fire("shuffle_done")
        for station in range(1, self.options.stations + 1):
            self._top_up(station)
            for spot in SPOTS:
                for name, cents in self.options.bets.items():  # main first: sides go with it
                    self.send({"command": "wager", "station": station, "spot": spot,
                               "cents": cents, "bet": name})
        self.runtime.fire("no_more_bets")
        while len(model.results) == done:
            if not self._step():
                return None
        return model.results[-1]

    def _top_up(self, station: int) -> None:
        """An attendant's credits for the bot whenever a round could use up what is left."""
        bet = sum(self.options.bets.values())
        worst = len(SPOTS) * bet * TOP_UP_ROUNDS
        if self.model.credits.available(station) < worst:
            self.runtime.fire("credits_in", station=station,
                              cents=min(MAX_CREDITS_IN, worst * 10), who="bot")

    def _fill_shoe(self) -> None:
        if self.options.scripted is not None:
            if not self.cards and not self.model.results:
                self.cards = list(reversed(self.options.scripted))  # dealt from the end
            return
        if len(self.cards) < RESHUFFLE_BELOW:
            decks = self.options.config.table.decks
            self.cards = [str(c) for c in shoe(decks)]
            self.rng.shuffle(self.cards)
            if self.model.state == CC.BETTING:
                self.runtime.fire("new_shoe")

    def _step(self) -> bool:
        """Let the bots answer, or draw the card due, or let the clock run to the expiry."""
        model = self.model
        if self._bots_act():
            return True
        if model.card_due_to() is not None:
            if not self.cards:
                return False
            self.runtime.fire("card", code=self.cards.pop())
            return True
        if model.stations_deciding():
            self.clock.now += model.timers.seconds
            self.loop.run_until_idle()
            return True
        raise RuntimeError(f"the simulated table is stuck in {model.state}")

    def _bots_act(self) -> bool:
        model, game = self.model, self.model.game
        if game is None:
            return False
        acted = False
        for station in model.stations_deciding():
            if model.state == CC.INSURANCE:
                for _, spot in [k for k in game.insurance_due() if k[0] == station]:
                    acted |= self.send({"command": "insurance", "station": station,
                                        "spot": spot, "cents": 0})
            else:
                acted |= self._decide(station)
        return acted

    def _decide(self, station: int) -> bool:
        """The station's round of decisions: stands hand by hand until an action ends it."""
        model, policy = self.model, self.options.policy
        acted = False
        for key in list(model.game.spot_keys(station)) if model.game else []:
            game = model.game
            if game is None:  # the last stand settled the round
                break
            legal = game.legal(*key)
            if not legal:
                continue
            action = _decision(policy, station, game.spots[key], legal)
            acted |= self.send({"command": str(action), "station": station, "spot": key[1]})
            if action is not bj.Action.STAND:
                break
        return acted


def _decision(policy: PlayerPolicy, station: int, game: bj.BlackjackRound,
              legal: frozenset[bj.Action]) -> bj.Action:
    turn = bj.current_hand(game)
    assert turn is not None
    assert game.up_card is not None
    hand = game.seats[0].hands[turn[1]]
    situation = Situation(station, turn[1], hand.cards, game.up_card, legal, game.rules,
                          hand.stake)
    return policy.decide(situation).action


def make_runtime(options: Options, state_dir: Path) -> tuple[TableRuntime, EventLoop,
                                                              StepClock]:
    """The community table on a journal in `state_dir`, its timers on a step clock."""
    factory = functools.partial(CommunityModel, stations=options.stations)
    journal = JournalStore(state_dir, clock=time.monotonic)
    runtime = TableRuntime(Setup(options.config, burn=False), journal, RecordingOutputs(),
                           factory, "simulate")
    clock = StepClock()
    loop = EventLoop(runtime.handle, clock)
    model = model_as(runtime.model, CommunityModel)
    model.timers.attach(loop, runtime.fire, runtime.fire_together)
    runtime.commit_pending()
    return runtime, loop, clock


def run(options: Options) -> int:
    """Play the planned rounds; one line (or JSON object) a round; the exit status."""
    return CommunityDriver(options).run()


class CommunityDriver(Driver):
    """The community table: its stations played by bots, round by round."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.house = 0
        self._sim: CommunitySimulation | None = None

    @property
    def sim(self) -> CommunitySimulation:
        """The auto-dealer and the bots of the started table."""
        assert self._sim is not None, "the table is not started"
        return self._sim

    def start(self, state_dir: Path, workdir: Path) -> None:
        """The table on a journal in `state_dir`, its timers on a step clock."""
        self._sim = CommunitySimulation(self.options, *make_runtime(self.options, state_dir))

    def rounds(self) -> RoundRecords:
        """Each round played; the run ends early when a scripted shoe runs out."""
        for number in range(1, self.options.rounds + 1):
            record = self.sim.play_round()
            if record is None:
                sys.stderr.write(f"shoectl simulate: the shoe file ran out in round "
                                 f"{number}; {number - 1} rounds settled\n")
                return
            self.house -= _net(record)
            yield record

    def line(self, record: dict[str, Any]) -> str:
        """The round: the shared cards, the dealer's and the players' net."""
        return (f"round {record['round']:>4}  shared {' '.join(record['shared'])}  "
                f"dealer {' '.join(record['dealer']):<15} players net "
                f"{format_cents(_net(record)):>10}")

    def summary(self, elapsed: float) -> str:
        """Rounds, stations, the house's win and the time taken."""
        return (f"{self.reported} rounds, {self.options.stations} stations: house "
                f"{format_cents(self.house)} in {elapsed:.1f} s")

    def close(self, reason: str) -> None:
        """Record the power-off and close the journal."""
        self.sim.runtime.shutdown(reason)
        self.sim.runtime.journal.close()


def _net(record: dict[str, Any]) -> int:
    return sum(p["net"] for s in record["stations"] for p in s["spots"])
