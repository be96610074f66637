"""Building a table runtime in a temporary directory for controller tests, and driving it."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from controller.journal.store import JournalStore
from controller.procedure.families import family_of
from controller.procedure.shared.setup import Setup
from controller.rules import blackjack as bj
from controller.rules import dealer
from controller.rules.baccarat import BaccaratSeat
from controller.rules.cards import Card, Rank, deck
from controller.rules.hands import Game
from controller.rules.meter import new_meter
from controller.rules.options import GameConfig
from controller.rules.strategy import BasicStrategyPolicy, PlayerPolicy
from controller.service.runtime import RecordingOutputs, TableRuntime
from controller.service.tableconfig import load_default_table
from controller.sim.bots import bot_move

CARDS = [str(c) for c in deck()]
TENS = [c for c in CARDS if Card.parse(c).rank.is_ten_value]
ACES = [c for c in CARDS if c[0] == "A"]

#: `--bets` for scripted-shoe runs: every wager each game offers, on every seat.
SCRIPT_BETS = {"blackjack": "main=1000,perfect-pairs=100,lucky-ladies=100,match-the-dealer=100,"
                            "blazing7s=500,axman=100",
               "spanish21": "main=1000,match-the-dealer=100",
               "baccarat": "banker=1000,player=500,tie=100,dragon-player=100,dragon-banker=100"}


def config(game: str = "blackjack", decks: int | None = None) -> GameConfig:
    base = load_default_table().game
    g = Game(game)
    sides = {Game.BLACKJACK: base.table.side_bets, Game.SPANISH21: ("match-the-dealer",),
             Game.BACCARAT: ("dragon-bonus",), Game.ROULETTE: (), Game.HOLDEM: ()}[g]
    table = replace(base.table, game=g, decks=decks or (8 if g is Game.BACCARAT else 6),
                    side_bets=sides)
    return replace(base, table=table)


def runtime(state_dir: Path, game: str = "blackjack", burn: bool = False,
            durable: bool = True, return_to_betting: bool = False) -> TableRuntime:
    """A table on recorded outputs. By default a settled round waits in `round_over` for
    `clear_round`, so a test can look at it; `return_to_betting=True` is the live table."""
    cfg = config(game)
    journal = JournalStore(state_dir, clock=time.monotonic, durable=durable)
    rt = TableRuntime(Setup(cfg, burn=burn), journal, RecordingOutputs(),
                      family_of(cfg.table.game).model, "test")
    rt.return_to_betting = return_to_betting
    return rt


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


def deal(rt: TableRuntime, *codes: str) -> None:
    """Each card is accepted by the procedure."""
    for code in codes:
        assert rt.fire("card", code=code), code


def kinds(rt: TableRuntime) -> list[str]:
    """The kinds of every journal record so far."""
    return [e.kind for e in rt.journal.entries()]


# ---------------------------------------------------------------- hole-card secrecy (R5)
@dataclass(frozen=True)
class HolePair:
    """Two rounds dealt alike but for the hole card: both with a dealer blackjack or neither.

    Attributes:
        seats: Seats playing.
        first: The initial deal in dealing order, "XX" where the hole card goes.
        holes: The two hole cards.
        rest: The cards after the initial deal.
        up: The dealer's up card.
    """

    seats: int
    first: list[str]
    holes: tuple[str, str]
    rest: list[str]
    up: str


def hole_pair(rng: random.Random, up: str) -> tuple[str, str]:
    """Two hole cards of one class under `up`: both complete a blackjack, or neither does."""
    rank = Card.parse(up).rank
    completes = TENS if rank is Rank.ACE else ACES if rank.is_ten_value else []
    pool = completes if completes and rng.random() < 0.5 else [
        c for c in CARDS if c not in completes]
    return rng.choice(pool), rng.choice(pool)


def random_hole_pair(rng: random.Random) -> HolePair:
    """A random pair of rounds; four in five have an ace or a ten up (a peek is due)."""
    seats = rng.randint(1, 3)
    initial = [rng.choice(CARDS) for _ in range(seats * 2 + 2)]
    up = initial[seats]
    if rng.random() < 0.8:
        up = rng.choice(ACES + TENS)
        initial[seats] = up
    holes = hole_pair(rng, up)
    rest = [rng.choice(CARDS) for _ in range(12)]
    first = [*initial[:seats], up, *initial[seats + 1:2 * seats + 1], "XX"]
    return HolePair(seats, first, holes, rest, up)


def next_round(rt: TableRuntime) -> None:
    """Clear the last round and change the shoe, so every pair starts alike."""
    if rt.model.state == "round_over":
        rt.fire("clear_round")
    if rt.model.state == "betting":
        rt.fire("new_shoe")


def act(rt: TableRuntime, stream: Iterator[str], policy: PlayerPolicy) -> None:
    """The dealer deals the next card if one is due; else the bot players decide."""
    if rt.model.card_due_to() is not None:
        rt.fire("card", code=next(stream))
        return
    button = bot_move(rt.model, policy)
    assert button is not None, rt.model.state
    rt.fire(button)


def reference_rounds(cfg: GameConfig, bets: dict[str, int], cards: list[str],
                     seats: int = 4) -> list[dict]:
    """The rounds the rules engine's reference dealer deals from `cards` (basic strategy, the
    same `bets` on every seat), as `shoectl simulate --json` records, up to the voided one."""
    stream = iter(Card.parse(c) for c in cards)
    out: list[dict] = []
    meter = new_meter(cfg.progressive)
    while True:
        if cfg.table.game is Game.BACCARAT:
            result = dealer.play_baccarat_round(
                cfg.baccarat, cfg.paytables.dragon_bonus,
                [BaccaratSeat(s, bets) for s in range(1, seats + 1)], stream)
        else:
            side = {k: v for k, v in bets.items() if k != "main"}
            result = dealer.play_blackjack_round(
                bj.BlackjackTable.from_config(cfg),
                [bj.SeatBets(s, bets["main"], side) for s in range(1, seats + 1)],
                BasicStrategyPolicy(), stream, meter)
        if isinstance(result, dealer.VoidedRound):
            return out
        if getattr(result, "meter", None) is not None:
            meter = result.meter
        out.append(json.loads(json.dumps(result.as_record(len(out) + 1))))
