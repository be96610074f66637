"""The community game's main-wager house edge under the simulator's bots, by simulation.

One station, a main wager on each of the three spots, basic strategy as `shoectl simulate
--game community --strategy basic` plays it (stand hand by hand until a hit, split or double
ends the round of decisions; insurance declined), on the pure round
(`controller.procedure.community_round`) with a seeded six-deck shoe reshuffled below 60
cards. Prints the edge per unit wagered on a spot and its 95% interval (normal, from the
per-spot nets' variance).

    .venv/bin/python bench/community_edge.py --rounds 1000000 --seed 1
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

# bench/controller.py would shadow the controller package: import from the repository root.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from controller.procedure.community_round import SPOTS, CommunityRound, Stage  # noqa: E402
from controller.rules import blackjack as bj  # noqa: E402
from controller.rules.cards import shoe  # noqa: E402
from controller.rules.hands import Game  # noqa: E402
from controller.rules.strategy import basic_strategy  # noqa: E402
from controller.service.tableconfig import load_default_table  # noqa: E402

WAGER = 1000


def play(table: bj.BlackjackTable, cards: list[str]) -> list[int]:
    """One round: the nets of the three spots (cents)."""
    game = CommunityRound.start(table, {1: dict.fromkeys(SPOTS, WAGER)})
    while game.stage is not Stage.COMPLETE:
        if game.stage is Stage.INSURANCE:
            for _, spot in game.insurance_due():
                game.apply(["no_insurance", 1, spot])
        elif game.card_due():
            game.apply(["card", cards.pop()])
        else:
            for key in game.spot_keys(1):
                legal = game.legal(*key)
                if not legal:
                    continue
                spot = game.spots[key]
                turn = bj.current_hand(spot)
                assert turn is not None
                assert spot.up_card is not None
                hand = spot.seats[0].hands[turn[1]]
                action = basic_strategy(hand.cards, spot.up_card, legal, spot.rules).action
                game.apply(["act", 1, key[1], str(action)])
                if action is not bj.Action.STAND:
                    break
    return [r.net for r in game.settle().values()]


def main() -> None:
    """Run and print the estimate."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    config = load_default_table().game
    config = replace(config, table=replace(config.table, game=Game.COMMUNITY, side_bets=()))
    table = bj.BlackjackTable.from_config(config)
    rng = random.Random(args.seed)
    cards: list[str] = []
    total = squares = spots = 0
    started = time.monotonic()
    for _ in range(args.rounds):
        if len(cards) < 60:
            cards = [str(c) for c in shoe(table.decks)]
            rng.shuffle(cards)
        for net in play(table, cards):
            unit = net / WAGER
            total += unit
            squares += unit * unit
            spots += 1
    mean = total / spots
    sd = math.sqrt(squares / spots - mean * mean)
    half = 1.96 * sd / math.sqrt(spots)
    print(f"rounds {args.rounds}  spot wagers {spots}  decks {table.decks}  "
          f"seconds {time.monotonic() - started:.0f}")
    print(f"house edge {-mean * 100:.3f}% of the main wager  "
          f"95% interval {(-mean - half) * 100:.3f}% .. {(-mean + half) * 100:.3f}%  "
          f"(sd per spot {sd:.3f})")
    print("note: the three spots of a round share their dealer hand; the interval treats "
          "spots as independent, so it is somewhat too narrow")


if __name__ == "__main__":
    main()
