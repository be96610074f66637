"""The reference dealer: plays one whole round from cards in shoe order, exactly as RULES.md.

It drives the same steps the table controller uses (`blackjack`, `baccarat`, `settlement`,
`meter`) with a player policy standing in for the players, and returns a result that maps
1:1 onto the simulate JSON (`as_record`). Shuffling happens outside: pass an iterator of
cards already in shoe order. Running out of cards mid-round is a distinct outcome,
`VoidedRound` (the controller voids such a round).

    play_blackjack_round(table, bets, policy, cards, meter) -> BlackjackRoundResult | VoidedRound
    play_baccarat_round(rules, dragon, seats, cards)        -> BaccaratRoundResult | VoidedRound
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from controller.rules.baccarat import (
    BaccaratSeat,
    Coup,
    Outcome,
    check_baccarat_bets,
    deal_card,
    next_side,
    settle_baccarat,
)
from controller.rules.blackjack import (
    BlackjackRound,
    BlackjackTable,
    Phase,
    SeatBets,
    act,
    close_insurance,
    current_hand,
    deal,
    insure,
    legal_actions,
    next_position,
    peek,
    start_round,
    take_even_money,
)
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.meter import MeterState, accept_wagers
from controller.rules.options import BaccaratRules
from controller.rules.paytables import DragonBonusPays
from controller.rules.settlement import SeatResult, settle
from controller.rules.sidebets import SideBet
from controller.rules.strategy import PlayerPolicy, Situation


@dataclass(frozen=True, slots=True)
class VoidedRound:
    """The shoe ran out before the round was complete: the round is void, nothing settles."""

    reason: str
    cards_used: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class BlackjackRoundResult:
    """A settled blackjack or Spanish 21 round."""

    dealer: tuple[Card, ...]
    peeked: bool
    dealer_blackjack: bool
    seats: tuple[SeatResult, ...]
    meter: MeterState | None
    cards_used: tuple[Card, ...]

    def as_record(self, round_no: int) -> dict[str, object]:
        """The round in the simulate JSON format (decision 107); `meter` only with a meter."""
        record: dict[str, object] = {
            "round": round_no,
            "dealer": [str(card) for card in self.dealer],
            "peeked": self.peeked,
            "dealer_blackjack": self.dealer_blackjack,
            "seats": [{"seat": seat.seat,
                       "hands": [{"cards": [str(c) for c in hand.cards], "net": hand.net}
                                 for hand in seat.hands],
                       "side_bets": dict(seat.side_bets)} for seat in self.seats],
        }
        if self.meter is not None:
            record["meter"] = self.meter.amount
        return record


@dataclass(frozen=True, slots=True)
class BaccaratRoundResult:
    """A settled baccarat coup."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    result: Outcome
    seats: Mapping[int, Mapping[str, int]]
    cards_used: tuple[Card, ...]

    def as_record(self, round_no: int) -> dict[str, object]:
        """The coup in the simulate JSON format (decision 107)."""
        return {
            "round": round_no,
            "player": [str(card) for card in self.player],
            "banker": [str(card) for card in self.banker],
            "result": self.result.value,
            "seats": [{"seat": seat, "bets": dict(bets)} for seat, bets in self.seats.items()],
        }


class _OutOfCardsError(Exception):
    pass


class _Shoe:
    def __init__(self, cards: Iterator[Card]) -> None:
        self._cards = cards
        self.used: list[Card] = []

    def draw(self) -> Card:
        try:
            card = next(self._cards)
        except StopIteration:
            raise _OutOfCardsError from None
        self.used.append(card)
        return card


def play_blackjack_round(table: BlackjackTable, bets: Sequence[SeatBets], policy: PlayerPolicy,
                         cards: Iterator[Card], meter: MeterState | None = None, *,
                         peek_device_ok: bool = True) -> BlackjackRoundResult | VoidedRound:
    """Play and settle one blackjack-family round.

    Args:
        table: rules, pay tables and deck count.
        bets: each seat's wagers.
        policy: the players' decisions.
        cards: the shoe, in dealing order (burn cards already removed).
        meter: the Blazing 7's meter (needed when any seat has a Blazing 7's wager).
        peek_device_ok: False simulates a hole-card check that could not be made.

    Raises:
        RulesError: bad wagers, a policy choosing an illegal action, or a missing meter.
    """
    round_ = start_round(table, bets)
    accepted = sum(1 for bet in bets if SideBet.BLAZING7S in bet.side_bets)
    if accepted and meter is None:
        raise RulesError("Blazing 7's wagers need the progressive meter")
    if meter is not None:
        meter = accept_wagers(meter, accepted)
    shoe = _Shoe(cards)
    try:
        while round_.phase is not Phase.COMPLETE:
            round_ = _blackjack_step(round_, policy, shoe, peek_device_ok)
    except _OutOfCardsError:
        return VoidedRound("the shoe ran out of cards mid-round", tuple(shoe.used))
    settled = settle(round_, meter)
    return BlackjackRoundResult(round_.dealer, round_.peeked, round_.dealer_blackjack,
                                settled.seats, settled.meter, tuple(shoe.used))


def _blackjack_step(round_: BlackjackRound, policy: PlayerPolicy, shoe: _Shoe,
                    peek_device_ok: bool) -> BlackjackRound:
    if next_position(round_) is not None:
        return deal(round_, shoe.draw())
    if round_.phase is Phase.INSURANCE:
        return close_insurance(_offer_insurance(round_, policy))
    if round_.phase is Phase.PEEK:
        return peek(round_, device_ok=peek_device_ok)
    turn = current_hand(round_)
    if round_.phase is not Phase.PLAYERS or turn is None:
        raise RulesError(f"the round is stuck in phase {round_.phase}")
    seat = round_.seats[turn[0]]
    hand = seat.hands[turn[1]]
    up = round_.up_card
    assert up is not None
    situation = Situation(seat.seat, turn[1], hand.cards, up, legal_actions(round_),
                          round_.rules, hand.stake)
    return act(round_, policy.decide(situation))


def _offer_insurance(round_: BlackjackRound, policy: PlayerPolicy) -> BlackjackRound:
    up = round_.up_card
    assert up is not None
    for seat in round_.seats:
        choice = policy.insurance(seat.seat, seat.hands[0].cards, up, seat.bets.wager)
        if choice.even_money:
            round_ = take_even_money(round_, seat.seat)
        elif choice.amount:
            round_ = insure(round_, seat.seat, choice.amount)
    return round_


def play_baccarat_round(rules: BaccaratRules, dragon: DragonBonusPays,
                        seats: Sequence[BaccaratSeat],
                        cards: Iterator[Card]) -> BaccaratRoundResult | VoidedRound:
    """Deal and settle one baccarat coup.

    Raises:
        RulesError: bad wagers.
    """
    for seat in seats:
        check_baccarat_bets(seat)
    coup = Coup()
    shoe = _Shoe(cards)
    try:
        while next_side(coup) is not None:
            coup = deal_card(coup, shoe.draw())
    except _OutOfCardsError:
        return VoidedRound("the shoe ran out of cards mid-coup", tuple(shoe.used))
    nets = settle_baccarat(coup, sorted(seats, key=lambda s: s.seat), rules, dragon)
    return BaccaratRoundResult(coup.player, coup.banker, coup.outcome, nets, tuple(shoe.used))
