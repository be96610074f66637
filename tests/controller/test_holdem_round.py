"""Texas Hold'em Bonus round: the camera's cards by area, keying, holds, settlement."""

from __future__ import annotations

import pytest

from controller.procedure.holdem import Area, HoldemRound, HoldemStage, NotRead
from controller.rules.cards import Card, parse_cards
from controller.rules.errors import RulesError
from controller.rules.holdem import HoldemNets


def read(game: HoldemRound, area: Area, codes: str, seat: int | None = None) -> None:
    for card in parse_cards(codes):
        assert game.seen(area, card, confirmed=True, seat=seat) is None


def to_showdown(game: HoldemRound, board: str = "QS JH TC 4D 7S",
                dealer: str = "2S 3H") -> None:
    game.dealt()
    for seat in list(game.pending_decisions):
        game.decide(seat, bet=True)
    read(game, Area.FLOP, board[:8])
    for seat in list(game.pending_decisions):
        game.decide(seat, bet=True)
    read(game, Area.TURN, board[9:11])
    for seat in list(game.pending_decisions):
        game.decide(seat, bet=False)
    read(game, Area.RIVER, board[12:14])
    read(game, Area.DEALER, dealer)


def test_a_full_round_settles_each_seat_from_the_dealers_right() -> None:
    game = HoldemRound.start({1: (1000, 500), 3: (1000, 0)})
    to_showdown(game)
    assert game.stage is HoldemStage.SHOWDOWN
    assert game.showdown_seat == 3
    read(game, Area.SEAT, "8C 9D", seat=3)           # 8 to queen: straight, ante paid
    assert game.seats[3].nets == HoldemNets(1000, 0, 1000, 1000, 0)
    read(game, Area.SEAT, "AC AD", seat=1)            # aces: bonus 30:1, loses to nothing
    assert game.seats[1].nets == HoldemNets(0, 15_000, 1000, 1000, 0)
    assert game.stage is HoldemStage.COMPLETE


def test_a_fold_loses_ante_and_bonus_and_is_never_read() -> None:
    game = HoldemRound.start({1: (1000, 500), 2: (1000, 0)})
    game.dealt()
    game.decide(1, bet=False)
    game.decide(2, bet=True)
    assert game.seats[1].nets == HoldemNets(-1000, -500, 0, 0, 0)
    read(game, Area.FLOP, "QS JH TC")
    assert game.pending_decisions == [2]


def test_everyone_folds_ends_the_round() -> None:
    game = HoldemRound.start({4: (500, 0)})
    game.dealt()
    game.decide(4, bet=False)
    assert game.stage is HoldemStage.COMPLETE


@pytest.mark.parametrize(("area", "seat"), [(Area.DEALER, None), (Area.SEAT, 1),
                                            (Area.TURN, None)])
def test_cards_out_of_their_time_are_refused_unread(area: Area, seat: int | None) -> None:
    game = HoldemRound.start({1: (1000, 0)})
    game.dealt()
    game.decide(1, bet=True)
    refused = game.seen(area, Card.parse("AS"), confirmed=True, seat=seat)
    assert isinstance(refused, NotRead)
    assert "not read" in refused.reason
    assert game.seen_cards() == []


def test_showdown_out_of_order_is_refused() -> None:
    game = HoldemRound.start({1: (1000, 0), 2: (1000, 0)})
    to_showdown(game)
    refused = game.seen(Area.SEAT, Card.parse("AS"), confirmed=True, seat=1)
    assert isinstance(refused, NotRead)
    assert "before seat 2's" in refused.reason


def test_an_unconfirmed_card_is_asked_for_then_confirmed_or_keyed() -> None:
    game = HoldemRound.start({1: (1000, 0)})
    game.dealt()
    game.decide(1, bet=True)
    assert game.seen(Area.FLOP, Card.parse("QS"), confirmed=False) is None
    assert game.asked is not None
    assert game.asked.guess == Card.parse("QS")
    assert isinstance(game.seen(Area.FLOP, Card.parse("JH"), confirmed=True), NotRead)
    game.confirm()
    assert game.seen(Area.FLOP, None, confirmed=False) is None
    with pytest.raises(RulesError, match="key the card"):
        game.confirm()
    with pytest.raises(RulesError, match="not a card code"):
        game.key("ZZ")
    game.key("jh")
    assert game.board == list(parse_cards("QS JH"))
    assert game.keyed == list(parse_cards("QS JH"))
    assert game.asked is None


def test_a_card_seen_twice_holds_the_round_until_the_key() -> None:
    game = HoldemRound.start({1: (1000, 0)})
    game.dealt()
    game.decide(1, bet=True)
    read(game, Area.FLOP, "QS JH")
    game.seen(Area.FLOP, Card.parse("QS"), confirmed=True)
    assert game.held is not None
    assert "QS seen twice" in game.held
    assert isinstance(game.seen(Area.FLOP, Card.parse("TC"), confirmed=True), NotRead)
    with pytest.raises(RulesError, match="supervisor's key"):
        game.decide(1, bet=True)
    game.clear()
    read(game, Area.FLOP, "TC")
    assert game.board == list(parse_cards("QS JH TC"))
    assert game.stage is HoldemStage.TURN_BET


def test_a_tie_pushes_all_but_the_bonus() -> None:
    game = HoldemRound.start({1: (1000, 500)})
    to_showdown(game, board="AS KS QS JS TS", dealer="2C 3D")
    read(game, Area.SEAT, "4C 5D", seat=1)
    assert game.seats[1].nets == HoldemNets(0, -500, 0, 0, 0)


def test_decisions_only_when_due() -> None:
    game = HoldemRound.start({1: (1000, 0)})
    with pytest.raises(RulesError, match="waits for deal"):
        game.decide(1, bet=True)
    game.dealt()
    with pytest.raises(RulesError, match="seat 2 has no decision"):
        game.decide(2, bet=True)


def test_the_dealers_cards_reach_no_public_view_before_they_are_exposed() -> None:
    game = HoldemRound.start({1: (1000, 0)})
    game.dealt()
    game.decide(1, bet=True)
    hole = Card.parse("AS")
    assert isinstance(game.seen(Area.DEALER, hole, confirmed=True), NotRead)
    read(game, Area.FLOP, "QS JH TC")
    assert "AS" not in repr(game)
    assert "AS" not in str(game.public())
    assert game.public()["dealer"] == []
    game.decide(1, bet=False)
    read(game, Area.TURN, "4D")
    game.decide(1, bet=False)
    read(game, Area.RIVER, "7S")
    read(game, Area.DEALER, "AS 3H")
    assert game.public()["dealer"] == ["AS", "3H"]


def test_the_console_prompt_names_the_next_step_and_the_asked_card() -> None:
    game = HoldemRound.start({1: (1000, 0), 2: (1000, 0)})
    assert game.prompt.startswith("deal two cards")
    game.dealt()
    assert game.prompt == "bet or fold: seat 1, 2"
    game.decide(1, bet=True)
    game.decide(2, bet=True)
    game.seen(Area.FLOP, Card.parse("QS"), confirmed=False)
    assert game.prompt == "confirm or key the flop card (camera: QS?)"
    assert game.public()["asked"] == {"area": "flop", "seat": None, "guess": "QS"}
