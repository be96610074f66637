"""`shoectl simulate --game holdem`: dealt on the emulated rig, every card read by the camera."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from controller.cli import simulate_command
from controller.odds.holdem import holdem_bonus_line
from controller.odds.holdem_ante import strategy_bets
from controller.odds.poker_rank import best_hand
from controller.procedure.holdem import HoldemStage
from controller.rules.cards import Card
from controller.rules.holdem import (
    DEALER_SPOT,
    HoldemNets,
    HoldemWagers,
    settle_fold,
    settle_showdown,
)
from controller.rules.paytables import HoldemBonusPays
from controller.sim.games.holdem import HoldemSimulation, wrong_cards


def _expected(seat: dict, board: list[Card], dealer: list[Card]) -> HoldemNets:
    """The seat's nets recomputed from the printed cards by the rules and the strategy."""
    if seat["folded"]:
        return settle_fold(HoldemWagers(1000, 500))
    hole = [Card.parse(c) for c in seat["cards"]]
    wagers = HoldemWagers(1000, 500, 1000, 1000 * strategy_bets(hole, board[:3]),
                          1000 * strategy_bets(hole, board[:4]))
    line = holdem_bonus_line((hole[0], hole[1]), (dealer[0], dealer[1]))
    odds = None if line is None else HoldemBonusPays().odds(line)
    return settle_showdown(wagers, best_hand([*hole, *board]), best_hand([*dealer, *board]), odds)


def test_every_round_is_read_by_the_camera_and_settled_by_the_rules(capsys) -> None:
    assert simulate_command.main(["--game", "holdem", "--seats", "2", "--rounds", "2",
                                  "--seed", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    rounds = [json.loads(line) for line in out.splitlines()]
    assert [r["round"] for r in rounds] == [1, 2]
    exposed = 0
    for record in rounds:
        assert set(record) == {"round", "board", "dealer", "seats"}
        assert [s["seat"] for s in record["seats"]] == [1, 2]
        cards = [*record["board"], *record["dealer"],
                 *(c for s in record["seats"] for c in s["cards"])]
        assert len(cards) == len(set(cards))  # one deck
        board = [Card.parse(c) for c in record["board"]]
        dealer = [Card.parse(c) for c in record["dealer"]]
        for seat in record["seats"]:
            nets = _expected(seat, board, dealer)
            assert seat["nets"] == {"ante": nets.ante, "bonus": nets.bonus, "flop": nets.flop,
                                    "turn": nets.turn, "river": nets.river}
            assert seat["net"] == nets.total
        exposed += len(cards)
    # Every card in the output was read by the camera (none keyed), and none wrong.
    assert f"cards read by the camera {exposed}  keyed 0  wrong 0  faults 0" in err


def test_six_seats_of_small_cards_deal_on_with_no_card_wrong(capsys) -> None:
    # Seed 3 holds at round 8 ("a card seen twice") when one frame's reading is taken.
    assert simulate_command.main(["--game", "holdem", "--seats", "6", "--rounds", "8",
                                  "--seed", "3", "--json"]) == 0
    err = capsys.readouterr().err
    assert "rounds 8 " in err
    assert "wrong 0  faults 0" in err


def test_a_card_taken_that_was_not_dealt_there_is_wrong() -> None:
    dealt = [Card.parse(c) for c in ("AS", "KD", "2C", "9H", "TS")]
    hole = {1: [Card.parse("3D"), Card.parse("4D")], DEALER_SPOT: [Card.parse("5C"),
                                                                    Card.parse("6C")]}
    record = {"board": ["2C", "AS", "KD", "9H", "TS"], "dealer": ["6C", "5C"],
              "seats": [{"seat": 1, "cards": ["4D", "3D"]}]}
    assert wrong_cards(record, dealt, hole) == 0  # read in another order: not wrong
    record["board"] = ["AS", "KD", "9H", "2C", "TS"]  # the turn read as a flop card
    assert wrong_cards(record, dealt, hole) == 2
    record["board"], record["seats"][0]["cards"] = ["AS", "KD", "2C", "9H", "TS"], ["4D", "7D"]
    assert wrong_cards(record, dealt, hole) == 1
    record["seats"][0]["cards"], record["dealer"] = [], []  # folded; dealer not exposed
    assert wrong_cards(record, dealt, hole) == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["--in-process"], "--in-process: the hold'em table's cards are read by the emulated"),
    (["--bets", "main=1000"], "--bets: the hold'em table takes ante=CENTS"),
    (["--bets", "ante=1"], "--bets: ante=1 is outside the table limits"),
    (["--decks", "2"], "--decks: not an option of the hold'em table"),
    (["--seats", "0"], "--seats: 1..7, got 0"),
])
def test_an_option_the_table_cannot_take_is_one_line(argv: list[str], message: str,
                                                     capsys) -> None:
    assert simulate_command.main(["--game", "holdem", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"shoectl simulate: {message}")
    assert err.count("\n") == 1


def test_the_dealer_keys_the_card_not_read_yet_whatever_the_order_read() -> None:
    """The camera read a flop's first and third cards: the console asks for the second."""
    flop = [Card.parse(c) for c in ("3H", "9C", "8D")]
    keyed: list[dict[str, object]] = []
    game = SimpleNamespace(stage=HoldemStage.FLOP, board=[flop[0], flop[2]], seats={},
                           dealer=[])
    sim = SimpleNamespace(model=SimpleNamespace(game=game), keyed=0, hole={},
                          board=[*flop, Card.parse("2S"), Card.parse("KD")],
                          _command=keyed.append)
    HoldemSimulation._key(sim, "flop", None)  # type: ignore[arg-type]
    assert keyed == [{"command": "key_card", "card": "9C"}]
    game.board, game.stage = [*flop], HoldemStage.TURN
    HoldemSimulation._key(sim, "turn", None)  # type: ignore[arg-type]
    assert keyed[-1] == {"command": "key_card", "card": "2S"}
    game.seats = {2: SimpleNamespace(cards=[Card.parse("QS")])}
    sim.hole = {2: [Card.parse("JH"), Card.parse("QS")]}
    HoldemSimulation._key(sim, "seat", 2)  # type: ignore[arg-type]
    assert keyed[-1] == {"command": "key_card", "card": "JH"}
