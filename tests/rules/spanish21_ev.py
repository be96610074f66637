"""Spanish 21 main-wager expected values over an infinite 48-card deck, chart against best move.

The deck is infinite with the proportions of a Spanish deck: each of A-9 has probability 1/12
and the ten-values (J Q K) 1/4. Every expected value is per unit of the original wager and,
except in `overall_ev`, conditional on the dealer not having blackjack (the dealer peeks under
an ace or a ten).

The rules are those of `SPANISH21_RULES` (checked when this module is imported): a player
blackjack pays 3:2 even against a dealer blackjack; a player 21 always wins; unsplit, undoubled
hands are paid 3:2 / 2:1 / 3:1 for a 21 of 5 / 6 / 7+ cards and 3:2 mixed, 2:1 suited, 3:1
spades for 6-7-8 or 7-7-7; doubling is allowed on any number of cards (split hands too), once
per hand, and the double may be rescued after its card for the loss of one unit; late
surrender on the first two cards of an unsplit hand; splits to `max_hands` hands, aces to two
hands taking one card each; a hand reaching 21 stands.

Two policies are valued: the best move at every decision ("optimal") and the basic-strategy
chart as `controller.rules.strategy.basic_strategy` plays it ("chart"). Hands of three or more
cards use the total-dependent best move, not a card-count refinement.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from typing import Final

from controller.rules.blackjack import Action
from controller.rules.cards import Card, Rank, Suit
from controller.rules.hands import Game
from controller.rules.money import Odds
from controller.rules.options import SPANISH21_RULES, BlackjackRules
from controller.rules.paytables import Spanish21BonusPays
from controller.rules.strategy import UP_CARDS, basic_strategy

RULES: Final = SPANISH21_RULES
PAYS: Final = Spanish21BonusPays()

# The assumptions the recursion below is written for.
assert RULES.game is Game.SPANISH21
assert RULES.double_any_cards
assert RULES.double_after_split
assert RULES.double_rescue
assert RULES.surrender
assert not RULES.double_split_aces
assert not RULES.hit_split_aces
assert RULES.max_hands in (2, 3)
assert RULES.max_hands_aces == 2
assert not RULES.bonuses_after_split
assert RULES.charlie_cards == 0

VALUES: Final = tuple(range(1, 11))
"""Card values; 1 is an ace, 10 any ten-value card."""
PROB: Final = {value: (1 / 4 if value == 10 else 1 / 12) for value in VALUES}
UPS: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
"""Up-card values in chart column order (`UP_CARDS`)."""
LABEL: Final = dict(zip(UPS, UP_CARDS, strict=True))
BUST: Final = 22
"""The dealer's final "total" when the dealer busts."""
RESCUE_EV: Final = -1.0

_RANK: Final = {1: Rank.ACE, 2: Rank.TWO, 3: Rank.THREE, 4: Rank.FOUR, 5: Rank.FIVE,
                6: Rank.SIX, 7: Rank.SEVEN, 8: Rank.EIGHT, 9: Rank.NINE, 10: Rank.TEN}
_START_LEGAL: Final = frozenset({Action.STAND, Action.HIT, Action.DOUBLE, Action.SURRENDER})
_LATER_LEGAL: Final = frozenset({Action.STAND, Action.HIT, Action.DOUBLE})
_RESCUE_LEGAL: Final = frozenset({Action.STAND, Action.RESCUE})


def _odds(odds: Odds) -> float:
    return odds.win / odds.per


# Suit classes of the first two cards of a 6-7 / 6-8 / 7-8 / 7-7 start: both spades, both of
# one other suit, mixed; and the pay of the 6-7-8 / 7-7-7 when the third card completes it
# (the third card matches the suit of two suited cards with probability 1/4).
SUIT_CLASSES: Final = {"spades": 1 / 16, "suited": 3 / 16, "mixed": 12 / 16}


def _pattern_pay(suits: str, line: str) -> float:
    mixed = _odds(getattr(PAYS, f"mixed_{line}"))
    if suits == "mixed":
        return mixed
    return 0.25 * _odds(getattr(PAYS, f"{suits}_{line}")) + 0.75 * mixed


Pattern = tuple[int, float]
"""The card completing a 6-7-8 / 7-7-7 and the (suit-averaged) pay when it comes."""


@dataclass(frozen=True, slots=True)
class Start:
    """An ordered two-card start (not a blackjack) with its probability."""

    first: int
    second: int
    pattern: Pattern | None
    weight: float


@dataclass(frozen=True, slots=True)
class CellLoss:
    """One chart cell: hand class, up card, the chart's and the best action, and the loss.

    `hand` is `hard N`, `soft N` (two different cards) or `pair X` (X in `2`-`9`, `T`, `A`);
    `loss` is the best action's EV minus the chart action's, in units of the wager.
    """

    hand: str
    up: str
    chart: Action
    best: Action
    loss: float


def total(hard_sum: int, ace: bool) -> tuple[int, bool]:
    """The total and softness of a hand of `hard_sum` (aces as 1) holding an ace or not."""
    if ace and hard_sum + 10 <= 21:
        return hard_sum + 10, True
    return hard_sum, False


@cache
def rules_for(h17: bool) -> BlackjackRules:
    """`SPANISH21_RULES` with the dealer's soft-17 rule."""
    return replace(RULES, dealer_hits_soft_17=h17)


# ----------------------------------------------------------------------------- the dealer


def _dealer_draws(hard_sum: int, ace: bool, h17: bool) -> bool:
    value, soft = total(hard_sum, ace)
    return value < 17 or (h17 and value == 17 and soft)


@cache
def _dealer_play(up: int, hard_sum: int, ace: bool, cards: int, h17: bool) -> dict[int, float]:
    if hard_sum > 21:
        return {BUST: 1.0}
    if not _dealer_draws(hard_sum, ace, h17):
        return {total(hard_sum, ace)[0]: 1.0}
    # The hole card cannot make a blackjack (the dealer peeked).
    draws = [v for v in VALUES if not (cards == 1 and {up, v} == {1, 10})]
    norm = sum(PROB[v] for v in draws)
    out: dict[int, float] = {}
    for v in draws:
        for final, q in _dealer_play(up, hard_sum + v, ace or v == 1, cards + 1, h17).items():
            out[final] = out.get(final, 0.0) + PROB[v] / norm * q
    return out


def dealer_distribution(up: int, h17: bool) -> dict[int, float]:
    """The dealer's final total (17-21 or `BUST`) given the up card and no dealer blackjack."""
    return _dealer_play(up, up, up == 1, 1, h17)


def dealer_blackjack_probability(up: int) -> float:
    """The probability that the hole card makes a dealer blackjack."""
    return PROB[10] if up == 1 else PROB[1] if up == 10 else 0.0


@cache
def stand_ev(player: int, up: int, h17: bool) -> float:
    """EV of standing on `player` (no 21: a Spanish 21 player 21 always wins)."""
    ev = 0.0
    for final, q in dealer_distribution(up, h17).items():
        if final == BUST or final < player:
            ev += q
        elif final > player:
            ev -= q
    return ev


# ----------------------------------------------------------------------------- the chart


def _card(value: int, suit: Suit = Suit.HEARTS) -> Card:
    return Card(_RANK[value], suit)


def _representative(hard_sum: int, ace: bool) -> tuple[Card, ...]:
    """Two cards with the same total and softness (the chart depends on nothing else here)."""
    value, soft = total(hard_sum, ace)
    if soft:
        return _card(1), _card(value - 11, Suit.CLUBS)
    low = 2 if value <= 11 else 10
    return _card(low), _card(value - low, Suit.CLUBS)


def chart_action(cards: tuple[Card, ...], up: int, h17: bool, legal: frozenset[Action]) -> Action:
    """The action `basic_strategy` takes on `cards` against the up card value `up`."""
    return basic_strategy(cards, _card(up, Suit.DIAMONDS), legal, rules_for(h17)).action


def rescue_by_ev(player: int, up: int, h17: bool) -> bool:
    """Whether standing on a doubled `player` total is worth less than the rescue's one unit."""
    return 2 * stand_ev(player, up, h17) < RESCUE_EV


def rescue_cells(h17: bool) -> frozenset[tuple[int, str]]:
    """(total after the doubled card, up card label) where the rescue is the better choice."""
    return frozenset((player, LABEL[up]) for up in UPS for player in range(4, 21)
                     if rescue_by_ev(player, up, h17))


def _chart_rescues(player: int, up: int, h17: bool) -> bool:
    cards = _representative(player, False)
    return chart_action(cards, up, h17, _RESCUE_LEGAL) is Action.RESCUE


# ----------------------------------------------------------------------------- the player


def _bonus_21(cards: int, eligible: bool, pattern: Pattern | None, last: int) -> float:
    """The pay of a (non-blackjack) 21 of `cards` cards, `last` the card that made it."""
    if not eligible:
        return 1.0
    if cards == 3 and pattern is not None and last == pattern[0]:
        return pattern[1]
    if cards >= 7:
        return _odds(PAYS.seven_card_21)
    if cards == 6:
        return _odds(PAYS.six_card_21)
    if cards == 5:
        return _odds(PAYS.five_card_21)
    return 1.0


@cache
def _double_ev(hard_sum: int, ace: bool, up: int, h17: bool, chart: bool) -> float:
    rescues = _chart_rescues if chart else rescue_by_ev
    ev = 0.0
    for v in VALUES:
        value, _ = total(hard_sum + v, ace or v == 1)
        if value > 21:
            outcome = -2.0
        elif value == 21:
            outcome = 2.0
        else:
            outcome = RESCUE_EV if rescues(value, up, h17) else 2 * stand_ev(value, up, h17)
        ev += PROB[v] * outcome
    return ev


@dataclass(frozen=True, slots=True)
class _State:
    """A live hand below 21 (split options aside) and the game it is played in."""

    hard_sum: int
    ace: bool
    cards: int
    eligible: bool  # unsplit, undoubled: the bonus 21s and surrender apply
    pattern: Pattern | None
    up: int
    h17: bool


def _actions(state: _State, chart: bool) -> dict[Action, float]:
    """EV of each action but a split; later decisions by the chart or the best move."""
    value, _ = total(state.hard_sum, state.ace)
    evs = {Action.STAND: stand_ev(value, state.up, state.h17)}
    hit = 0.0
    for v in VALUES:
        after = replace(state, hard_sum=state.hard_sum + v, ace=state.ace or v == 1,
                        cards=state.cards + 1, pattern=None)
        new_value, _ = total(after.hard_sum, after.ace)
        if new_value > 21:
            hit -= PROB[v]
        elif new_value == 21:
            hit += PROB[v] * _bonus_21(after.cards, state.eligible, state.pattern, v)
        else:
            hit += PROB[v] * _play(after, chart)
    evs[Action.HIT] = hit
    evs[Action.DOUBLE] = _double_ev(state.hard_sum, state.ace, state.up, state.h17, chart)
    if state.cards == 2 and state.eligible:
        evs[Action.SURRENDER] = -0.5
    return evs


@cache
def _play(state: _State, chart: bool) -> float:
    """The value of a live hand with no split open, played by the chart or the best move."""
    evs = _actions(state, chart)
    if not chart:
        return max(evs.values())
    cards = _representative(state.hard_sum, state.ace)
    return evs[chart_action(cards, state.up, state.h17, frozenset(evs))]


def _split_hand(pair: int, drawn: int, up: int, h17: bool, chart: bool) -> float:
    """The value of one split hand holding `pair` and `drawn`, with no further split."""
    value, _ = total(pair + drawn, pair == 1 or drawn == 1)
    if value == 21:
        return 1.0
    if pair == 1:  # split aces take one card
        return stand_ev(value, up, h17)
    return _play(_State(pair + drawn, drawn == 1, 2, False, None, up, h17), chart)


def _chart_resplits(pair: int, up: int, h17: bool) -> bool:
    cards = (_card(pair), _card(pair, Suit.CLUBS))
    legal = _LATER_LEGAL | {Action.SPLIT}
    return chart_action(cards, up, h17, legal) is Action.SPLIT


@cache
def split_ev(pair: int, up: int, h17: bool, chart: bool) -> float:
    """EV (per original unit) of splitting a pair of `pair`, re-splitting up to `max_hands`."""
    x = sum(PROB[k] * _split_hand(pair, k, up, h17, chart) for k in VALUES)
    if pair == 1 or RULES.max_hands <= 2:
        return 2 * x
    p = PROB[pair]
    y = sum(PROB[k] * _split_hand(pair, k, up, h17, chart) for k in VALUES if k != pair)
    pair_again = _split_hand(pair, pair, up, h17, chart)
    # The second hand, when the first was not re-split: the last re-split is open to it.
    resplit = _chart_resplits(pair, up, h17) if chart else 2 * x > pair_again
    second = y + p * (2 * x if resplit else pair_again)
    # The first hand: a re-split gives three hands none of which may split again.
    if chart:
        first = 3 * x if resplit else pair_again + second
    else:
        first = max(3 * x, pair_again + second)
    return y + (1 - p) * second + p * first


# ----------------------------------------------------------------------------- starts


_PATTERN_NEED: Final = {(6, 7): (8, "678"), (6, 8): (7, "678"), (7, 8): (6, "678"),
                        (7, 7): (7, "777")}


def starts() -> Iterator[Start]:
    """Every ordered two-card start but a blackjack, 6-7-8 / 7-7-7 starts by suit class."""
    for first in VALUES:
        for second in VALUES:
            if {first, second} == {1, 10}:
                continue
            weight = PROB[first] * PROB[second]
            need = _PATTERN_NEED.get((min(first, second), max(first, second)))
            if need is None:
                yield Start(first, second, None, weight)
                continue
            for suits, q in SUIT_CLASSES.items():
                pattern = (need[0], _pattern_pay(suits, need[1]))
                yield Start(first, second, pattern, weight * q)


def start_actions(start: Start, up: int, h17: bool, chart: bool) -> dict[Action, float]:
    """EV of every first action on `start`; later decisions by the chart or the best move."""
    ace = 1 in (start.first, start.second)
    state = _State(start.first + start.second, ace, 2, True, start.pattern, up, h17)
    evs = _actions(state, chart)
    if start.first == start.second:
        evs[Action.SPLIT] = split_ev(start.first, up, h17, chart)
    return evs


def chart_start_action(start: Start, up: int, h17: bool) -> Action:
    """The chart's first action on `start`."""
    cards = (_card(start.first), _card(start.second, Suit.CLUBS))
    pair = start.first == start.second
    return chart_action(cards, up, h17, _START_LEGAL | ({Action.SPLIT} if pair else set()))


def hand_class(start: Start) -> str:
    """`hard N`, `soft N` or `pair X`: the chart row a start is played by."""
    if start.first == start.second:
        return f"pair {LABEL[start.first]}"
    value, soft = total(start.first + start.second, 1 in (start.first, start.second))
    return f"{'soft' if soft else 'hard'} {value}"


def _classes() -> dict[str, list[Start]]:
    classes: dict[str, list[Start]] = {}
    for start in starts():
        classes.setdefault(hand_class(start), []).append(start)
    return classes


def cell_losses(h17: bool) -> list[CellLoss]:
    """Every chart cell with the loss of the chart's action against the best first action.

    The best action of a cell is the one with the highest EV averaged over the cell's starts
    (later decisions played at their best); the chart plays every start of a cell alike.
    """
    rows = []
    for hand, members in _classes().items():
        weight = sum(start.weight for start in members)
        for up in UPS:
            evs: dict[Action, float] = {}
            for start in members:
                for action, ev in start_actions(start, up, h17, chart=False).items():
                    evs[action] = evs.get(action, 0.0) + start.weight / weight * ev
            chart = {chart_start_action(start, up, h17) for start in members}
            if len(chart) != 1:
                raise AssertionError(f"{hand} v {LABEL[up]}: the chart splits the cell {chart}")
            action = chart.pop()
            best = max(evs, key=lambda a: evs[a])
            rows.append(CellLoss(hand, LABEL[up], action, best, evs[best] - evs[action]))
    return rows


@cache
def overall_ev(h17: bool, chart: bool) -> float:
    """Main-wager EV per unit over all deals: the chart's play or the best move everywhere."""
    blackjack = _odds(RULES.blackjack_pays) * 2 * PROB[1] * PROB[10]
    ev = 0.0
    for up in UPS:
        dealer_bj = dealer_blackjack_probability(up)
        played = 0.0
        lost_to_blackjack = 0.0
        for start in starts():
            evs = start_actions(start, up, h17, chart)
            best = evs[chart_start_action(start, up, h17)] if chart else max(evs.values())
            played += start.weight * best
            lost_to_blackjack -= start.weight
        ev += PROB[up] * (blackjack + dealer_bj * lost_to_blackjack + (1 - dealer_bj) * played)
    return ev
