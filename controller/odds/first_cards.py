"""Par sheets of the blackjack side wagers settled on the first cards of a round.

Perfect Pairs, Lucky Ladies, Match the Dealer (blackjack and Spanish 21) and Blazing 7's,
each classified by the rules' own classifiers (`controller.rules.sidebets`) once per
distinct composition of the cards involved. The player's and the dealer's cards sit at
fixed positions of an exchangeable shuffle, so other players' cards need not be dealt.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from controller.odds.combinatorics import deals, falling
from controller.odds.errors import OddsError
from controller.odds.parsheet import (
    LOSES,
    JsonValue,
    ParLine,
    ParSheet,
    Payout,
    for_one,
    odds_payout,
    ratio,
    to_one,
)
from controller.odds.shoes import each_card, named_cards, shoe_size
from controller.rules.cards import Rank
from controller.rules.money import ForOne, MeterShare
from controller.rules.paytables import (
    Blazing7sPays,
    LuckyLadiesPays,
    MatchPays,
    PerfectPairsPays,
)
from controller.rules.sidebets import (
    Blazing7sLine,
    LuckyLadiesLine,
    Matches,
    PerfectPairsLine,
    blazing7s_line,
    lucky_ladies_line,
    perfect_pairs_line,
)
from controller.rules.sidebets import match_the_dealer as count_matches


def _title(key: str) -> str:
    return key.replace("_", " ")


def perfect_pairs(decks: int, pays: PerfectPairsPays) -> ParSheet:
    """Perfect Pairs on the player's first two cards."""
    classes = each_card(decks)
    counts: Counter[PerfectPairsLine | None] = Counter()
    for deal in deals(classes, (2,)):
        (player,) = deal.cards(classes)
        counts[perfect_pairs_line(*player)] += deal.weight
    total = falling(shoe_size(decks), 2)
    lines = [ParLine(_title(line.value), odds_payout(pays.odds(line)),
                     Fraction(counts.get(line, 0), total)) for line in PerfectPairsLine]
    lines.append(ParLine("no pair", LOSES, Fraction(counts.get(None, 0), total)))
    return ParSheet("perfect-pairs", decks, tuple(lines))


def lucky_ladies(decks: int, pays: LuckyLadiesPays) -> ParSheet:
    """Lucky Ladies: the player's first two cards, and whether the dealer has blackjack.

    The dealer's blackjack chance is exact given the player's two cards: both dealer cards
    come from the shoe less those two.
    """
    classes = each_card(decks)
    size = shoe_size(decks)
    counts: Counter[LuckyLadiesLine | None] = Counter()
    for deal in deals(classes, (2,)):
        (player,) = deal.cards(classes)
        aces = 4 * decks - sum(card.rank is Rank.ACE for card in player)
        tens = 16 * decks - sum(card.rank.is_ten_value for card in player)
        blackjacks = 2 * aces * tens
        others = falling(size - 2, 2) - blackjacks
        if blackjacks:
            counts[lucky_ladies_line(*player, dealer_blackjack=True)] += deal.weight * blackjacks
        counts[lucky_ladies_line(*player, dealer_blackjack=False)] += deal.weight * others
    total = falling(size, 4)
    lines = [ParLine(_title(line.value).replace("queen hearts", "queen of hearts"),
                     odds_payout(pays.odds(line)), Fraction(counts.get(line, 0), total))
             for line in LuckyLadiesLine]
    lines.append(ParLine("no 20", LOSES, Fraction(counts.get(None, 0), total)))
    return ParSheet("lucky-ladies", decks, tuple(lines))


_MATCH_LINES = (
    ("two suited matches", Matches(2, 0)),
    ("one suited and one unsuited match", Matches(1, 1)),
    ("one suited match", Matches(1, 0)),
    ("two unsuited matches", Matches(0, 2)),
    ("one unsuited match", Matches(0, 1)),
)


def match_the_dealer(bet: str, decks: int, pays: MatchPays, *, spanish: bool) -> ParSheet:
    """Match the Dealer: each of the player's two cards against the dealer's up card.

    With `spanish`, the shoe is of 48-card Spanish decks (Spanish 21).
    """
    classes = each_card(decks, spanish=spanish)
    counts: Counter[Matches] = Counter()
    for deal in deals(classes, (2, 1)):
        player, (up,) = deal.cards(classes)
        counts[count_matches(player[0], player[1], up)] += deal.weight
    total = falling(shoe_size(decks, spanish=spanish), 3)
    lines = []
    for name, matches in _MATCH_LINES:
        win = matches.suited * ratio(pays.suited) + matches.unsuited * ratio(pays.unsuited)
        lines.append(ParLine(name, to_one(win), Fraction(counts.get(matches, 0), total)))
    lines.append(ParLine("no match", LOSES, Fraction(counts.get(Matches(0, 0), 0), total)))
    notes = ["Each matching card wins its own odds; two matches pay the sum."]
    if spanish:
        notes.append(f"{decks} Spanish decks of 48 cards.")
    return ParSheet(bet, decks, tuple(lines), notes=tuple(notes))


def blazing7s(decks: int, pays: Blazing7sPays, meter: Fraction) -> ParSheet:
    """Blazing 7's at a given meter, in units of the fixed wager (2000 = 2000 x 5.00).

    Pays are "for 1"; a meter share returns that share of the meter rounded down to the
    cent, as the table settles it.
    """
    meter_cents = meter * pays.wager
    if meter_cents.denominator != 1 or meter_cents <= 0:
        raise OddsError(f"--meter {meter}: the meter must be a positive whole number of cents "
                        f"when multiplied by the {pays.wager / 100:.2f} wager")
    classes = named_cards(decks, lambda card: card.rank is Rank.SEVEN)
    counts: Counter[Blazing7sLine | None] = Counter()
    for deal in deals(classes, (2, 1)):
        player, (up,) = deal.cards(classes)
        counts[blazing7s_line(player[0], player[1], up)] += deal.weight
    total = falling(shoe_size(decks), 3)
    lines = [ParLine(_B7_NAMES[line], _blazing_payout(pays.pay(line), pays.wager,
                                                      meter_cents.numerator),
                     Fraction(counts.get(line, 0), total)) for line in Blazing7sLine]
    lines.append(ParLine("no 7", LOSES, Fraction(counts.get(None, 0), total)))
    extras: dict[str, JsonValue] = {"meter": float(meter), "meter_cents": meter_cents.numerator,
                                    "wager_cents": pays.wager}
    return ParSheet("blazing7s", decks, tuple(lines), extras=extras,
                    notes=(f"Meter {meter_cents.numerator / 100:,.2f} "
                           f"({float(meter):g} x the {pays.wager / 100:.2f} wager); "
                           "pays are 'for 1' (the stake is not returned on top).",))


_B7_NAMES = {
    Blazing7sLine.THREE_7D: "three 7 of diamonds",
    Blazing7sLine.THREE_SUITED_7S: "three suited 7s (clubs, spades or hearts)",
    Blazing7sLine.THREE_SAME_COLOUR_7S: "three 7s of one colour",
    Blazing7sLine.THREE_7S: "three 7s",
    Blazing7sLine.TWO_7S: "player's two cards 7s",
    Blazing7sLine.ONE_7: "one of the player's two cards a 7",
}


def _blazing_payout(pay: ForOne | MeterShare, wager: int, meter_cents: int) -> Payout:
    if isinstance(pay, ForOne):
        return for_one(pay.times)
    returned = pay.of(meter_cents)
    return for_one(Fraction(returned, wager),
                   f"{pay.percent}% of meter ({returned / 100:,.2f} for {wager / 100:.2f})")
