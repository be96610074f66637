"""The real `shoectl simulate --shoe-file ... --strategy stand --json` against the oracle.

A handful of stacked shoes only: each run starts the whole controller on emulated devices.
Also the shoe-file semantics (decision 106 "Shoe"): exactly the listed cards in order, no
burn, no cut card; the round the shoe cannot finish is void and not printed, and the run ends.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from controller.rules.cards import shoe

from . import compare
from .dealer import Seat, Table, play_baccarat_shoe, play_blackjack_shoe
from .shoes import PALETTES
from .simulate_runner import run_simulate

ALL_SIDE_BETS = {"perfect-pairs": 100, "lucky-ladies": 100, "match-the-dealer": 100,
                 "blazing7s": 500, "axman": 100}
METER = (1_234_567, 250_003, 37)


def themed_shoe(seed: int, decks: int, size: int, *, spanish: bool = False) -> list[str]:
    """A reproducible stacked shoe a `decks`-deck shoe could hold, three cards in four themed."""
    rng = random.Random(seed)
    left = Counter(str(card) for card in shoe(decks, spanish=spanish))
    theme = PALETTES[seed % len(PALETTES)]
    cards: list[str] = []
    while len(cards) < size:
        card = rng.choice(theme if rng.random() < 0.75 else rng.choice(PALETTES))
        if not left[card]:
            card = rng.choice(sorted(c for c, n in left.items() if n))
        left[card] -= 1
        cards.append(card)
    return cards


def oracle_blackjack(game: str, decks: int, seats: int, bets: dict[str, int],
                     cards: list[str]) -> list[dict[str, Any]]:
    side = {name: cents for name, cents in bets.items() if name != "main"}
    table = Table(game, decks, False, *METER)
    return play_blackjack_shoe(table, [Seat(n, bets["main"], side) for n in range(1, seats + 1)],
                               cards)


def dealing_order(record: dict[str, Any]) -> list[str]:
    """A blackjack record's cards in the order the shoe dealt them (stand policy)."""
    hands = [seat["hands"][0]["cards"] for seat in record["seats"]]
    up, hole, *draws = record["dealer"]
    return [*(h[0] for h in hands), up, *(h[1] for h in hands), hole, *draws]


def coup_order(record: dict[str, Any]) -> list[str]:
    """A baccarat record's cards in dealing order: P B P B, then Player's, Banker's third."""
    player, banker = record["player"], record["banker"]
    return [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]


BLACKJACK_RUNS = [
    # (game, decks, seats, bets, shoe seed, shoe size)
    ("blackjack", 6, 7, {"main": 1001, **ALL_SIDE_BETS}, 1, 90),
    ("blackjack", 8, 3, {"main": 555, **ALL_SIDE_BETS}, 2, 70),
    ("blackjack", 2, 5, {"main": 1000, "perfect-pairs": 100, "match-the-dealer": 2500}, 3, 60),
    ("spanish21", 8, 4, {"main": 1001, "match-the-dealer": 100}, 4, 60),
]


@pytest.mark.parametrize(("game", "decks", "seats", "bets", "seed", "size"), BLACKJACK_RUNS)
def test_simulate_blackjack_family_matches_the_oracle(
        tmp_path: Path, game: str, decks: int, seats: int, bets: dict[str, int], seed: int,
        size: int) -> None:
    cards = themed_shoe(seed, decks, size, spanish=game == "spanish21")
    run = run_simulate(tmp_path, game, cards, seats=seats, bets=bets, decks=decks, meter=METER)
    assert run.returncode == 0, run.stderr
    expected = oracle_blackjack(game, decks, seats, bets, cards)
    assert len(expected) >= 3
    assert run.records == expected
    # Exactly the listed cards, in order: no burn, no cut card.
    dealt = [card for record in run.records for card in dealing_order(record)]
    assert dealt == cards[:len(dealt)]


def test_simulate_baccarat_matches_the_oracle(tmp_path: Path) -> None:
    bets = {"banker": 1001, "player": 500, "tie": 100, "dragon-banker": 100,
            "dragon-player": 1999}
    cards = themed_shoe(5, 8, 80)
    run = run_simulate(tmp_path, "baccarat", cards, seats=3, bets=bets)
    assert run.returncode == 0, run.stderr
    expected = play_baccarat_shoe(dict.fromkeys((1, 2, 3), bets), cards)
    assert len(expected) >= 3
    assert run.records == expected
    dealt = [card for record in run.records for card in coup_order(record)]
    assert dealt == cards[:len(dealt)]


def test_a_whole_shoe_deals_past_the_cut_card_position(tmp_path: Path) -> None:
    # No cut card in a shoe file: a whole 2-deck shoe is dealt to its last complete round,
    # well past the 75% a shuffled shoe would stop at.
    cards = themed_shoe(6, 2, 104)
    bets = {"main": 1000}
    run = run_simulate(tmp_path, "blackjack", cards, seats=2, bets=bets, decks=2, meter=METER)
    assert run.returncode == 0, run.stderr
    assert run.records == oracle_blackjack("blackjack", 2, 2, bets, cards)
    dealt = sum(len(dealing_order(record)) for record in run.records)
    assert dealt > 104 * 3 // 4
    assert 104 - dealt < 10  # what is left cannot make a round of two seats


def test_the_round_that_runs_out_is_void_and_the_run_ends(tmp_path: Path) -> None:
    # Round 1: seat 1 TS 9H v dealer 7C TD (17). Round 2 needs a dealer draw that is missing.
    cards = ["TS", "7C", "9H", "TD", "5S", "6C", "9D", "QH"]
    run = run_simulate(tmp_path, "blackjack", cards, seats=1, bets={"main": 1000}, decks=6)
    assert run.returncode == 0, run.stderr
    assert [r["round"] for r in run.records] == [1]
    assert run.records[0]["dealer"] == ["7C", "TD"]
    assert run.records[0]["seats"][0]["hands"] == [{"cards": ["TS", "9H"], "net": 1000}]


def test_a_round_completed_by_the_last_card_is_reported(tmp_path: Path) -> None:
    # Seat 1 TS 9H stands v dealer 7C TD: the hole card is the shoe's last card.
    cards = ["TS", "7C", "9H", "TD"]
    run = run_simulate(tmp_path, "blackjack", cards, seats=1, bets={"main": 1000}, decks=6)
    assert run.returncode == 0, run.stderr
    assert len(run.records) == 1
    assert run.records[0]["seats"][0]["hands"] == [{"cards": ["TS", "9H"], "net": 1000}]


def test_the_compare_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "shoe.txt"
    path.write_text("\n".join(themed_shoe(7, 6, 40)) + "\n", encoding="utf-8")
    common = ["--game", "blackjack", "--shoe-file", str(path), "--seats", "2", "--decks", "6",
              "--bets", "main=1000,axman=100,blazing7s=500"]
    assert compare.main([*common, "--oracle-only"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert printed
    assert [r["round"] for r in printed] == list(range(1, len(printed) + 1))
    assert compare.main(common) == 0
    assert f"identical: {len(printed)} rounds" in capsys.readouterr().out
