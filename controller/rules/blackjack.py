"""One round of blackjack, Spanish 21 or community-card blackjack as small pure steps.

The round is a frozen `BlackjackRound`; every step returns a new one. A table controller
drives it card by card and decision by decision; the reference dealer (`dealer.py`) drives
it from a card sequence and a player policy. Both use exactly these functions:

    round_ = start_round(table, bets)
    next_position(round_)      -> where the next card goes (None: a decision is due)
    deal(round_, card)         -> the card placed there
    insurance_open(round_) / insure / take_even_money / close_insurance   (ace up)
    peek(round_)               -> the hole-card check (R4-R6): one bit, dealer blackjack
    current_hand(round_) / legal_actions(round_) / act(round_, Decision)
    round_.phase is Phase.COMPLETE  -> settle it with `settlement.settle`

Rules decided here where RULES.md is silent: a hand that reaches 21 stands automatically;
a hand is "decided" (the dealer need not play for it) when busted, surrendered, rescued, a
blackjack, paid even money, or a Charlie.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from controller.rules.axman import AXMAN_DECK_COUNTS
from controller.rules.cards import Card, Rank
from controller.rules.errors import RulesError
from controller.rules.hands import (
    DEALER,
    Game,
    Position,
    dealer_must_draw,
    hand_value,
    initial_deal_order,
    is_pair,
    is_two_card_21,
    peek_eligible,
)
from controller.rules.options import SIDE_BETS_BY_GAME, BlackjackRules, GameConfig
from controller.rules.paytables import Paytables
from controller.rules.sidebets import SideBet


class Phase(StrEnum):
    """Where a blackjack round stands."""

    DEAL = "deal"
    INSURANCE = "insurance"
    PEEK = "peek"
    PLAYERS = "players"
    DEALER = "dealer"
    COMPLETE = "complete"


class Action(StrEnum):
    """A player's decision on a hand."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    RESCUE = "rescue"


@dataclass(frozen=True, slots=True)
class Decision:
    """An action; `amount` is a double for less (cents; None = the hand's full wager)."""

    action: Action
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class BlackjackTable:
    """What a blackjack-family round needs from the table configuration."""

    rules: BlackjackRules
    paytables: Paytables
    decks: int

    @classmethod
    def from_config(cls, config: GameConfig) -> BlackjackTable:
        """The table for `config.table.game` (a blackjack-family game)."""
        return cls(config.rules_for(Game(config.table.game)), config.paytables, config.table.decks)


@dataclass(frozen=True, slots=True)
class SeatBets:
    """A seat's wagers for the round, cents: the main wager and side wagers by `SideBet` name."""

    seat: int
    wager: int
    side_bets: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Hand:
    """One player hand. `stake` is its wager; `doubled` the double-down wager on top."""

    cards: tuple[Card, ...] = ()
    stake: int = 0
    doubled: int = 0
    from_split: bool = False
    split_aces: bool = False
    wants_card: bool = False
    finished: bool = False
    surrendered: bool = False
    rescued: bool = False
    even_money: bool = False
    rescue_open: bool = False

    @property
    def total(self) -> int:
        """The hand's blackjack value."""
        return hand_value(self.cards).total

    @property
    def busted(self) -> bool:
        """Over 21."""
        return self.total > 21

    @property
    def blackjack(self) -> bool:
        """Ace and ten-value as the first two cards of an unsplit hand."""
        return not self.from_split and is_two_card_21(self.cards)

    @property
    def at_risk(self) -> int:
        """Wager plus double."""
        return self.stake + self.doubled


@dataclass(frozen=True, slots=True)
class SeatState:
    """A seat in the round: its bets, hands (more than one after a split), insurance."""

    bets: SeatBets
    hands: tuple[Hand, ...]
    first_cards: tuple[Card, ...] = ()
    insurance: int = 0

    @property
    def seat(self) -> int:
        """The seat number (1 = dealer's far left)."""
        return self.bets.seat


@dataclass(frozen=True, slots=True)
class BlackjackRound:
    """The whole state of one round. Build it with `start_round`."""

    table: BlackjackTable
    seats: tuple[SeatState, ...]
    dealer: tuple[Card, ...] = ()
    phase: Phase = Phase.DEAL
    peeked: bool = False
    peek_failed: bool = False
    hole_revealed: bool = False

    @property
    def rules(self) -> BlackjackRules:
        """The game's rules."""
        return self.table.rules

    @property
    def up_card(self) -> Card | None:
        """The dealer's up card once dealt."""
        return self.dealer[0] if self.dealer else None

    @property
    def dealer_blackjack(self) -> bool:
        """The dealer's first two cards are a blackjack (known to the rules, never shown)."""
        return is_two_card_21(self.dealer[:2])

    def seat_state(self, seat: int) -> SeatState:
        """The state of seat number `seat`.

        Raises:
            RulesError: the seat has no wager this round.
        """
        return self.seats[_seat_index(self, seat)]


def start_round(table: BlackjackTable, bets: Sequence[SeatBets]) -> BlackjackRound:
    """A new round for the seats with a wager (checked against the table's side wagers).

    Raises:
        RulesError: no wager, a seat twice, a non-positive amount, or a side wager the game
            does not offer (Blazing 7's must be its fixed wager; AxMan needs 6 or 8 decks).
    """
    if not bets:
        raise RulesError("a round needs at least one seat with a wager")
    if len({b.seat for b in bets}) != len(bets):
        raise RulesError("a seat appears twice in the round's wagers")
    for bet in bets:
        _check_bets(table, bet)
    seats = tuple(SeatState(b, (Hand(stake=b.wager),)) for b in sorted(bets, key=lambda b: b.seat))
    return BlackjackRound(table, seats)


def _check_bets(table: BlackjackTable, bet: SeatBets) -> None:
    if bet.seat < 1 or bet.wager <= 0:
        raise RulesError(f"seat {bet.seat}: a seat number from 1 and a wager above 0 are needed")
    offered = (table.rules.side_bets if table.rules.game is Game.COMMUNITY  # per spot
               else SIDE_BETS_BY_GAME[table.rules.game])
    for name, amount in bet.side_bets.items():
        if name not in offered:
            raise RulesError(f"seat {bet.seat}: {table.rules.game} offers no {name!r} wager")
        if amount <= 0:
            raise RulesError(f"seat {bet.seat}: {name} wager must be above 0, got {amount}")
    blazing = bet.side_bets.get(SideBet.BLAZING7S)
    if blazing is not None and blazing != table.paytables.blazing7s.wager:
        raise RulesError(f"seat {bet.seat}: the Blazing 7's wager is fixed at "
                         f"{table.paytables.blazing7s.wager} cents, got {blazing}")
    if SideBet.AXMAN in bet.side_bets and table.decks not in AXMAN_DECK_COUNTS:
        raise RulesError(f"seat {bet.seat}: AxMan is offered only at 6- or 8-deck tables")


# ----------------------------------------------------------------------------- cards


def next_position(round_: BlackjackRound) -> Position | None:
    """Where the next card from the shoe goes; None when a decision (or nothing) is due."""
    if round_.phase is Phase.DEAL:
        order = initial_deal_order([s.seat for s in round_.seats])
        dealt = len(round_.dealer) + sum(len(s.hands[0].cards) for s in round_.seats)
        return order[dealt]
    if round_.phase is Phase.PLAYERS:
        turn = current_hand(round_)
        if turn is None:
            return None
        hand = round_.seats[turn[0]].hands[turn[1]]
        if hand.wants_card or len(hand.cards) < 2:
            return Position(round_.seats[turn[0]].seat, turn[1])
        return None
    if round_.phase is Phase.DEALER:
        return Position(DEALER)
    return None


def deal(round_: BlackjackRound, card: Card) -> BlackjackRound:
    """Place `card` where `next_position` says.

    Raises:
        RulesError: no card is due now.
    """
    position = next_position(round_)
    if position is None:
        raise RulesError(f"no card is due in phase {round_.phase}")
    if card.rank is Rank.TEN and round_.rules.game is Game.SPANISH21:
        raise RulesError(f"{card} cannot come from a Spanish 21 shoe (no tens)")
    if position.is_dealer:
        return _advance(replace(round_, dealer=(*round_.dealer, card)))
    index = _seat_index(round_, position.seat)
    seat = round_.seats[index]
    hand = seat.hands[position.hand]
    hand = replace(hand, cards=(*hand.cards, card), wants_card=False)
    if round_.phase is Phase.PLAYERS:
        hand = _after_card(hand, round_.rules)
    else:
        seat = replace(seat, first_cards=hand.cards)
    return _advance(_with_hand(round_, index, position.hand, hand, seat))


def _after_card(hand: Hand, rules: BlackjackRules) -> Hand:
    total = hand.total
    if total > 21:
        return replace(hand, finished=True)
    if hand.doubled:
        return replace(hand, rescue_open=True) if rules.double_rescue else replace(
            hand, finished=True)
    if len(hand.cards) < 2:
        return hand
    if hand.split_aces and not rules.hit_split_aces:
        return replace(hand, finished=True)
    if total == 21 or is_charlie(hand, rules):
        return replace(hand, finished=True)
    return hand


def _seat_index(round_: BlackjackRound, seat: int) -> int:
    for index, state in enumerate(round_.seats):
        if state.seat == seat:
            return index
    raise RulesError(f"seat {seat} has no wager this round")


def _with_seat(round_: BlackjackRound, index: int, seat: SeatState) -> BlackjackRound:
    return replace(round_, seats=(*round_.seats[:index], seat, *round_.seats[index + 1:]))


def _with_hand(round_: BlackjackRound, index: int, hand_index: int, hand: Hand,
               seat: SeatState | None = None) -> BlackjackRound:
    seat = seat or round_.seats[index]
    hands = (*seat.hands[:hand_index], hand, *seat.hands[hand_index + 1:])
    return _with_seat(round_, index, replace(seat, hands=hands))


# ----------------------------------------------------------------------------- phases


def _advance(round_: BlackjackRound) -> BlackjackRound:
    """Move to the next phase as far as no card or decision is needed."""
    while True:
        moved = _step_phase(round_)
        if moved is round_:
            return round_
        round_ = moved


def _step_phase(round_: BlackjackRound) -> BlackjackRound:
    phase = round_.phase
    if phase is Phase.DEAL and len(round_.dealer) == 2:
        return _after_initial_deal(round_)
    if phase is Phase.PLAYERS and current_hand(round_) is None:
        return replace(round_, phase=Phase.DEALER, hole_revealed=True)
    if phase is Phase.DEALER and not (
            dealer_plays(round_)
            and dealer_must_draw(round_.dealer, hits_soft_17=round_.rules.dealer_hits_soft_17)):
        return replace(round_, phase=Phase.COMPLETE, hole_revealed=True)
    return round_


def _after_initial_deal(round_: BlackjackRound) -> BlackjackRound:
    for index, seat in enumerate(round_.seats):
        hand = seat.hands[0]
        if hand.blackjack:
            round_ = _with_hand(round_, index, 0, replace(hand, finished=True))
    if insurance_open_for(round_):
        return replace(round_, phase=Phase.INSURANCE)
    return replace(round_, phase=_phase_after_insurance(round_))


def insurance_open_for(round_: BlackjackRound) -> bool:
    """True when the up card is an ace and the table offers insurance or even money."""
    up = round_.up_card
    return (up is not None and up.rank is Rank.ACE
            and (round_.rules.insurance or round_.rules.even_money))


def _phase_after_insurance(round_: BlackjackRound) -> Phase:
    up = round_.up_card
    assert up is not None
    return Phase.PEEK if peek_eligible(round_.rules.game, up) else Phase.PLAYERS


def dealer_plays(round_: BlackjackRound) -> bool:
    """Whether the dealer completes the hand by the drawing rules.

    Not with a dealer blackjack; not when every player hand is decided (busted, surrendered,
    rescued, blackjack, even money, Charlie) and no AxMan wager is on the table.
    """
    if round_.dealer_blackjack:
        return False
    axman = any(SideBet.AXMAN in s.bets.side_bets for s in round_.seats)
    return axman or any(not hand_decided(h, round_.rules) for s in round_.seats for h in s.hands)


def is_charlie(hand: Hand, rules: BlackjackRules) -> bool:
    """`rules.charlie_cards` or more cards without busting (a Charlie wins 1:1)."""
    return 0 < rules.charlie_cards <= len(hand.cards) and not hand.busted


def hand_decided(hand: Hand, rules: BlackjackRules) -> bool:
    """A hand whose result no dealer card can change."""
    return (hand.busted or hand.surrendered or hand.rescued or hand.blackjack
            or hand.even_money or is_charlie(hand, rules))


# ----------------------------------------------------------------------------- insurance


def max_insurance(wager: int, chip: int) -> int:
    """Half the wager, or the closest chip amount to it when that is more (ties go up).

    Seed 000: "no more than one-half ... the player may bet up to the closest chip
    denomination": with 1.00 chips a 7.50 wager allows 4.00, a 12.50 wager 6.25 (not 7.00).
    """
    closest_chips = (wager + chip) // (2 * chip) * chip
    return max(wager // 2, closest_chips)


def insure(round_: BlackjackRound, seat: int, amount: int) -> BlackjackRound:
    """Seat `seat` places `amount` cents of insurance (ace up, before the peek).

    Raises:
        RulesError: insurance not open, not offered, or more than half the wager.
    """
    index = _insurance_seat(round_, seat)
    state = round_.seats[index]
    limit = max_insurance(state.bets.wager, round_.rules.insurance_chip)
    if not round_.rules.insurance or not 0 < amount <= limit or state.hands[0].even_money:
        raise RulesError(f"seat {seat}: insurance of {amount} not allowed (up to {limit})")
    return _with_seat(round_, index, replace(state, insurance=amount))


def take_even_money(round_: BlackjackRound, seat: int) -> BlackjackRound:
    """Seat `seat`'s blackjack is paid 1:1 at once; the hand is over.

    Raises:
        RulesError: even money not open or not offered, or the hand is no blackjack.
    """
    index = _insurance_seat(round_, seat)
    hand = round_.seats[index].hands[0]
    if not round_.rules.even_money or not hand.blackjack or round_.seats[index].insurance:
        raise RulesError(f"seat {seat}: even money is only for an uninsured player blackjack")
    return _with_hand(round_, index, 0, replace(hand, even_money=True, finished=True))


def _insurance_seat(round_: BlackjackRound, seat: int) -> int:
    if round_.phase is not Phase.INSURANCE:
        raise RulesError(f"insurance is not open (phase {round_.phase})")
    return _seat_index(round_, seat)


def close_insurance(round_: BlackjackRound) -> BlackjackRound:
    """Close insurance and even money; the hole-card check comes next."""
    if round_.phase is not Phase.INSURANCE:
        raise RulesError(f"insurance is not open (phase {round_.phase})")
    return _advance(replace(round_, phase=_phase_after_insurance(round_)))


def peek(round_: BlackjackRound, *, device_ok: bool = True) -> BlackjackRound:
    """The hole-card check (R4-R6), answering one bit: dealer blackjack or not.

    On a dealer blackjack the hole card is turned over at once and the round is complete;
    otherwise the players act.

    With `device_ok=False` the check could not be made: play goes on, and a blackjack found
    when the hole card is turned over later costs each seat only its original wager.

    Raises:
        RulesError: no check is due.
    """
    if round_.phase is not Phase.PEEK:
        raise RulesError(f"no hole-card check is due (phase {round_.phase})")
    if not device_ok:
        return _advance(replace(round_, phase=Phase.PLAYERS, peek_failed=True))
    if round_.dealer_blackjack:
        seats = tuple(replace(s, hands=tuple(replace(h, finished=True) for h in s.hands))
                      for s in round_.seats)
        return replace(round_, seats=seats, peeked=True, hole_revealed=True,
                       phase=Phase.COMPLETE)
    return _advance(replace(round_, phase=Phase.PLAYERS, peeked=True))


# ----------------------------------------------------------------------------- decisions


def current_hand(round_: BlackjackRound) -> tuple[int, int] | None:
    """(seat index, hand index) of the hand being played: seat 1..K, split hands in order."""
    if round_.phase is not Phase.PLAYERS:
        return None
    for seat_index, seat in enumerate(round_.seats):
        for hand_index, hand in enumerate(seat.hands):
            if not hand.finished:
                return seat_index, hand_index
    return None


def legal_actions(round_: BlackjackRound) -> frozenset[Action]:
    """The actions open on the current hand (empty while a card is due or no hand acts)."""
    turn = current_hand(round_)
    if turn is None:
        return frozenset()
    seat = round_.seats[turn[0]]
    hand = seat.hands[turn[1]]
    if hand.wants_card or len(hand.cards) < 2:
        return frozenset()
    if hand.rescue_open:
        return frozenset({Action.STAND, Action.RESCUE})
    rules = round_.rules
    actions = {Action.STAND}
    if not hand.split_aces or rules.hit_split_aces:
        actions.add(Action.HIT)
    if _can_double(hand, rules):
        actions.add(Action.DOUBLE)
    if _can_split(seat, hand, rules):
        actions.add(Action.SPLIT)
    if _can_surrender(round_, seat, hand):
        actions.add(Action.SURRENDER)
    return frozenset(actions)


def _can_double(hand: Hand, rules: BlackjackRules) -> bool:
    if hand.doubled or hand.total >= 21:
        return False
    if len(hand.cards) != 2 and not rules.double_any_cards:
        return False
    if hand.split_aces:
        return rules.double_split_aces
    return not hand.from_split or rules.double_after_split


def _can_split(seat: SeatState, hand: Hand, rules: BlackjackRules) -> bool:
    if not is_pair(hand.cards) or hand.doubled:
        return False
    aces = hand.cards[0].rank is Rank.ACE
    return len(seat.hands) < (rules.max_hands_aces if aces else rules.max_hands)


def _can_surrender(round_: BlackjackRound, seat: SeatState, hand: Hand) -> bool:
    return (round_.rules.surrender and len(seat.hands) == 1 and not hand.from_split
            and len(hand.cards) == 2 and not hand.doubled and not round_.peek_failed)


def act(round_: BlackjackRound, decision: Decision) -> BlackjackRound:
    """Apply a player's decision to the current hand.

    Raises:
        RulesError: the action is not open on this hand, or a double amount is wrong.
    """
    if decision.action not in legal_actions(round_):
        raise RulesError(f"{decision.action} is not allowed now")
    turn = current_hand(round_)
    assert turn is not None
    seat_index, hand_index = turn
    hand = round_.seats[seat_index].hands[hand_index]
    if decision.action is Action.SPLIT:
        return _advance(_split(round_, seat_index, hand_index))
    return _advance(_with_hand(round_, seat_index, hand_index,
                               _apply(hand, decision, round_.rules)))


def _apply(hand: Hand, decision: Decision, rules: BlackjackRules) -> Hand:
    action = decision.action
    if action is Action.HIT:
        return replace(hand, wants_card=True)
    if action is Action.DOUBLE:
        amount = hand.stake if decision.amount is None else decision.amount
        if not 0 < amount <= hand.stake or (amount < hand.stake and not rules.double_for_less):
            raise RulesError(f"a double is 1..{hand.stake} cents here, got {amount}")
        return replace(hand, doubled=amount, wants_card=True)
    if action is Action.SURRENDER:
        return replace(hand, surrendered=True, finished=True)
    if action is Action.RESCUE:
        return replace(hand, rescued=True, rescue_open=False, finished=True)
    return replace(hand, rescue_open=False, finished=True)


def _split(round_: BlackjackRound, seat_index: int, hand_index: int) -> BlackjackRound:
    seat = round_.seats[seat_index]
    hand = seat.hands[hand_index]
    aces = hand.cards[0].rank is Rank.ACE
    pair = tuple(Hand(cards=(card,), stake=hand.stake, from_split=True, split_aces=aces)
                 for card in hand.cards)
    hands = (*seat.hands[:hand_index], *pair, *seat.hands[hand_index + 1:])
    return _with_seat(round_, seat_index, replace(seat, hands=hands))
