"""A blackjack table's journal records as what a watcher at the table would have seen.

`JournalFeed.take(kind, data)` turns each record of the table's journal, in order, into the
observations of `controller.analysis.advantage` and returns the alerts they raise. What a
counter can know is all it uses: a card dealt face up counts when dealt, the burn card never,
the hole card when it is turned over (`card:hole_revealed`); a seat's main wager is the one
it had when betting closed (`round:no_more_bets`). A decision is judged on a seat's first
hand while its cards are known (before any split of that seat in the round). A journal of
another game (baccarat's cards go to "player" and "banker") turns the feed off: no count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from controller.analysis.advantage import (
    AdvantageWatch,
    Alert,
    Decided,
    Exposed,
    Insured,
    Observation,
    Shuffled,
    Turned,
    Unseen,
    Wagered,
)
from controller.rules.blackjack import Action
from controller.rules.cards import Card
from controller.rules.hands import is_pair
from controller.rules.options import BlackjackRules

DEFAULT_DECKS: Final = 6
"""The shoe's decks until the journal's first `shoe:shuffled` names them."""
SEAT_LEFT_ROUNDS: Final = 10
"""A seat with no main wager for this many rounds has a new player: its evidence restarts."""
DECISIONS: Final = {action.value: action for action in
                    (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER)}
INSURANCE_TAKEN: Final = {"decision:insurance": True, "decision:even_money": True,
                          "decision:no_insurance": False}


@dataclass(slots=True)
class RoundView:
    """The cards of the round in play, as the table showed them."""

    number: int = 0
    up_card: Card | None = None
    hands: dict[tuple[int, int], list[Card]] = field(default_factory=dict)
    split_seats: set[int] = field(default_factory=set)
    decided_seats: set[int] = field(default_factory=set)


class JournalFeed:
    """One table's records in, alerts out."""

    def __init__(self, table: str, rules: BlackjackRules, decks: int = DEFAULT_DECKS) -> None:
        self.watch = AdvantageWatch(table, rules, decks)
        self.rules = rules
        self.round = RoundView()
        self.last_wager: dict[int, int] = {}
        self.records = 0
        self.blackjack = True

    def take(self, kind: str, data: Mapping[str, Any]) -> list[Alert]:
        """One journal record; the alerts it raised (usually none)."""
        self.records += 1
        if not self.blackjack:
            return []
        alerts = []
        for observation in self._observations(kind, data):
            alert = self.watch.observe(observation)
            if alert is not None:
                alerts.append(alert)
        return alerts

    def _observations(self, kind: str, data: Mapping[str, Any]) -> list[Observation]:
        if kind == "round:open":
            self.round = RoundView(number=int(data["round"]))
            return []
        simple: dict[str, Callable[[], list[Observation]]] = {
            "shoe:shuffled": lambda: [Shuffled(int(data["decks"]))],
            "shoe:burn": lambda: [Unseen()],
            "round:no_more_bets": lambda: self._wagers(data),
            "card:dealt": lambda: self._dealt(data),
            "card:hole_revealed": lambda: [Turned(Card.parse(str(data["card"])))]}
        if kind in simple:
            return simple[kind]()
        if kind in INSURANCE_TAKEN:
            return [Insured(self.round.number, int(data["seat"]), INSURANCE_TAKEN[kind])]
        if kind.startswith("decision:") and kind[len("decision:"):] in DECISIONS:
            return self._decided(DECISIONS[kind[len("decision:"):]], data)
        return []

    def _wagers(self, data: Mapping[str, Any]) -> list[Observation]:
        number = int(data.get("round", self.round.number))
        wagers: list[Observation] = []
        bets = data.get("bets", ())
        if isinstance(bets, Mapping):  # baccarat's {seat: {wager: cents}}: no count kept
            return []
        for seat, main, *_ in bets:
            if not main:
                continue
            seat = int(seat)
            if number - self.last_wager.get(seat, number) > SEAT_LEFT_ROUNDS:
                self.watch.forget(seat)
            self.last_wager[seat] = number
            wagers.append(Wagered(number, seat, int(main)))
        return wagers

    def _dealt(self, data: Mapping[str, Any]) -> list[Observation]:
        card = Card.parse(str(data["card"]))
        to = data.get("to")
        if not isinstance(to, list) or len(to) != 3:  # baccarat's "player"/"banker"
            self.blackjack = False
            return []
        seat, hand, face_down = to
        if face_down:
            return [Unseen()]
        if seat == 0:
            if self.round.up_card is None:
                self.round.up_card = card
        else:
            self.round.hands.setdefault((int(seat), int(hand)), []).append(card)
        return [Exposed(card)]

    def _decided(self, action: Action, data: Mapping[str, Any]) -> list[Observation]:
        seat, hand = (int(part) for part in data["turn"])
        view = self.round
        cards = tuple(view.hands.get((seat, hand), ()))
        first_decision = seat not in view.decided_seats
        view.decided_seats.add(seat)
        if action is Action.SPLIT:
            view.split_seats.add(seat)
        if hand != 0 or (seat in view.split_seats and action is not Action.SPLIT):
            return []
        if view.up_card is None or len(cards) < 2:
            return []
        return [Decided(view.number, seat, cards, view.up_card,
                        self._legal(cards, first_decision), action)]

    def _legal(self, cards: tuple[Card, ...], first_decision: bool) -> frozenset[Action]:
        legal = {Action.HIT, Action.STAND}
        if len(cards) == 2 and first_decision:
            legal.add(Action.DOUBLE)
            if is_pair(cards):
                legal.add(Action.SPLIT)
            if self.rules.surrender:
                legal.add(Action.SURRENDER)
        return frozenset(legal)
