"""The shoe as the procedure follows it: shuffles, the burn card, cards out, the cut card.

Conditions and callbacks of both families' transition tables, named there `shoe.<name>`. The
tally of what left the shoe since the last shuffle is part of the critical state: it is what
the can-the-shoe-hold-it check (R9) and the card numbers of a restart rest on.
"""

from __future__ import annotations

from typing import Protocol

from transitions import EventData

from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round, ShoeTally
from controller.procedure.shared.setup import Setup
from controller.rules.cards import Card, CardError, Rank


class ShoeHost(Protocol):
    """What the shoe reads and does of the model it serves (any family's)."""

    setup: Setup
    state: str
    round: Round
    reshuffle_return: str

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def open_betting(self, event: EventData) -> None:
        """A new round opens for wagers (after the shuffle, or its burn card)."""
        ...

    def card_due_to(self) -> object | None:
        """Where the next card goes (None: no card is due)."""
        ...


class ShoeTracker:
    """Shoe conditions and callbacks; `tally` is what has left the shoe since its shuffle."""

    def __init__(self, model: ShoeHost) -> None:
        self.model = model
        self.tally = ShoeTally()

    def burn_needed(self, event: EventData) -> bool:
        """Condition: a burn card follows the shuffle (R7)."""
        return self.model.setup.burn

    def record_shuffle(self, event: EventData) -> None:
        """Callback: a new, shuffled shoe is in."""
        model = self.model
        old = self.tally
        self.tally = ShoeTally(shuffles=old.shuffles + 1, board_boot=old.board_boot,
                               board_base=old.board_base, board_handled=old.board_handled)
        model.emit(Journal("shoe:shuffled", {"shuffle": self.tally.shuffles,
                                             "decks": model.setup.config.table.decks}),
                   OpLog("shoe shuffled"))
        if not model.setup.burn:
            model.open_betting(event)

    def card_is_possible(self, event: EventData) -> bool:
        """Condition: the code names a card this shoe can still hold (R9)."""
        return not self.card_is_impossible(event)

    def card_is_impossible(self, event: EventData) -> bool:
        """Condition: more copies than the shoe's decks, a `T` in a Spanish shoe, or junk."""
        code = str(event.kwargs.get("code", ""))
        try:
            card = Card.parse(code)
        except CardError:
            return True
        if self.model.setup.spanish and card.rank is Rank.TEN:
            return True
        return self.tally.seen.get(str(card), 0) >= self.model.setup.config.table.decks

    def count_card(self, code: str) -> str:
        """Record a card leaving the shoe; return its canonical code."""
        card = str(Card.parse(code))
        self.tally.seen[card] = self.tally.seen.get(card, 0) + 1
        self.tally.cards_out += 1
        return card

    def burn_card(self, event: EventData) -> None:
        """Callback: the burn card after the shuffle (R7); it goes to the discards."""
        card = self.count_card(str(event.kwargs["code"]))
        self.model.emit(Journal("shoe:burn", {"card": card}), OpLog("burn card discarded"))
        self.model.open_betting(event)

    def discard_face_up(self, event: EventData) -> None:
        """Callback (irregularity): a card face up in the shoe is not used; discarded."""
        model = self.model
        code = event.kwargs.get("code")
        if code:
            model.round.loose.append(self.count_card(str(code)))
        model.emit(Journal("irregularity:face_up_card", {"card": code, "state": model.state}),
                   OpLog("irregularity: card face up in the shoe discarded", "warning"))

    def note_cut_card(self, event: EventData) -> None:
        """Callback: the cut card came out; finish the round, then shuffle (R7)."""
        self.tally.cut_seen = True
        self.model.emit(Journal("shoe:cut_card", {"cards_out": self.tally.cards_out}),
                        OpLog("cut card out: shuffle after this round"))

    def shuffle_due(self, event: EventData) -> bool:
        """Condition: the shoe must be shuffled before the next round (cut card out, or empty)."""
        return self.tally.cut_seen or self.tally.empty

    def card_is_wanted(self, event: EventData) -> bool:
        """Condition: a position is waiting for a card from the shoe."""
        return self.model.card_due_to() is not None

    def note_shoe_empty(self, event: EventData) -> None:
        """Callback: the shoe's last card is out; nothing changes until a card is wanted."""
        self.tally.empty = True
        self.model.emit(Journal("shoe:empty", {"cards_out": self.tally.cards_out,
                                               "state": self.model.state}),
                        OpLog("shoe empty: the round goes on while no card is due"))

    def record_too_few(self, event: EventData) -> None:
        """Callback (irregularity): too few cards left; shuffle the discards, finish the round."""
        model = self.model
        self.tally.empty = True
        model.reshuffle_return = event.transition.source if event.transition else ""
        model.emit(Journal("irregularity:too_few_cards", {"state": model.reshuffle_return}),
                   OpLog("irregularity: too few cards; shuffle the discards", "warning"))

    def record_discards_shuffled(self, event: EventData) -> None:
        """Callback: the discards are shuffled in; the round goes on."""
        self.tally.seen = {}
        self.tally.empty = False
        self.model.emit(Journal("shoe:discards_shuffled", {"resumed": self.model.state}))
        self.model.reshuffle_return = ""

    def record_shoe_finished(self, event: EventData) -> None:
        """Callback: the shoe ran out between rounds; load and shuffle a new one."""
        self.model.emit(Journal("shoe:empty", {"cards_out": self.tally.cards_out}),
                        OpLog("shoe empty: load a new shoe"))

    def record_new_shoe(self, event: EventData) -> None:
        """Callback: the dealer asked for a new shoe between rounds."""
        self.model.emit(Journal("shoe:new", {}), OpLog("new shoe requested"))
