"""Midi Baccarat (RULES.md "Midi Baccarat", seed 000, R19: 631a.11 Table 1)."""

import pytest

from controller.rules.baccarat import (
    BaccaratBet,
    BaccaratSeat,
    Coup,
    DragonResult,
    Outcome,
    Side,
    baccarat_total,
    banker_draws,
    check_baccarat_bets,
    deal_card,
    dragon_net,
    dragon_result,
    main_net,
    next_side,
    player_draws,
    settle_baccarat,
)
from controller.rules.cards import Card, parse_cards
from controller.rules.errors import RulesError
from controller.rules.options import BaccaratRules
from controller.rules.paytables import DragonBonusPays

RULES = BaccaratRules()
DRAGON = DragonBonusPays()
# A card of each baccarat value 0-9 for the Player's third card.
THIRD = {0: "KS", 1: "AS", 2: "2S", 3: "3S", 4: "4S", 5: "5S", 6: "6S", 7: "7S", 8: "8S", 9: "9S"}

# RULES.md:101-103 / R19 Table 1: Banker total (rows 0-7) x Player third card (0-9).
# D draw, S stand. Rows 0-2 always draw, 7 always stands.
TABLE_1 = {
    0: "DDDDDDDDDD",
    1: "DDDDDDDDDD",
    2: "DDDDDDDDDD",
    3: "DDDDDDDDSD",
    4: "SSDDDDDDSS",
    5: "SSSSDDDDSS",
    6: "SSSSSSDDSS",
    7: "SSSSSSSSSS",
}
CELLS = [(banker, third) for banker in TABLE_1 for third in range(10)]


@pytest.mark.parametrize(("banker", "third"), CELLS, ids=[f"B{b}-P3={t}" for b, t in CELLS])
def test_every_cell_of_the_drawing_table(banker: int, third: int) -> None:
    expected = TABLE_1[banker][third] == "D"
    assert banker_draws(banker, Card.parse(THIRD[third])) is expected


# RULES.md:101 "If the Player stood, Banker draws on 0-5."
@pytest.mark.parametrize("banker", range(8))
def test_banker_when_player_stood(banker: int) -> None:
    assert banker_draws(banker, None) is (banker <= 5)


# RULES.md:100 Player draws on 0-5, stands on 6-7.
@pytest.mark.parametrize("total", range(8))
def test_player_draw_rule(total: int) -> None:
    assert player_draws(total) is (total <= 5)


# RULES.md:99 values: A 1, 2-9 face, T J Q K 0; total mod 10 (seed: "9 5 4, Jack Ace 1").
@pytest.mark.parametrize(("cards", "total"), [
    ("9S 5H", 4), ("JS AH", 1), ("KS QH", 0), ("TS 9D", 9), ("7S 8H 9D", 4)])
def test_totals(cards: str, total: int) -> None:
    assert baccarat_total(parse_cards(cards)) == total


def play(codes: str) -> Coup:
    coup = Coup()
    for card in parse_cards(codes):
        coup = deal_card(coup, card)
    assert coup.complete
    return coup


# RULES.md:99-103 dealing order P B P B; naturals end the coup; at most one more card each.
@pytest.mark.parametrize(("shoe", "player", "banker", "outcome"), [
    ("9S KH 9D 8C", "9S 9D", "KH 8C", Outcome.TIE),                # naturals 8 / 8
    ("4S 5H 5D 3C", "4S 5D", "5H 3C", Outcome.PLAYER),             # natural 9 beats 8
    ("2S 3H 4D 3C", "2S 4D", "3H 3C", Outcome.TIE),                # P 6 stands, B 6 stands
    ("4S 2H 3D 3C 9S", "4S 3D", "2H 3C 9S", Outcome.PLAYER),       # P 7 stands, B 5 draws
    ("AS 3H 2D 3C 8S", "AS 2D 8S", "3H 3C", Outcome.BANKER),       # B 6, P3=8: stands
    ("AS 3H 2D KC 8S", "AS 2D 8S", "3H KC", Outcome.BANKER),       # B 3, P3=8: stands
    ("AS 3H 2D KC 9S 5D", "AS 2D 9S", "3H KC 5D", Outcome.BANKER),  # B 3, P3=9: draws
    ("KS 6H KD QC 4S 2D", "KS KD 4S", "6H QC", Outcome.BANKER),    # B 6, P3=4: stands
    ("KS 6H KD QC 6S 2D", "KS KD 6S", "6H QC 2D", Outcome.BANKER),  # B 6, P3=6: draws
])
def test_whole_coups(shoe: str, player: str, banker: str, outcome: Outcome) -> None:
    coup = Coup()
    for card in parse_cards(shoe):
        if coup.complete:
            break
        coup = deal_card(coup, card)
    assert coup.complete
    assert coup.player == parse_cards(player)
    assert coup.banker == parse_cards(banker)
    assert coup.outcome is outcome
    assert next_side(coup) is None


def test_no_card_after_the_coup_is_complete() -> None:
    with pytest.raises(RulesError):
        deal_card(play("9S KH 9D 8C"), Card.parse("2S"))


# RULES.md:103-105: Banker/Player 1:1, Banker commission 5% rounded up, Tie 8:1, push on tie.
@pytest.mark.parametrize(("bet", "amount", "coup", "net"), [
    (BaccaratBet.BANKER, 2500, "KS 9H KD QC", 2375),     # banker 9 wins: 25.00 - 1.25
    (BaccaratBet.BANKER, 1010, "KS 9H KD QC", 959),      # 10.10: commission 0.505 -> 0.51
    (BaccaratBet.BANKER, 1, "KS 9H KD QC", 0),           # 0.01: commission rounds up to 0.01
    (BaccaratBet.PLAYER, 2500, "KS 9H KD QC", -2500),
    (BaccaratBet.PLAYER, 2500, "9H KS QC KD", 2500),
    (BaccaratBet.BANKER, 2500, "9H KS QC KD", -2500),
    (BaccaratBet.TIE, 500, "4S 5H 4D 3C", 4000),
    (BaccaratBet.BANKER, 500, "4S 5H 4D 3C", 0),
    (BaccaratBet.PLAYER, 500, "4S 5H 4D 3C", 0),
    (BaccaratBet.TIE, 500, "KS 9H KD QC", -500),
])
def test_main_wagers(bet: BaccaratBet, amount: int, coup: str, net: int) -> None:
    assert main_net(play(coup), bet, amount, RULES) == net


# RULES.md:105-107 Dragon Bonus: natural win 1:1, natural tie push, non-natural margin 9..4.
@pytest.mark.parametrize(("coup", "side", "result", "net_on_5"), [
    ("KS 9H KD QC", Side.BANKER, DragonResult.NATURAL_WIN, 500),
    ("KS 9H KD QC", Side.PLAYER, DragonResult.LOSS, -500),
    ("4S 5H 4D 3C", Side.PLAYER, DragonResult.NATURAL_TIE, 0),
    ("4S 5H 4D 3C", Side.BANKER, DragonResult.NATURAL_TIE, 0),
    # P: A+2=3 draws 5 -> 8 (three cards, not natural); B: K+K=0 draws (P3=5, B 0) 0 -> 0.
    ("AS KH 2D KC 5S QD", Side.PLAYER, DragonResult.MARGIN_WIN, 5000),   # 8 vs 0: 10:1
    ("AS KH 2D KC 5S QD", Side.BANKER, DragonResult.LOSS, -500),
])
def test_dragon_bonus(coup: str, side: Side, result: DragonResult, net_on_5: int) -> None:
    played = play(coup)
    assert dragon_result(played, side)[0] is result
    assert dragon_net(played, side, 500, DRAGON) == net_on_5


def test_dragon_margin_is_measured() -> None:
    assert dragon_result(play("AS KH 2D KC 5S QD"), Side.PLAYER) == (DragonResult.MARGIN_WIN, 8)


@pytest.mark.parametrize(("margin", "odds"), [
    (9, 30), (8, 10), (7, 6), (6, 4), (5, 2), (4, 1), (3, None), (1, None), (0, None)])
def test_dragon_margin_table(margin: int, odds: int | None) -> None:
    found = DRAGON.margin_odds(margin)
    assert (found.win if found else None) == odds


def test_non_natural_tie_loses_dragon() -> None:
    # P: 2+3=5 draws 2 -> 7; B: 3+4=7 stands -> tie 7/7, non-natural: Dragon loses.
    coup = play("2S 3H 3D 4C 2C")
    assert coup.outcome is Outcome.TIE
    assert dragon_net(coup, Side.PLAYER, 500, DRAGON) == -500


def test_settle_baccarat_and_bet_checks() -> None:
    coup = play("KS 9H KD QC")
    seats = [BaccaratSeat(1, {"banker": 2500, "dragon-banker": 500}),
             BaccaratSeat(2, {"player": 1000, "tie": 500, "dragon-player": 100})]
    assert settle_baccarat(coup, seats, RULES, DRAGON) == {
        1: {"banker": 2375, "dragon-banker": 500},
        2: {"player": -1000, "tie": -500, "dragon-player": -100}}
    with pytest.raises(RulesError, match="Dragon Bonus needs"):
        check_baccarat_bets(BaccaratSeat(3, {"dragon-player": 500}))
    with pytest.raises(RulesError, match="no baccarat wager"):
        check_baccarat_bets(BaccaratSeat(3, {"pair": 500}))
    with pytest.raises(RulesError, match="not complete"):
        settle_baccarat(Coup(), seats, RULES, DRAGON)
