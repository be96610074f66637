"""Player decisions at a blackjack table: hit, stand, double, split, surrender, rescue.

Conditions and callbacks named `decisions.<name>` in the blackjack transition table. Every
decision goes through the rules (`controller.rules.blackjack`), one hand at a time from the
dealer's left. An exposed card drawn in error is offered to the hand in turn (R8): hit,
double or split take it; standing or surrendering while a hit was open refuses it, and that
seat gets no more cards this round.
"""

from __future__ import annotations

from typing import Protocol

from transitions import EventData

from controller.procedure.blackjack.host import Step
from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.procedure.shared.setup import Setup
from controller.rules import blackjack as bj

TAKES_CARDS = frozenset({bj.Action.HIT, bj.Action.DOUBLE, bj.Action.SPLIT})
"""Decisions that give the hand another card (refused to a seat that refused an exposed card)."""


class DecisionsHost(Protocol):
    """What the decisions read and call of the blackjack model."""

    setup: Setup
    round: Round
    game: bj.BlackjackRound | None

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def step(self, step: Step) -> None:
        """Apply one step to the rules' round."""
        ...

    def try_step(self, step: Step) -> bool:
        """True when the rules would accept `step` now (nothing is applied)."""
        ...

    def decision_due(self) -> tuple[int, int] | None:
        """(seat number, hand index) whose decision is awaited."""
        ...

    def deal_card(self, event: EventData) -> None:
        """The card drawn goes to the position due (the deal's)."""
        ...


class Decisions:
    """Whether each decision is allowed now, and applying it."""

    def __init__(self, model: DecisionsHost) -> None:
        self.model = model

    def start_players(self, event: EventData) -> None:
        """Callback: decisions begin with the first live hand from the dealer's left."""
        self.model.emit(Journal("round:players", {"round": self.model.round.number}))

    def allows(self, action: bj.Action) -> bool:
        """The rules allow `action` on the hand in turn (and a refuser takes no more cards)."""
        game = self.model.game
        if game is None or action not in bj.legal_actions(game):
            return False
        if action in TAKES_CARDS:
            turn = self.model.decision_due()
            return turn is None or turn[0] not in self.model.round.refused
        return True

    def exposed_card_offered(self) -> bool:
        """Public: an exposed card drawn in error is offered to the hand in turn (R8)."""
        round_ = self.model.round
        return bool(round_.next_card and round_.next_card_exposed
                    and self.model.decision_due() is not None)

    def can_hit(self, event: EventData) -> bool:
        """Condition: the rules allow a hit on the hand in turn."""
        return self.allows(bj.Action.HIT)

    def can_stand(self, event: EventData) -> bool:
        """Condition: a hand is in turn."""
        return self.allows(bj.Action.STAND)

    def can_double(self, event: EventData) -> bool:
        """Condition: the rules allow this double (amount checked by the rules too)."""
        amount = event.kwargs.get("cents")
        step = ["act", bj.Action.DOUBLE.value, None if amount is None else int(amount)]
        return self.allows(bj.Action.DOUBLE) and self.model.try_step(step)

    def can_split(self, event: EventData) -> bool:
        """Condition: the rules allow a split."""
        return self.allows(bj.Action.SPLIT)

    def can_surrender(self, event: EventData) -> bool:
        """Condition: the rules allow late surrender."""
        return self.allows(bj.Action.SURRENDER)

    def can_rescue(self, event: EventData) -> bool:
        """Condition: the rules allow double-down rescue."""
        return self.allows(bj.Action.RESCUE)

    def card_is_a_hit(self, event: EventData) -> bool:
        """Condition: a card drawn while a hand is due to act is a hit for that hand."""
        return self.card_is_a_hit_now()

    def card_is_a_hit_now(self) -> bool:
        """Public: a card drawn now is a hit for the hand due to act (`[table] card_is_a_hit`)."""
        return (self.model.setup.config.table.card_is_a_hit
                and not self.exposed_card_offered() and self.allows(bj.Action.HIT))

    def hit_with_card(self, event: EventData) -> None:
        """Callback: the hand due to act hits, and the card drawn is its card."""
        model = self.model
        turn = model.decision_due()
        model.step(["act", bj.Action.HIT.value, None])
        model.emit(Journal("decision:hit", {"turn": list(turn or ()), "cents": None,
                                            "source": "shoe"}))
        model.deal_card(event)

    def decide(self, event: EventData) -> None:
        """Callback: apply the player's decision through the rules.

        With an exposed card drawn in error on offer (RULES.md irregularities, regulation
        §1.7), hit, double or split take it; standing or surrendering while a hit was open
        refuses it, and that player gets no more cards this round.
        """
        model = self.model
        action = bj.Action(event.event.name if event.event else "")
        amount = event.kwargs.get("cents")
        turn = model.decision_due()
        refusing = (self.exposed_card_offered() and action not in TAKES_CARDS
                    and self.allows(bj.Action.HIT))
        model.step(["act", action.value, None if amount is None else int(amount)])
        model.emit(Journal("decision:" + action.value, {
            "turn": list(turn or ()), "cents": amount,
            "source": event.kwargs.get("source", "layout")}))
        if refusing and turn is not None:
            model.round.refused.append(turn[0])
            model.emit(Journal("irregularity:exposed_card_refused", {"seat": turn[0]}),
                       OpLog(f"irregularity: seat {turn[0]} refused the exposed card; no more "
                             "cards for that seat this round", "warning"))
