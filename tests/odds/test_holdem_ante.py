"""The ante game's recorded simulation: replayed, bounded, and refused when damaged."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from controller.odds import holdem_ante
from controller.odds.errors import OddsError
from controller.odds.holdem_ante import AnteEstimate, play_hand, recorded, simulate
from controller.odds.poker_rank import CARD_IDS
from controller.rules.cards import parse_cards

SAMPLE = 20_000


def ids(codes: str) -> list[int]:
    return [CARD_IDS[card] for card in parse_cards(codes)]


def test_the_record_holds_at_least_ten_million_hands() -> None:
    estimate, provenance = recorded()
    assert estimate.hands >= 10_000_000
    assert f"--seed {estimate.seed}" in provenance
    low, high = estimate.interval
    assert low < estimate.house_edge < high
    assert high - low < 0.005


def test_a_seeded_sample_replays_and_its_interval_holds_the_record() -> None:
    estimate, _ = recorded()
    sample = AnteEstimate(SAMPLE, estimate.seed, dict(simulate(SAMPLE, estimate.seed)))
    low, high = sample.interval
    assert low < estimate.house_edge < high
    again = simulate(SAMPLE, estimate.seed)
    assert again == Counter(sample.counts)


def test_the_sample_is_the_records_own_code_path() -> None:
    # The first hands of the recorded seed, counted by hand from `play_hand`, must be what
    # `simulate` counts: both are the bench's code.
    estimate, _ = recorded()
    rng = random.Random(estimate.seed)
    by_hand = Counter(play_hand(rng.sample(range(52), 9)) for _ in range(500))
    assert by_hand == simulate(500, estimate.seed)


@pytest.mark.parametrize(("codes", "net"), [
    ("2C 7D AS AH  KS QD 9C 4H 3S", -2),           # every hand plays: checks twice, loses 2
    ("AC 6D 2S 3H  9S 9H 4C KD 7S", 3),            # an ace on a paired board bets twice, wins
    ("4C 6D AS 3H  9S 9H 9C KD 7S", -2),           # board trips: checks twice, loses 2
    ("AC KD 2S 3H  AS KH 9C 4D 7S", 3),            # two pair bets twice, wins below a straight
    ("AC KD 2S 3H  QS JH TC 4D 7S", 4),            # straight on the flop: bets, ante paid too
    ("AC KD AS KH  QS 8H 5C 4D 2S", 0),            # same hand: every wager pushes
])
def test_single_hands_follow_the_strategy(codes: str, net: int) -> None:
    assert play_hand(ids(codes)) == net


def test_a_damaged_record_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bad = tmp_path / "holdem_ante.json"
    bad.write_text(json.dumps({"hands": 10, "seed": 1, "counts": {"1": 3},
                               "produced_by": "x"}))

    class Files:
        def joinpath(self, name: str) -> Path:
            return tmp_path / name

    monkeypatch.setattr(holdem_ante.resources, "files", lambda _package: Files())
    with pytest.raises(OddsError, match=r"holdem_ante\.json: counts add to 3, not the 10"):
        recorded()
    bad.write_text("{not json")
    with pytest.raises(OddsError, match="cannot read the recorded simulation"):
        recorded()
