"""The community game's main-wager house edge under the simulator's bots, by simulation.

One station, a main wager on each of the three spots, basic strategy as `shoectl simulate
--game community --strategy basic` plays it (stand hand by hand until a hit, split or double
ends the round of decisions; insurance declined), on the pure round
(`controller.procedure.community.round`) with a seeded six-deck shoe reshuffled below 60
cards. Prints the edge per unit wagered on a spot and its 95% interval (normal, from the
variance of each round's net over its three spots: the spots of a round share the dealer's
hand, so the round, not the spot, is the independent draw).

    .venv/bin/python bench/community_edge.py --rounds 1000000 --seed 1

`--json` prints one object instead, with the sums that let runs of different seeds be pooled:
`{"rounds", "spots", "seed", "sum", "sum_sq", "edge", "low", "high", "seconds"}` (`sum` and
`sum_sq`: of each round's net in units of the wager; `edge`, `low`, `high`: percent).
`--pool FILE...` pools such objects (one a line) into one estimate.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

# bench/controller.py would shadow the controller package: import from the repository root.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from controller.procedure.community import SPOTS, CommunityRound, Stage  # noqa: E402
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
    parser.add_argument("--json", action="store_true", help="print the sums as one object")
    parser.add_argument("--pool", nargs="+", metavar="FILE", help="pool --json lines")
    args = parser.parse_args()
    if args.pool:
        pool(args.pool)
        return
    config = load_default_table().game
    config = replace(config, table=replace(config.table, game=Game.COMMUNITY, side_bets=()))
    table = bj.BlackjackTable.from_config(config)
    rng = random.Random(args.seed)
    cards: list[str] = []
    total = squares = 0.0
    spots = 0
    started = time.monotonic()
    for _ in range(args.rounds):
        if len(cards) < 60:
            cards = [str(c) for c in shoe(table.decks)]
            rng.shuffle(cards)
        nets = play(table, cards)
        unit = sum(nets) / WAGER
        total += unit
        squares += unit * unit
        spots += len(nets)
    report({"rounds": args.rounds, "spots": spots, "seed": args.seed, "sum": total,
            "sum_sq": squares, "seconds": round(time.monotonic() - started)}, args.json)


def estimate(sums: dict[str, float]) -> dict[str, float]:
    """The edge (percent of the main wager) and its 95% interval from the round sums."""
    rounds, per_round = sums["rounds"], sums["spots"] / sums["rounds"]
    mean = sums["sum"] / rounds
    sd = math.sqrt(max(0.0, sums["sum_sq"] / rounds - mean * mean))
    half = 1.96 * sd / math.sqrt(rounds)
    return {"edge": -mean / per_round * 100, "low": (-mean - half) / per_round * 100,
            "high": (-mean + half) / per_round * 100, "sd_round": sd}


def report(sums: dict[str, float], as_json: bool) -> None:
    """Print the estimate (or, with `as_json`, the sums and the estimate as one object)."""
    found = estimate(sums)
    if as_json:
        print(json.dumps({**sums, **{k: round(v, 4) for k, v in found.items()}}))
        return
    print(f"rounds {sums['rounds']}  spot wagers {sums['spots']}  seconds {sums['seconds']}")
    print(f"house edge {found['edge']:.3f}% of the main wager  95% interval "
          f"{found['low']:.3f}% .. {found['high']:.3f}%  (sd of a round's net "
          f"{found['sd_round']:.3f} wagers)")


def pool(paths: list[str]) -> None:
    """Pool runs of different seeds (their `--json` lines) into one estimate."""
    rows = [json.loads(line) for path in paths for line in Path(path).read_text().splitlines()
            if line.startswith("{")]
    sums = {k: sum(r[k] for r in rows) for k in ("rounds", "spots", "sum", "sum_sq", "seconds")}
    print(f"pooled {len(rows)} runs (seeds {', '.join(str(r['seed']) for r in rows)})")
    report(sums, as_json=False)


if __name__ == "__main__":
    main()
