"""Midi Baccarat: the deal, the third-card rules (631a.11 Table 1, R19) and settlement.

Wagers: Banker, Player, Tie and the Dragon Bonus on either side.

Cards 1 and 3 go to Player, 2 and 4 to Banker. Either hand 8 or 9: no more cards. Player
draws on 0-5. If Player stood, Banker draws on 0-5; if Player drew, Banker's draw depends on
Player's third card (`banker_draws`). At most one more card to each hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.money import commission
from controller.rules.options import BaccaratRules
from controller.rules.paytables import DragonBonusPays


class Side(StrEnum):
    """The two baccarat hands."""

    PLAYER = "player"
    BANKER = "banker"


class Outcome(StrEnum):
    """Which hand won."""

    BANKER = "banker"
    PLAYER = "player"
    TIE = "tie"


class BaccaratBet(StrEnum):
    """Baccarat wagers, named as in the simulate JSON."""

    BANKER = "banker"
    PLAYER = "player"
    TIE = "tie"
    DRAGON_BANKER = "dragon-banker"
    DRAGON_PLAYER = "dragon-player"


def baccarat_total(cards: Sequence[Card]) -> int:
    """A baccarat hand's point count: `A` 1, `2`-`9` face, `T J Q K` 0, mod 10."""
    return sum(card.rank.baccarat_points for card in cards) % 10


def is_natural(cards: Sequence[Card]) -> bool:
    """Two cards totalling 8 or 9."""
    return len(cards) == 2 and baccarat_total(cards) >= 8


def player_draws(player_total: int) -> bool:
    """Player draws on 0-5 and stands on 6-7 (naturals are handled before)."""
    return player_total <= 5


# Banker total 3-6: the Player third-card values (0-9) on which Banker draws (Table 1).
BANKER_DRAWS_ON: Final[dict[int, frozenset[int]]] = {
    3: frozenset({0, 1, 2, 3, 4, 5, 6, 7, 9}),
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
}


def banker_draws(banker_total: int, player_third: Card | None) -> bool:
    """Whether Banker draws a third card.

    Args:
        banker_total: Banker's two-card total (not a natural).
        player_third: Player's third card, or None when Player stood.
    """
    if player_third is None:
        return banker_total <= 5
    if banker_total <= 2:
        return True
    if banker_total >= 7:
        return False
    return player_third.rank.baccarat_points in BANKER_DRAWS_ON[banker_total]


@dataclass(frozen=True, slots=True)
class Coup:
    """The cards of one baccarat round so far."""

    player: tuple[Card, ...] = ()
    banker: tuple[Card, ...] = ()

    @property
    def complete(self) -> bool:
        """No more cards are due."""
        return next_side(self) is None

    @property
    def outcome(self) -> Outcome:
        """The winner (only meaningful once complete)."""
        player, banker = baccarat_total(self.player), baccarat_total(self.banker)
        if player == banker:
            return Outcome.TIE
        return Outcome.PLAYER if player > banker else Outcome.BANKER


def next_side(coup: Coup) -> Side | None:
    """Which hand the next card goes to; None when the coup is complete."""
    dealt = len(coup.player) + len(coup.banker)
    if dealt < 4:
        return Side.PLAYER if dealt % 2 == 0 else Side.BANKER
    if is_natural(coup.player) or is_natural(coup.banker):
        return None
    if len(coup.player) == 2 and len(coup.banker) == 2 and player_draws(
            baccarat_total(coup.player)):
        return Side.PLAYER
    if len(coup.banker) == 2:
        third = coup.player[2] if len(coup.player) == 3 else None
        if banker_draws(baccarat_total(coup.banker), third):
            return Side.BANKER
    return None


def deal_card(coup: Coup, card: Card) -> Coup:
    """Place `card` on the hand due it.

    Raises:
        RulesError: the coup is complete.
    """
    side = next_side(coup)
    if side is None:
        raise RulesError("the coup is complete; no card is due")
    if side is Side.PLAYER:
        return Coup((*coup.player, card), coup.banker)
    return Coup(coup.player, (*coup.banker, card))


@dataclass(frozen=True, slots=True)
class BaccaratSeat:
    """A seat's baccarat wagers, cents, by `BaccaratBet` name."""

    seat: int
    bets: Mapping[str, int] = field(default_factory=dict)


def check_baccarat_bets(seat: BaccaratSeat) -> None:
    """Refuse unknown wagers, non-positive amounts and a Dragon Bonus without its main wager.

    Raises:
        RulesError: naming the seat and the wager.
    """
    for name, amount in seat.bets.items():
        if name not in [b.value for b in BaccaratBet]:
            raise RulesError(f"seat {seat.seat}: no baccarat wager named {name!r}")
        if amount <= 0:
            raise RulesError(f"seat {seat.seat}: {name} wager must be above 0, got {amount}")
    has_main = BaccaratBet.PLAYER in seat.bets or BaccaratBet.BANKER in seat.bets
    dragons = {BaccaratBet.DRAGON_PLAYER, BaccaratBet.DRAGON_BANKER} & set(seat.bets)
    if dragons and not has_main:
        raise RulesError(f"seat {seat.seat}: a Dragon Bonus needs a Player or Banker wager")


class DragonResult(StrEnum):
    """How a Dragon Bonus wager on one side is settled."""

    NATURAL_WIN = "natural_win"
    NATURAL_TIE = "natural_tie"
    MARGIN_WIN = "margin_win"
    LOSS = "loss"


def dragon_result(coup: Coup, side: Side) -> tuple[DragonResult, int]:
    """The Dragon Bonus result for `side`, and the winning margin (0 unless a margin win)."""
    mine, theirs = (coup.player, coup.banker) if side is Side.PLAYER else (coup.banker,
                                                                           coup.player)
    margin = baccarat_total(mine) - baccarat_total(theirs)
    if is_natural(mine) and margin > 0:
        return DragonResult.NATURAL_WIN, 0
    if is_natural(mine) and is_natural(theirs) and margin == 0:
        return DragonResult.NATURAL_TIE, 0
    if margin >= 4 and not is_natural(theirs):
        return DragonResult.MARGIN_WIN, margin
    return DragonResult.LOSS, 0


def dragon_net(coup: Coup, side: Side, amount: int, pays: DragonBonusPays) -> int:
    """A Dragon Bonus wager's net."""
    result, margin = dragon_result(coup, side)
    if result is DragonResult.NATURAL_WIN:
        return pays.natural_win.winnings(amount)
    if result is DragonResult.NATURAL_TIE:
        return 0
    odds = pays.margin_odds(margin) if result is DragonResult.MARGIN_WIN else None
    return odds.winnings(amount) if odds else -amount


def main_net(coup: Coup, bet: BaccaratBet, amount: int, rules: BaccaratRules) -> int:
    """The net of a Banker, Player or Tie wager (Banker wins pay the commission, rounded up)."""
    outcome = coup.outcome
    if bet is BaccaratBet.TIE:
        return rules.tie_pays.winnings(amount) if outcome is Outcome.TIE else -amount
    if outcome is Outcome.TIE:
        return 0
    if bet.value != outcome.value:
        return -amount
    if bet is BaccaratBet.BANKER:
        won = rules.banker_pays.winnings(amount)
        return won - commission(won, rules.commission_percent)
    return rules.player_pays.winnings(amount)


def settle_baccarat(coup: Coup, seats: Sequence[BaccaratSeat], rules: BaccaratRules,
                    dragon: DragonBonusPays) -> dict[int, dict[str, int]]:
    """Every seat's net per wager.

    Raises:
        RulesError: the coup is not complete.
    """
    if not coup.complete:
        raise RulesError("the coup is not complete")
    results: dict[int, dict[str, int]] = {}
    for seat in seats:
        nets: dict[str, int] = {}
        for name, amount in seat.bets.items():
            bet = BaccaratBet(name)
            if bet is BaccaratBet.DRAGON_PLAYER:
                nets[name] = dragon_net(coup, Side.PLAYER, amount, dragon)
            elif bet is BaccaratBet.DRAGON_BANKER:
                nets[name] = dragon_net(coup, Side.BANKER, amount, dragon)
            else:
                nets[name] = main_net(coup, bet, amount, rules)
        results[seat.seat] = nets
    return results
