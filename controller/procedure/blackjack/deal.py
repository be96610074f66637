"""The physical deal at a blackjack table: where each card goes, held cards, deal irregularities.

Conditions and callbacks named `deal.<name>` in the blackjack transition table. The rules
deal in their own order; the dealer deals in the physical order, which irregularities change
(a seat missed, one card short, the dealer's card late). A card is given to the position due
and held until the rules' order reaches it. A card drawn when none was due waits as the next
card (not exposed) or is offered to the next hand due one (exposed, RULES.md).
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.blackjack.host import Step
from controller.procedure.blackjack.states import BJ
from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.rules import blackjack as bj
from controller.rules.hands import DEALER, Position, hand_value, initial_deal_order


class DealHost(Protocol):
    """What the deal reads and calls of the blackjack model."""

    state: str
    round: Round
    game: bj.BlackjackRound | None
    steps: list[Step]
    error_return: str

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def step(self, step: Step) -> None:
        """Apply one step to the rules' round."""
        ...

    def rebuild(self, steps: list[Step]) -> None:
        """Replay steps into a fresh round."""
        ...

    def start_bets(self) -> list[Any]:
        """The round's starting bets: [seat, main cents, side wagers] each."""
        ...

    def card_due_to(self) -> Position | None:
        """Where the next card from the shoe goes (None: none is due)."""
        ...

    def camera_check(self, position: Position, card: str) -> None:
        """Ask the camera to confirm a card dealt face up where it lies (R9)."""
        ...


class CardCounter(Protocol):
    """What the deal asks the shoe: to count a card leaving it."""

    def count_card(self, code: str) -> str:
        """Record a card leaving the shoe; return its canonical code."""
        ...


def position_key(position: Position) -> list[Any]:
    """A position as the journal and the snapshot hold it: [seat, hand, hole]."""
    return [position.seat, position.hand, position.hole]


class DealTracker:
    """The physical dealing order and the cards held until the rules' order reaches them.

    Args:
        model: The blackjack model, as the deal sees it.
        shoe: The shoe, which counts each card drawn.

    Attributes:
        physical: Positions still due a card of the initial deal, in the dealer's order.
        held: [position, card] dealt physically but not yet fed to the rules.
    """

    def __init__(self, model: DealHost, shoe: CardCounter) -> None:
        self.model = model
        self.shoe = shoe
        self.physical: list[list[Any]] = []
        self.held: list[list[Any]] = []

    def start(self, game: bj.BlackjackRound) -> None:
        """No more bets: the initial deal's physical order, nothing held."""
        self.held = []
        self.physical = [position_key(p)
                         for p in initial_deal_order([s.seat for s in game.seats])]

    def clear(self) -> None:
        """Forget the deal (the round is over or void)."""
        self.physical, self.held = [], []

    # ------------------------------------------------------------------ cards
    def due(self) -> Position | None:
        """Public: where the next card of the initial deal goes (None: none)."""
        return Position(*self.physical[0]) if self.physical else None

    def card_is_due(self, event: EventData) -> bool:
        """Condition: a position is waiting for a card from the shoe (not the held one)."""
        if self.model.state == BJ.DEALING:
            return bool(self.physical)
        due = self.model.card_due_to()
        return due is not None and not self.held_card_goes_to(due)

    def held_card_goes_to(self, due: Position) -> bool:
        """True when the card drawn in error and kept is the one for `due`."""
        # An exposed card refused by a seat is not given to it: a split hand's second card
        # then comes from the shoe (it was due before the refusal).
        round_ = self.model.round
        if not round_.next_card:
            return False
        return not (round_.next_card_exposed and due.seat in round_.refused)

    def deal_card(self, event: EventData) -> None:
        """Callback: the card goes to the position due (its identity: journal only)."""
        self.place(self.shoe.count_card(str(event.kwargs["code"])))

    def place(self, card: str) -> None:
        """Give `card` to the physical position due; feed the rules in their own order.

        A card dealt face up is then confirmed by the camera where it lies (R9); the hole
        card only once it is turned over.
        """
        model = self.model
        if model.state == BJ.DEALING:
            position = self.physical.pop(0)
            self.held.append([position, card])
            model.emit(Journal("card:dealt", {"round": model.round.number, "to": position,
                                              "card": card}))
            model.camera_check(Position(*position), card)
            self.feed_held()
            return
        due = model.card_due_to()
        model.emit(Journal("card:dealt", {"round": model.round.number,
                                          "to": position_key(due) if due else None,
                                          "card": card}))
        if due is not None:
            model.camera_check(due, card)
        model.step(["card", card])

    def feed_held(self) -> None:
        """Feed the rules every held card their order has reached."""
        model = self.model
        while model.game is not None and model.game.phase is bj.Phase.DEAL:
            want = position_key(bj.next_position(model.game) or Position(-1))
            match = next((h for h in self.held if h[0] == want), None)
            if match is None:
                return
            self.held.remove(match)
            model.step(["card", match[1]])

    def consume_held_card(self) -> None:
        """A card drawn in error and kept goes to the next position due."""
        model = self.model
        due = model.card_due_to()
        if due is not None and self.held_card_goes_to(due):
            card, model.round.next_card = model.round.next_card, ""
            model.round.next_card_exposed = False
            model.emit(Journal("irregularity:held_card_used", {"card": card}))
            self.place(card)

    # ------------------------------------------------------------------ deal irregularities
    def seat_in_round(self, event: EventData) -> bool:
        """Condition: the seat named has a hand this round and a card still to come."""
        seat = int(event.kwargs.get("seat", 0))
        return any(p[0] == seat for p in self.physical)

    def seat_without_card(self, event: EventData) -> bool:
        """Condition: the seat named is in the round and has not been given a card yet."""
        seat = int(event.kwargs.get("seat", 0))
        game = self.model.game
        dealt = any(p[0] == seat for p, _ in self.held) or (
            game is not None and any(s.seat == seat and s.hands[0].cards for s in game.seats))
        return self.seat_in_round(event) and not dealt and len(self.model.start_bets()) > 1

    def dead_hand(self, event: EventData) -> None:
        """Callback (irregularity): a seat got no card: its hand is dead, its wagers returned."""
        model = self.model
        seat = int(event.kwargs["seat"])
        start = [[s, m, side] for s, m, side in model.start_bets() if s != seat]
        model.rebuild([["start", start], *model.steps[1:]])
        self.physical = [p for p in self.physical if p[0] != seat]
        model.emit(Journal("irregularity:seat_no_card", {"seat": seat, "returned": True}),
                   OpLog(f"irregularity: seat {seat} got no card; dead hand", "warning"))
        self.feed_held()

    def second_card_last(self, event: EventData) -> None:
        """Callback (irregularity): a seat got one card; its second comes after the others."""
        seat = int(event.kwargs["seat"])
        mine = [p for p in self.physical if p[0] == seat]
        self.physical = [p for p in self.physical if p[0] != seat] + mine
        self.model.emit(Journal("irregularity:seat_one_card", {"seat": seat}),
                        OpLog(f"irregularity: seat {seat} gets its second card last", "warning"))

    def dealer_card_pending(self, event: EventData) -> bool:
        """Condition: the dealer still has a card of the initial deal to come."""
        return any(p[0] == DEALER for p in self.physical)

    def dealer_card_last(self, event: EventData) -> None:
        """Callback (irregularity): the dealer missed a card; deal it after the players'."""
        mine = [p for p in self.physical if p[0] == DEALER]
        self.physical = [p for p in self.physical if p[0] != DEALER] + mine
        self.model.emit(Journal("irregularity:dealer_missed_card", {}),
                        OpLog("irregularity: the dealer's card comes after the players'",
                              "warning"))

    # ------------------------------------------------------------------ cards in error
    def hold_card_in_error(self, event: EventData) -> None:
        """Callback (irregularity): a card no one was due; the dealer says if it was exposed."""
        model = self.model
        card = self.shoe.count_card(str(event.kwargs["code"]))
        model.error_return = event.transition.source if event.transition else ""
        model.round.next_card = card
        model.emit(Journal("irregularity:card_drawn_in_error", {"card": card,
                                                                "state": model.error_return}),
                   OpLog("irregularity: card drawn in error; exposed or not?", "warning"))

    def keep_as_next_card(self, event: EventData) -> None:
        """Callback: not exposed: it is used as the next card (RULES.md)."""
        self.model.error_return = ""
        self.model.emit(Journal("irregularity:unexposed_is_next", {}))

    def offer_exposed_card(self, event: EventData) -> None:
        """Callback: exposed after the deal: offered in order to the next hand due a card.

        If no one takes it before the round ends, it is burned.
        """
        self.model.error_return = ""
        self.model.round.next_card_exposed = True
        self.model.emit(Journal("irregularity:exposed_offered", {}))

    def dealer_stood_17_21(self, event: EventData) -> bool:
        """Condition: the dealer stood on 17-21 and drew anyway (that card is burned)."""
        game = self.model.game
        if game is None or not game.hole_revealed:
            return False
        return 17 <= hand_value(game.dealer).total <= 21

    def burn_overdraw(self, event: EventData) -> None:
        """Callback (irregularity): the dealer drew on 17-21; the card is burned."""
        model = self.model
        card = self.shoe.count_card(str(event.kwargs["code"]))
        model.round.loose.append(card)
        model.emit(Journal("irregularity:dealer_overdraw", {"card": card}),
                   OpLog("irregularity: dealer drew on 17-21; card burned", "warning"))
