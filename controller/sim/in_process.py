"""The in-process simulation (`--in-process`): no devices, the controller's loop fed directly.

An auto-dealer pulls the next card from a shuffled (or scripted) shoe whenever the procedure
says a card is due, and bot players press the decision buttons, all as events posted to the
table's own event loop. The same seed deals the same shoes as the device path.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.journal.store import JournalStore
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.states import TableState
from controller.procedure.families import family_of
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.rules.cards import shoe
from controller.rules.hands import Game
from controller.service.loop import EventLoop
from controller.service.runtime import (
    ControllerEvent,
    RecordingOutputs,
    TableRuntime,
    config_digest,
)
from controller.sim import rig
from controller.sim.bots import BotHands, bet_command, bot_move, decision_command
from controller.sim.options import Options
from controller.sim.players import counting, main_cents
from drivers import events as ev


class ShoeSource:
    """The auto-dealer's shoe: shuffled decks with a burn and a cut card, or a scripted list.

    Card identities stay inside the controller's secure path (journal); they are never
    printed except in the round results after settlement.
    """

    def __init__(self, options: Options) -> None:
        self.scripted = options.scripted is not None
        self.seed = options.seed
        self.shuffles = 0
        self.table = options.config.table
        self.game = self.table.game
        self.decks = self.table.decks
        self.cut_after = 0
        self.cards: list[str] = list(options.scripted or [])
        self.count = 0
        self.cut_out = False

    def shuffle(self) -> None:
        """A freshly shuffled shoe (scripted shoes are dealt as listed)."""
        if self.scripted:
            return
        self.shuffles += 1
        self.count = 0
        self.cards = [str(c) for c in shoe(self.decks, spanish=self.game is Game.SPANISH21)]
        random.Random(rig.shuffle_seed(self.seed, self.shuffles)).shuffle(self.cards)
        self.cut_out = False
        self.cut_after = rig.cut_card_after(self.table, len(self.cards))

    def resume(self, seen: dict[str, int]) -> None:
        """A shoe for a restart mid-shoe: shuffled, less the cards already dealt from it."""
        self.shuffle()
        for code, count in seen.items():
            for _ in range(count):
                if code in self.cards:
                    self.cards.remove(code)

    def draw(self) -> str | None:
        """The next card, or None when the shoe is empty."""
        if not self.cards:
            return None
        self.count += 1
        return self.cards.pop(0)

    def cut_card_due(self, dealt_from_shoe: int) -> bool:
        """True once when the cut card comes out."""
        if self.scripted or self.cut_out or dealt_from_shoe < self.cut_after:
            return False
        self.cut_out = True
        return True


class Simulation:
    """Auto-dealer and bots around a `TableRuntime` on its event loop."""

    def __init__(self, options: Options, runtime: TableRuntime) -> None:
        self.options = options
        self.runtime = runtime
        self.loop = EventLoop(runtime.handle)
        self.source = ShoeSource(options)
        self.dealt_in_shoe = 0
        self.reported = 0
        self.finished = False
        self.holds = 0
        self.cards = 0
        self.hands = BotHands()
        self.watch: Callable[[], None] | None = None  # after every action: the live view
        if self.model.state != TableState.SHOE_LOADING:
            self.source.resume(self.model.shoe.tally.seen)  # restarted mid-shoe
            self.source.count = self.model.shoe.tally.last_card_no
            self.dealt_in_shoe = self.model.shoe.tally.cards_out
            self.source.cut_out = self.model.shoe.tally.cut_seen

    @property
    def faults(self) -> int:
        """Holds met, and commands the table refused the bots."""
        return self.holds + len(self.hands.refused)

    @property
    def model(self) -> TableModel:
        """The procedure model (read on the loop thread only)."""
        return self.runtime.model

    def run(self) -> Iterator[dict[str, Any]]:
        """Deal until the rounds are done or a scripted shoe runs out; yield each result."""
        while not self.finished:
            self.loop.run_until_idle()
            if self.watch is not None:
                self.watch()
            yield from self._new_results()
            if self.reported >= self.options.rounds:
                return
            event = self.next_action()
            if event is None:
                return
            self.loop.post(event)

    def void_unfinished(self) -> None:
        """The shoe ran out with a round in play: the supervisor voids it (key, R9)."""
        if not self.model.round_in_play():
            return
        now = time.monotonic()
        for event in (ev.KeySwitchTurned("layout", "supervisor", now),
                      ControllerEvent("void_round", {"reason": rig.VOID_REASON}),
                      ev.KeySwitchTurned("layout", "normal", now)):
            self.loop.post(event)
        self.loop.run_until_idle()

    def _new_results(self) -> Iterator[dict[str, Any]]:
        while self.reported < len(self.model.results) and self.reported < self.options.rounds:
            yield self.model.results[self.reported]
            self.reported += 1

    def next_action(self) -> object | None:
        """What the dealer or a player does next, given the public state of the table."""
        state = self.model.state
        if state in HOLD_STATES:
            self.holds += 1
            return None
        if state == TableState.SHOE_LOADING:
            self.source.shuffle()
            self.dealt_in_shoe = 0
            return self.hands.call({"command": "shuffle_done"})
        if state == TableState.BETTING:
            return self._betting()
        if state == TableState.ROUND_OVER:
            return ControllerEvent("clear_round", {})  # the view lingers on it: the dealer
        if state == TableState.BURN or self.model.card_due_to() is not None:
            return self._draw()
        counting(self.options.policy, self.runtime)
        button = bot_move(self.model, self.options.policy)
        if button is None:
            return None
        return self.hands.call(decision_command(self.model, button))

    def _draw(self) -> object | None:
        if self.source.cut_card_due(self.dealt_in_shoe):
            return ev.ShoeFault("shoe", ev.ShoeFaultKind.CUT_CARD, self.source.count, True,
                                time.monotonic())
        code = self.source.draw()
        if code is None:
            self.finished = True
            return None
        self.dealt_in_shoe += 1
        self.cards += 1
        return ev.CardDrawn("shoe", self.source.count, code, 100, time.monotonic())

    def _betting(self) -> object:
        model = self.model
        counting(self.options.policy, self.runtime)
        for seat in range(1, self.options.seats + 1):
            for bet, cents in self.options.bets.items():
                placed = model.wagers.pending.get(seat, {}).get(bet)
                sensed = model.wagers.sensors.get(f"seat{seat}.{bet}")
                if bet == "blazing7s" and not sensed:
                    return ev.BetSensorChanged("layout", f"seat{seat}.blazing7s", True,
                                               time.monotonic())
                if bet != "blazing7s" and placed is None:
                    cents = main_cents(self.options.policy, seat, bet, cents)
                    return self.hands.call(bet_command(Game(model.setup.game), seat, bet, cents))
        return self.hands.call({"command": "no_more_bets"})


def make_runtime(options: Options, state_dir: Path) -> TableRuntime:
    """The table runtime of an in-process run: its journal in `state_dir`, outputs recorded."""
    setup = Setup(options.config, burn=options.scripted is None)
    journal = JournalStore(state_dir, clock=time.monotonic)
    digest = config_digest({"game": options.config.table.game.value, "seed": options.seed})
    return TableRuntime(setup, journal, RecordingOutputs(),
                        family_of(options.config.table.game).model, digest,
                        meter_start=options.meter_start)
