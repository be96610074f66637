"""Run the product's reference dealer (`controller.rules.dealer`) over a whole stacked shoe."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from controller.rules.baccarat import BaccaratSeat
from controller.rules.blackjack import BlackjackTable, SeatBets
from controller.rules.cards import Card
from controller.rules.dealer import VoidedRound, play_baccarat_round, play_blackjack_round
from controller.rules.hands import Game
from controller.rules.meter import ProgressiveSettings, new_meter
from controller.rules.options import GameConfig
from controller.rules.strategy import StandPolicy

from .shoes import BlackjackCase


def reference_blackjack_shoe(case: BlackjackCase) -> list[dict[str, Any]]:
    """Every complete round the product's reference dealer deals from `case.shoe`."""
    base = GameConfig()
    game = Game(case.game)
    rules = replace(base.rules_for(game), dealer_hits_soft_17=case.h17)
    config = replace(base, table=replace(base.table, game=game, decks=case.decks),
                     blackjack=rules if game is Game.BLACKJACK else base.blackjack,
                     spanish21=rules if game is Game.SPANISH21 else base.spanish21)
    table = BlackjackTable.from_config(config)
    meter = new_meter(ProgressiveSettings(reset=case.reset, increment=case.increment),
                      case.meter)
    bets = [SeatBets(s.seat, s.main, dict(s.side)) for s in case.seats]
    cards = iter([Card.parse(c) for c in case.shoe])
    records: list[dict[str, Any]] = []
    while True:
        result = play_blackjack_round(table, bets, StandPolicy(), cards, meter)
        if isinstance(result, VoidedRound):
            return records
        assert result.meter is not None
        meter = result.meter
        records.append(result.as_record(len(records) + 1))


def reference_baccarat_shoe(seats: dict[int, dict[str, int]],
                            shoe: list[str]) -> list[dict[str, Any]]:
    """Every complete coup the product's reference dealer deals from `shoe`."""
    config = GameConfig()
    cards = iter([Card.parse(c) for c in shoe])
    players = [BaccaratSeat(n, bets) for n, bets in seats.items()]
    records: list[dict[str, Any]] = []
    while True:
        result = play_baccarat_round(config.baccarat, config.paytables.dragon_bonus, players,
                                     cards)
        if isinstance(result, VoidedRound):
            return records
        records.append(result.as_record(len(records) + 1))
