"""Par sheets built on the dealer's hand: dealer outcomes by up card, and AxMan."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from controller.odds.axman_exact import check_decks, count_axman
from controller.odds.combinatorics import falling
from controller.odds.dealer_finishes import dealer_hands, hit_table, sequence_count
from controller.odds.parsheet import (
    LOSES,
    NOT_A_WAGER,
    JsonValue,
    ParLine,
    ParSheet,
    exact_text,
    ratio,
    to_one,
)
from controller.rules.axman import AxManLine, axman_lines
from controller.rules.cards import Card, Rank, Suit
from controller.rules.hands import dealer_must_draw
from controller.rules.paytables import AxManPays

_BY_POINTS: Final = {1: Rank.ACE, 2: Rank.TWO, 3: Rank.THREE, 4: Rank.FOUR, 5: Rank.FIVE,
                     6: Rank.SIX, 7: Rank.SEVEN, 8: Rank.EIGHT, 9: Rank.NINE, 10: Rank.KING}
UP_NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
TOTALS: Final = ("17", "18", "19", "20", "21", "bust")


def cards_for(hard: int, ace: bool) -> list[Card]:
    """Cards with this hard total (aces as 1) holding an ace or not, for the rules to judge."""
    cards = [Card(Rank.ACE, Suit.SPADES)] if ace else []
    left = hard - len(cards)
    while left > 0:
        take = min(left, 10)
        if left - take == 1 and not ace:
            take -= 1  # never leave a lone 1: only an ace could make it
        cards.append(Card(_BY_POINTS[take], Suit.SPADES))
        left -= take
    return cards


def dealer_hits_rule(*, hits_soft_17: bool) -> dict[tuple[int, bool], bool]:
    """The rules' drawing rule (`dealer_must_draw`), tabulated by hard total and ace."""
    def hits(hard: int, ace: bool) -> bool:
        return dealer_must_draw(cards_for(hard, ace), hits_soft_17=hits_soft_17)
    return hit_table(hits)


def _outcome(total: int, size: int) -> str:
    if size == 2 and total == 21:
        return "blackjack"
    return "bust" if total > 21 else str(total)


def up_card_distribution(decks: int, up: int, *, hits_soft_17: bool,
                         spanish: bool = False) -> dict[str, Fraction]:
    """The dealer's final result given the up card's value (1-10), blackjack included."""
    shoe = [4 * decks] * 9 + [(12 if spanish else 16) * decks]
    shoe[up - 1] -= 1
    left = sum(shoe)
    result: dict[str, Fraction] = {}
    for hand in dealer_hands(tuple(shoe), dealer_hits_rule(hits_soft_17=hits_soft_17), (up,)):
        drawn = list(hand.counts)
        drawn[up - 1] -= 1
        ways = hand.orderings * sequence_count(tuple(shoe), tuple(drawn))
        name = _outcome(hand.total, hand.size)
        result[name] = result.get(name, Fraction(0)) + Fraction(ways, falling(left, hand.size - 1))
    return result


def dealer_outcomes(decks: int, *, hits_soft_17: bool) -> ParSheet:
    """The dealer's final totals per up card, unconditioned and given no dealer blackjack."""
    per_card = 16 * decks
    size = 52 * decks
    lines: list[ParLine] = []
    breakdown: list[JsonValue] = []
    matrix: list[tuple[str, ...]] = [_HEADER]
    for up, name in zip(range(1, 11), UP_NAMES, strict=True):
        chance_up = Fraction(per_card if up == 10 else 4 * decks, size)
        dist = up_card_distribution(decks, up, hits_soft_17=hits_soft_17)
        blackjack = dist.get("blackjack", Fraction(0))
        outcomes = (("blackjack",) if up in (1, 10) else ()) + TOTALS
        lines += [ParLine(f"up {name}: {o}", NOT_A_WAGER, chance_up * dist.get(o, Fraction(0)))
                  for o in outcomes]
        given = {o: dist.get(o, Fraction(0)) / (1 - blackjack) for o in TOTALS}
        matrix.append(_row(name, blackjack, dist, given))
        breakdown.append({
            "up": name, "up_probability": float(chance_up), "blackjack": float(blackjack),
            "blackjack_exact": exact_text(blackjack),
            "totals": {o: float(dist.get(o, Fraction(0))) for o in TOTALS},
            "totals_given_no_blackjack": {o: float(p) for o, p in given.items()},
        })
    rule = "hit" if hits_soft_17 else "stand"
    return ParSheet("dealer-outcomes", decks, tuple(lines), wagered=False,
                    summary=tuple(matrix), extras={
        "soft17": rule, "by_up_card": breakdown,
        "conditioning": "'lines' and 'totals' are unconditioned: they include the dealer's "
                        "blackjack (A or ten-value up). 'totals_given_no_blackjack' is "
                        "conditioned on the dealer not having blackjack (after the peek).",
    }, notes=(f"Dealer {'hits' if hits_soft_17 else 'stands on'} soft 17; only the up card "
              "is removed from the shoe.",
              "Left of '|': unconditioned (blackjack included). Right of '|' (noBJ): "
              "conditioned on no dealer blackjack, as after the peek. Up 10 = T, J, Q or K.",
              "--json gives every (up card, result) line and both distributions."))


def _row(name: str, blackjack: Fraction, dist: dict[str, Fraction],
         given: dict[str, Fraction]) -> tuple[str, ...]:
    """One up card's row: blackjack, each total unconditioned, then given no blackjack."""
    return (name, f"{float(blackjack):.6f}",
            *(f"{float(dist.get(o, Fraction(0))):.6f}" for o in TOTALS), "|",
            *(f"{float(given[o]):.6f}" for o in TOTALS))


_HEADER: Final = ("Up", "Blackjack", *TOTALS, "|", *(f"{o}|noBJ" for o in TOTALS))


_AXMAN_NAMES: Final = {line: line.value.replace("_", " ") for line in AxManLine}


def axman(decks: int, pays: AxManPays, *, hits_soft_17: bool) -> ParSheet:
    """AxMan, exact: every dealer hand by rank and relevant suit, the player's KD multiplier."""
    check_decks(decks)

    def classify(cards: tuple[Card, ...]) -> str | None:
        best = pays.best(axman_lines(cards))
        return None if best is None else best.value

    counts = count_axman(decks, dealer_hits_rule(hits_soft_17=hits_soft_17), classify)
    lines: list[ParLine] = []
    for line in AxManLine:
        odds = pays.odds(line)
        for held, label in ((0, ""), (1, ", one KD in player's two cards"),
                            (2, ", two KD in player's two cards")):
            win = ratio(odds) * pays.multiplier(held)
            lines.append(ParLine(_AXMAN_NAMES[line] + label, to_one(win),
                                 counts.probability(line.value, held)))
    losing = sum((counts.probability(None, held) for held in range(3)), Fraction(0))
    lines.append(ParLine("no qualifying hand", LOSES, losing))
    return ParSheet("axman", decks, tuple(lines), extras={
        "soft17": "hit" if hits_soft_17 else "stand", "estimate": False,
    }, notes=("Exact: dealer hands by value, rank and the suits that can form a flush; "
              "the player's two cards are dealt from what the dealer leaves.",))
