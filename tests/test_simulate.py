"""The simulate JSON contract (decision 107 "Simulate JSON and money").

One validator checks every round record: what the reference dealer's `as_record` returns and
what `shoectl simulate --json` prints (the controller's output must map 1:1 onto it).
"""

import json
import random
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.rules.baccarat import BaccaratBet, BaccaratSeat
from controller.rules.blackjack import BlackjackTable, SeatBets
from controller.rules.cards import Card, shoe
from controller.rules.dealer import BlackjackRoundResult, play_baccarat_round, play_blackjack_round
from controller.rules.meter import new_meter
from controller.rules.options import GameConfig
from controller.rules.sidebets import SideBet
from controller.rules.strategy import BasicStrategyPolicy

BLACKJACK_KEYS = {"round", "dealer", "peeked", "dealer_blackjack", "seats"}
BACCARAT_KEYS = {"round", "player", "banker", "result", "seats"}


def is_card(code: object) -> bool:
    return isinstance(code, str) and str(Card.parse(code)) == code


def check_record(record: dict[str, object]) -> None:
    """Raise AssertionError unless `record` is a decision 107 round record."""
    assert isinstance(record["round"], int)
    assert record["round"] >= 1
    seats = record["seats"]
    assert isinstance(seats, list)
    assert seats
    if "dealer" in record:
        assert set(record) - {"meter"} == BLACKJACK_KEYS
        assert isinstance(record.get("meter", 0), int)
        assert all(is_card(c) for c in record["dealer"])  # type: ignore[attr-defined]
        assert isinstance(record["peeked"], bool)
        assert isinstance(record["dealer_blackjack"], bool)
        for seat in seats:
            assert set(seat) == {"seat", "hands", "side_bets"}
            assert all(set(h) == {"cards", "net"} and isinstance(h["net"], int)
                       and all(is_card(c) for c in h["cards"]) for h in seat["hands"])
            assert set(seat["side_bets"]) <= {b.value for b in SideBet}
            assert all(isinstance(v, int) for v in seat["side_bets"].values())
        return
    assert set(record) == BACCARAT_KEYS
    assert record["result"] in ("banker", "player", "tie")
    for seat in seats:
        assert set(seat) == {"seat", "bets"}
        assert set(seat["bets"]) <= {b.value for b in BaccaratBet}


def test_reference_dealer_records_follow_the_contract() -> None:
    config = GameConfig()
    deck = list(shoe(6))
    random.Random(3).shuffle(deck)
    cards = iter(deck)
    table = BlackjackTable.from_config(config)
    meter = new_meter(config.progressive)
    bets = [SeatBets(1, 1000, {"perfect-pairs": 100, "blazing7s": 500, "axman": 100}),
            SeatBets(4, 2500, {"lucky-ladies": 100, "match-the-dealer": 100})]
    for number in range(1, 30):
        result = play_blackjack_round(table, bets, BasicStrategyPolicy(), cards, meter)
        assert isinstance(result, BlackjackRoundResult)
        meter = result.meter
        record = json.loads(json.dumps(result.as_record(number)))
        check_record(record)
        assert "meter" in record
    coup = play_baccarat_round(config.baccarat, config.paytables.dragon_bonus,
                               [BaccaratSeat(2, {"tie": 100, "player": 500})], cards)
    check_record(json.loads(json.dumps(coup.as_record(1))))  # type: ignore[union-attr]


@pytest.mark.parametrize("game", ["blackjack", "spanish21", "baccarat"])
def test_shoectl_simulate_json_follows_the_contract(game: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_command.main(["--game", game, "--rounds", "3", "--seed", "5", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for number, line in enumerate(lines, start=1):
        record = json.loads(line)
        check_record(record)
        assert record["round"] == number


def test_same_seed_same_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    simulate_command.main(["--game", "blackjack", "--rounds", "2", "--seed", "9", "--json"])
    first = capsys.readouterr().out
    simulate_command.main(["--game", "blackjack", "--rounds", "2", "--seed", "9", "--json"])
    assert capsys.readouterr().out == first


def test_a_shoe_file_that_runs_out_voids_the_round_in_progress(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # decision 106 "Shoe": exactly the listed cards; the unfinished round is not reported.
    path = tmp_path / "shoe.txt"
    path.write_text("\n".join(["KS", "QH", "9D", "8C", "2S"]) + "\n")
    assert simulate_command.main(["--game", "baccarat", "--seats", "1", "--rounds", "5",
                          "--shoe-file", str(path), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    check_record(record)
    assert (record["player"], record["banker"]) == (["KS", "9D"], ["QH", "8C"])
