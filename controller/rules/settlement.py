"""Settling a completed blackjack-family round: every hand, side wager and the meter.

Nets are what the player gets back minus what they put up, in cents. Rules applied:

* Blackjack pays `blackjack_pays` (3:2; 6:5 community), pushes a dealer blackjack (Spanish
  21: always wins). Even money: +wager. Surrender: half the wager returned (rounded down).
  Rescue: the original wager forfeited, the double returned.
* Dealer blackjack: every other hand loses, but a seat loses at most its original wager (a
  failed peek, R6 / 633a.11(d)); hands already busted, surrendered or rescued stay settled.
* Spanish 21: a player 21 beats any dealer hand but a blackjack; bonus 21s on unsplit,
  undoubled hands pay their odds instead of 1:1; the super bonus and the envy award.
* Community: a Charlie wins 1:1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from controller.rules.axman import axman_lines, kings_of_diamonds
from controller.rules.blackjack import BlackjackRound, Hand, Phase, SeatState, is_charlie
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.hands import Game, hand_value
from controller.rules.meter import MeterState, ProgressiveWin, settle_progressive
from controller.rules.money import half_rounded_down
from controller.rules.sidebets import (
    SideBet,
    blazing7s_line,
    is_super_bonus,
    lucky_ladies_line,
    match_the_dealer,
    perfect_pairs_line,
    spanish21_bonus,
)


@dataclass(frozen=True, slots=True)
class HandResult:
    """A settled hand: its cards in the order dealt, what was put up on it and its net (cents).

    `wager` is the hand's wager plus any double; the player gets back `wager + net`.
    """

    cards: tuple[Card, ...]
    net: int
    wager: int


@dataclass(frozen=True, slots=True)
class SeatResult:
    """A settled seat: its hands and each side wager's or award's net, by `SideBet` name."""

    seat: int
    hands: tuple[HandResult, ...]
    side_bets: Mapping[str, int]

    @property
    def net(self) -> int:
        """Everything the seat won (+) or lost (-) this round."""
        return sum(h.net for h in self.hands) + sum(self.side_bets.values())


@dataclass(frozen=True, slots=True)
class Settlement:
    """Every seat's result and the meter after the round (None when no meter was given)."""

    seats: tuple[SeatResult, ...]
    meter: MeterState | None


def settle(round_: BlackjackRound, meter: MeterState | None = None) -> Settlement:
    """Settle a complete round.

    Raises:
        RulesError: the round is not complete, or Blazing 7's wagers are on it without a meter.
    """
    if round_.phase is not Phase.COMPLETE:
        raise RulesError(f"the round is not complete (phase {round_.phase})")
    sides = {s.seat: _side_bets(round_, s) for s in round_.seats}
    _super_bonus(round_, sides)
    meter = _blazing7s(round_, meter, sides)
    seats = tuple(
        SeatResult(s.seat, tuple(HandResult(h.cards, net, h.at_risk)
                                 for h, net in zip(s.hands, _main_nets(round_, s), strict=True)),
                   sides[s.seat])
        for s in round_.seats)
    return Settlement(seats, meter)


# ----------------------------------------------------------------------------- main wager


def _main_nets(round_: BlackjackRound, seat: SeatState) -> list[int]:
    nets = [hand_net(round_, hand) for hand in seat.hands]
    if not round_.dealer_blackjack:
        return nets
    allowance = seat.bets.wager
    for index, hand in enumerate(seat.hands):
        if hand.busted or hand.surrendered or hand.rescued or hand.blackjack or hand.even_money:
            continue
        loss = min(hand.stake, allowance)
        allowance -= loss
        nets[index] = -loss
    return nets


def hand_net(round_: BlackjackRound, hand: Hand) -> int:
    """One hand's net before the seat's dealer-blackjack limit (see `settle`)."""
    rules = round_.rules
    early = _settled_by_player(hand)
    if early is not None:
        return early
    if hand.blackjack:
        if round_.dealer_blackjack and rules.game is not Game.SPANISH21:
            return 0
        return rules.blackjack_pays.winnings(hand.stake)
    if round_.dealer_blackjack:
        return -hand.at_risk
    if is_charlie(hand, rules):
        return hand.at_risk
    return _compare(round_, hand)


def _settled_by_player(hand: Hand) -> int | None:
    if hand.even_money:
        return hand.stake
    if hand.surrendered:
        return half_rounded_down(hand.stake) - hand.stake
    if hand.rescued:
        return -hand.stake
    if hand.busted:
        return -hand.at_risk
    return None


def _compare(round_: BlackjackRound, hand: Hand) -> int:
    player = hand.total
    dealer = hand_value(round_.dealer).total
    spanish_21 = round_.rules.game is Game.SPANISH21 and player == 21
    if spanish_21 or dealer > 21 or player > dealer:
        return _win(round_, hand)
    return 0 if player == dealer else -hand.at_risk


def _win(round_: BlackjackRound, hand: Hand) -> int:
    rules = round_.rules
    if rules.game is Game.SPANISH21 and not hand.doubled and (
            not hand.from_split or rules.bonuses_after_split):
        line = spanish21_bonus(hand.cards)
        if line is not None:
            return round_.table.paytables.spanish21_bonus.odds(line).winnings(hand.stake)
    return hand.at_risk


# ----------------------------------------------------------------------------- side wagers


def _side_bets(round_: BlackjackRound, seat: SeatState) -> dict[str, int]:
    nets: dict[str, int] = {}
    for name, amount in seat.bets.side_bets.items():
        if name != SideBet.BLAZING7S:
            nets[name] = side_bet_net(round_, seat, name, amount)
    if seat.insurance:
        odds = round_.rules.insurance_pays
        nets[SideBet.INSURANCE] = (odds.winnings(seat.insurance) if round_.dealer_blackjack
                                   else -seat.insurance)
    return nets


def side_bet_net(round_: BlackjackRound, seat: SeatState, name: str, amount: int) -> int:
    """The net of one fixed-odds side wager (not Blazing 7's, which needs the meter)."""
    first, second = seat.first_cards
    up = round_.dealer[0]
    pays = round_.table.paytables
    winnings = 0
    if name == SideBet.PERFECT_PAIRS:
        pp = perfect_pairs_line(first, second)
        winnings = pays.perfect_pairs.odds(pp).winnings(amount) if pp else 0
    elif name == SideBet.LUCKY_LADIES:
        ll = lucky_ladies_line(first, second, dealer_blackjack=round_.dealer_blackjack)
        winnings = pays.lucky_ladies.odds(ll).winnings(amount) if ll else 0
    elif name == SideBet.MATCH_THE_DEALER:
        table = pays.match_the_dealer_for(round_.rules.game).for_decks(round_.table.decks)
        winnings = table.winnings(match_the_dealer(first, second, up), amount)
    elif name == SideBet.AXMAN:
        line = pays.axman.best(axman_lines(round_.dealer))
        kings = kings_of_diamonds(first, second)
        winnings = pays.axman.winnings(line, amount, kings) if line else 0
    else:
        raise RulesError(f"seat {seat.seat}: no settlement for a {name!r} wager")
    return winnings if winnings else -amount


def _super_bonus(round_: BlackjackRound, sides: dict[int, dict[str, int]]) -> None:
    if round_.rules.game is not Game.SPANISH21 or round_.dealer_blackjack:
        return
    pays = round_.table.paytables.spanish21_bonus
    winners = [s.seat for s in round_.seats
               if not s.hands[0].from_split and not s.hands[0].doubled
               and is_super_bonus(s.hands[0].cards, round_.dealer[0])
               and pays.super_bonus_award(s.bets.wager) > 0]
    for seat in round_.seats:
        if seat.seat in winners:
            sides[seat.seat][SideBet.SUPER_BONUS] = pays.super_bonus_award(seat.bets.wager)
        envy = pays.envy * sum(1 for winner in winners if winner != seat.seat)
        if envy:
            sides[seat.seat][SideBet.ENVY] = envy


def _blazing7s(round_: BlackjackRound, meter: MeterState | None,
               sides: dict[int, dict[str, int]]) -> MeterState | None:
    pays = round_.table.paytables.blazing7s
    wins = []
    for seat in round_.seats:
        stake = seat.bets.side_bets.get(SideBet.BLAZING7S)
        if stake is not None:
            first, second = seat.first_cards
            line = blazing7s_line(first, second, round_.dealer[0])
            wins.append(ProgressiveWin(seat.seat, stake, pays.pay(line) if line else None))
    if not wins:
        return meter
    if meter is None:
        raise RulesError("Blazing 7's wagers need the progressive meter to settle")
    meter, nets = settle_progressive(meter, wins)
    for seat_number, net in nets.items():
        sides[seat_number][SideBet.BLAZING7S] = net
    return meter
