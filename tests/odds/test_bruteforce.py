"""Small shoes, every physical card sequence dealt: the composition methods must agree exactly."""

from collections import Counter
from fractions import Fraction
from itertools import permutations

import pytest

from controller.odds import first_cards
from controller.odds.baccarat_deals import count_coups_in
from controller.odds.baccarat_sheets import banker_draws
from controller.odds.combinatorics import CardClass, deals, falling
from controller.odds.dealer_finishes import dealer_hands, hit_table, sequence_count
from controller.odds.dealer_sheets import dealer_hits_rule
from controller.odds.shoes import each_card, named_cards
from controller.rules import baccarat as baccarat_rules
from controller.rules.cards import Card, Rank, deck
from controller.rules.hands import dealer_must_draw, hand_value
from controller.rules.paytables import BLACKJACK_MATCH_DEFAULT, MatchTheDealerPays, PerfectPairsPays
from controller.rules.sidebets import match_the_dealer, perfect_pairs_line


def test_perfect_pairs_one_deck_equals_every_sequence() -> None:
    counts: Counter[object] = Counter(perfect_pairs_line(a, b)
                                      for a, b in permutations(deck(), 2))
    sheet = first_cards.perfect_pairs(1, PerfectPairsPays())
    total = 52 * 51
    expected = {"perfect pair": 0, "coloured pair": counts["coloured_pair"],
                "mixed pair": counts["mixed_pair"], "no pair": counts[None]}
    assert {line.name: line.probability for line in sheet.lines} == {
        name: Fraction(n, total) for name, n in expected.items()}


def test_match_the_dealer_one_deck_equals_every_sequence() -> None:
    counts: Counter[tuple[int, int]] = Counter()
    for a, b, up in permutations(deck(), 3):
        matches = match_the_dealer(a, b, up)
        counts[(matches.suited, matches.unsuited)] += 1
    pays = MatchTheDealerPays("paytables.match-the-dealer",
                              ((1, BLACKJACK_MATCH_DEFAULT[0][1]),)).for_decks(1)
    sheet = first_cards.match_the_dealer("match-the-dealer", 1, pays, spanish=False)
    got = {line.name: line.probability for line in sheet.lines}
    total = 52 * 51 * 50
    assert got["two unsuited matches"] == Fraction(counts[(0, 2)], total)
    assert got["one unsuited match"] == Fraction(counts[(0, 1)], total)
    assert got["no match"] == Fraction(counts[(0, 0)], total)
    assert got["one suited match"] == got["two suited matches"] == 0  # one copy of each card
    assert sum(got.values()) == 1


def test_deals_weights_count_every_ordered_sequence() -> None:
    classes = (CardClass(3, (Card.parse("AS"),)), CardClass(2, (Card.parse("KH"),)),
               CardClass(4, (Card.parse("2C"), Card.parse("3D"))))
    weights: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for deal in deals(classes, (2, 1)):
        weights[deal.groups] += deal.weight
    physical = [0] * 3 + [1] * 2 + [2] * 4
    brute: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for order in permutations(range(len(physical)), 3):
        cards = [physical[i] for i in order]
        brute[(tuple(sorted(cards[:2])), (cards[2],))] += 1
    assert weights == brute
    assert sum(weights.values()) == falling(9, 3)


def test_lumped_classes_keep_the_shoe_size() -> None:
    classes = named_cards(6, lambda card: card.rank is Rank.SEVEN)
    assert sum(c.copies for c in classes) == 312
    assert len({c.representatives for c in each_card(1)}) == 52


def test_baccarat_composition_count_equals_every_sequence_of_a_small_shoe() -> None:
    codes = ("KS", "QH", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S")
    cards = [Card.parse(code) for code in codes]  # eleven physical cards, two 0-valued
    shoe = tuple(sum(c.rank.baccarat_points == v for c in cards) for v in range(10))
    brute: Counter[tuple[int, int, bool, bool]] = Counter()
    for order in permutations(cards, 6):  # the rules deal each 6-card sequence
        coup = baccarat_rules.Coup()
        for card in order:
            if coup.complete:
                break
            coup = baccarat_rules.deal_card(coup, card)
        player, banker = coup.player, coup.banker
        brute[(baccarat_rules.baccarat_total(player), baccarat_rules.baccarat_total(banker),
               baccarat_rules.is_natural(player), baccarat_rules.is_natural(banker))] += 1
    counted = count_coups_in(shoe, baccarat_rules.player_draws, banker_draws)
    assert counted.total == falling(11, 6) == sum(brute.values())
    got = {(c.player, c.banker, c.player_natural, c.banker_natural): n
           for c, n in counted.counts.items()}
    assert got == dict(brute)


def _dealer_sequences(physical: list[Card], hand: list[Card],
                     out: Counter[tuple[int, int]]) -> None:
    """Deal every physical card in turn until the rules' dealer stands; count each hand."""
    if len(hand) >= 2 and (hand_value(hand).total > 21
                           or not dealer_must_draw(hand, hits_soft_17=True)):
        out[(hand_value(hand).total, len(hand))] += 1
        return
    for index, card in enumerate(physical):
        _dealer_sequences(physical[:index] + physical[index + 1:], [*hand, card], out)


def test_dealer_hands_equal_every_sequence_of_a_small_shoe() -> None:
    shoe = (2, 1, 1, 1, 1, 1, 1, 1, 1, 3)  # two aces, one card of 2-9, three ten-values
    hits = dealer_hits_rule(hits_soft_17=True)
    composed: Counter[tuple[int, int]] = Counter()
    for hand in dealer_hands(shoe, hits):
        composed[(hand.total, hand.size)] += hand.orderings * sequence_count(shoe, hand.counts)
    codes = ["AS", "AH", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS"]
    brute: Counter[tuple[int, int]] = Counter()
    _dealer_sequences([Card.parse(code) for code in codes], [], brute)
    assert composed == brute


@pytest.mark.parametrize("soft17", [False, True])
def test_hit_table_follows_the_rules(soft17: bool) -> None:
    table = dealer_hits_rule(hits_soft_17=soft17)
    assert table[(7, True)] is soft17  # soft 17: A + 6
    assert table[(16, False)] is True
    assert table[(17, False)] is False
    assert table[(8, True)] is False  # soft 18
    assert hit_table(lambda hard, ace: hard < 17)[(16, True)] is True
