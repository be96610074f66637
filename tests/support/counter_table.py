"""A table whose seat 1 counts cards: its rounds journalled as the table would, for the
tests of the advantage-play alerts on the floor."""

from __future__ import annotations

import random

from controller.procedure.core.effects import Journal
from controller.rules.cards import Card, Rank, shoe
from controller.rules.counting import ShoeCount, spread_units
from tests.support.floor_store_rig import ShippingTable


def stacked_shoe() -> list[Card]:
    """Six decks stacked so the count swings: five rounds of low cards, then five of tens
    and aces, over and over (the sevens to nines last)."""
    cards = list(shoe(6))
    random.Random(5).shuffle(cards)
    low = [card for card in cards if card.rank is not Rank.ACE and card.rank.points <= 6
           and not card.rank.is_ten_value]
    high = [card for card in cards if card.rank is Rank.ACE or card.rank.is_ten_value]
    stacked: list[Card] = []
    while low or high:
        stacked += low[:20] + high[:20]
        low, high = low[20:], high[20:]
    return stacked + [card for card in cards if card not in stacked]


class CounterSeat:
    """Seat 1 of a table whose player bets 1-8 units by the true count of the cards dealt."""

    def __init__(self, table: ShippingTable) -> None:
        self.table = table
        self.cards = stacked_shoe()
        self.count = ShoeCount(6)
        self.number = 0
        table.store.commit([Journal("shoe:shuffled", {"decks": 6, "shuffle": 1})], None)

    def play(self, rounds: int) -> None:
        """`rounds` more rounds, one commit a record, shipped."""
        for _ in range(rounds):
            self.number += 1
            self.table.store.commit(self._round(self.number), None)
            self.table.shipper.wake()

    def _round(self, number: int) -> list[Journal]:
        wager = spread_units(self.count.true_count) * 1000
        records = [Journal("round:open", {"round": number}),
                   Journal("round:no_more_bets", {"round": number, "bets": [[1, wager, {}]],
                                                  "ratio_seats": []})]
        dealt = [self.cards.pop(0) for _ in range(4)]
        for card, to in zip(dealt, ([1, 0, False], [0, 0, False], [1, 0, False], [0, 0, True]),
                            strict=True):
            records.append(Journal("card:dealt", {"round": number, "to": to,
                                                  "card": str(card)}))
            self.count = self.count.unseen() if to[2] else self.count.exposed(card)
        records.append(Journal("card:hole_revealed", {"round": number, "card": str(dealt[3])}))
        self.count = self.count.turned(dealt[3])
        return [*records, Journal("round:settled", {"round": number, "seats": []})]
