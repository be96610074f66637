"""One round of Texas Hold'em Bonus as pure state: the camera's cards, the seats' decisions.

The deck is dealt by hand; no shoe reads it. The overhead camera reads each card only when
it is turned up in its area (`Area`): the flop, the turn, the river, the dealer's two cards
once the dealer exposes them, and each player's two cards at the showdown, one seat at a
time from the dealer's right. Burn cards and face-down hole cards are never read, so the
round holds no hidden card a public output could leak: a card the camera sees in an area
before its time is refused unread (`NotRead`), never stored.

* A card the camera did not confirm is asked for (`asked`): the dealer confirms the
  camera's reading (`confirm`) or keys the card (`key`); either is marked keyed.
* A card already seen this round, or one the deck cannot hold, stops the round (`held`)
  until the supervisor's key clears it (`clear`); the offending reading is dropped.
* Settlement is `controller.rules.holdem`'s, in integer cents, seat by seat as each hand
  is exposed; the Bonus by the posted table (`HoldemBonusPays`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from controller.odds.holdem import holdem_bonus_line
from controller.odds.poker_rank import best_hand
from controller.rules.cards import Card, CardError
from controller.rules.errors import RulesError
from controller.rules.holdem import (
    HoldemNets,
    HoldemWagers,
    settle_fold,
    settle_showdown,
    showdown_order,
)
from controller.rules.paytables import HoldemBonusPays

DEFAULT_PAYS: Final = HoldemBonusPays()
"""The posted Bonus table when the table file is silent."""


class HoldemStage(StrEnum):
    """Where the round stands; each names what it waits for."""

    DEAL = "deal"                   # hole cards being dealt face down
    PLAY_OR_FOLD = "play_or_fold"   # each seat: bet the ante's amount, or fold
    FLOP = "flop"                   # three cards turned up in the flop area
    TURN_BET = "turn_bet"           # each seat still in: bet or check
    TURN = "turn"
    RIVER_BET = "river_bet"
    RIVER = "river"
    DEALER = "dealer"               # the dealer's two cards exposed
    SHOWDOWN = "showdown"           # each seat's two cards, from the dealer's right
    COMPLETE = "complete"


class Area(StrEnum):
    """The camera's card areas on the layout (a seat's area is `seat`, with its number)."""

    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    DEALER = "dealer"
    SEAT = "seat"


_AREA_OF: Final = {HoldemStage.FLOP: Area.FLOP, HoldemStage.TURN: Area.TURN,
                   HoldemStage.RIVER: Area.RIVER, HoldemStage.DEALER: Area.DEALER,
                   HoldemStage.SHOWDOWN: Area.SEAT}
_DECISIONS: Final = {HoldemStage.PLAY_OR_FOLD: HoldemStage.FLOP,
                     HoldemStage.TURN_BET: HoldemStage.TURN,
                     HoldemStage.RIVER_BET: HoldemStage.RIVER}
"""Each decision stage and the card stage after it."""
_PROMPTS: Final = {HoldemStage.DEAL: "deal two cards to each seat and the dealer, face down",
                   HoldemStage.FLOP: "burn, turn up the flop",
                   HoldemStage.TURN: "burn, turn up the turn card",
                   HoldemStage.RIVER: "burn, turn up the river card",
                   HoldemStage.DEALER: "expose the dealer's two cards",
                   HoldemStage.COMPLETE: "round complete: collect the cards"}
_FULL: Final = {Area.FLOP: 3, Area.TURN: 4, Area.RIVER: 5, Area.DEALER: 2}
"""How many cards the board (or the dealer's hand) holds once the area's cards are read."""
_NEXT: Final = {HoldemStage.FLOP: HoldemStage.TURN_BET, HoldemStage.TURN: HoldemStage.RIVER_BET,
                HoldemStage.RIVER: HoldemStage.DEALER, HoldemStage.DEALER: HoldemStage.SHOWDOWN}


@dataclass(frozen=True, slots=True)
class NotRead:
    """A reading the round did not take (wrong area or time): why, for the operator's log."""

    reason: str


@dataclass(frozen=True, slots=True)
class Ask:
    """A card the camera did not confirm: which area (and seat) it is for, and its guess."""

    area: Area
    seat: int | None
    guess: Card | None


@dataclass(slots=True)
class Seat:
    """One seat's wagers, its cards once exposed, and its nets once settled."""

    wagers: HoldemWagers
    cards: list[Card] = field(default_factory=list)
    nets: HoldemNets | None = None


@dataclass(slots=True)
class HoldemRound:
    """The round: seats, board, dealer's exposed cards, what is asked, whether it is held.

    Attributes:
        seats: every seat with an ante, by number.
        stage: what the round waits for.
        board: the community cards read so far.
        dealer: the dealer's cards, once exposed.
        asked: the card the console asks the dealer to confirm or key, or None.
        held: why the supervisor must clear the round, or None.
        keyed: every card entered at the console (confirmed or keyed), in order.
    """

    seats: dict[int, Seat]
    pays: HoldemBonusPays = DEFAULT_PAYS
    stage: HoldemStage = HoldemStage.DEAL
    board: list[Card] = field(default_factory=list)
    dealer: list[Card] = field(default_factory=list)
    asked: Ask | None = None
    held: str | None = None
    keyed: list[Card] = field(default_factory=list)
    _decided: set[int] = field(default_factory=set)

    @classmethod
    def start(cls, antes: dict[int, tuple[int, int]],
              pays: HoldemBonusPays = DEFAULT_PAYS) -> HoldemRound:
        """A round for seats `{seat: (ante, bonus)}` in cents (the sensors' amounts)."""
        if not antes:
            raise RulesError("hold'em: no seat holds an ante")
        return cls({seat: Seat(HoldemWagers(ante, bonus))
                    for seat, (ante, bonus) in sorted(antes.items())}, pays)

    # ------------------------------------------------------------------ the dealer's steps
    def dealt(self) -> None:
        """The dealer has dealt every hole card face down: the seats decide."""
        self._expect(HoldemStage.DEAL)
        self.stage = HoldemStage.PLAY_OR_FOLD

    def decide(self, seat: int, *, bet: bool) -> None:
        """A seat's decision: before the flop bet or fold; after the flop or turn bet or check."""
        self._expect(HoldemStage.PLAY_OR_FOLD, HoldemStage.TURN_BET, HoldemStage.RIVER_BET)
        if seat not in self.pending_decisions:
            raise RulesError(f"hold'em: seat {seat} has no decision to make now")
        self.seats[seat].wagers = self._with_bet(self.seats[seat].wagers, bet)
        if self.stage is HoldemStage.PLAY_OR_FOLD and not bet:
            self.seats[seat].nets = settle_fold(self.seats[seat].wagers)
        self._decided.add(seat)
        if not self.pending_decisions:
            self._decided.clear()
            self.stage = _DECISIONS[self.stage]
            if self.stage is HoldemStage.FLOP and not self.in_play:
                self.stage = HoldemStage.COMPLETE

    def _with_bet(self, wagers: HoldemWagers, bet: bool) -> HoldemWagers:
        amount = wagers.ante if bet else 0
        if self.stage is HoldemStage.PLAY_OR_FOLD:
            return HoldemWagers(wagers.ante, wagers.bonus, amount)
        if self.stage is HoldemStage.TURN_BET:
            return HoldemWagers(wagers.ante, wagers.bonus, wagers.flop, amount)
        return HoldemWagers(wagers.ante, wagers.bonus, wagers.flop, wagers.turn, amount)

    # ------------------------------------------------------------------ the camera's cards
    def seen(self, area: Area, card: Card | None, *, confirmed: bool,
             seat: int | None = None) -> NotRead | None:
        """The camera's reading of a card turned up in `area` (None: a card it cannot read).

        Returns:
            `NotRead` when the reading is for no card the round waits for (it is dropped).
        """
        refused = self._refuse(area, seat)
        if refused is not None:
            return refused
        if card is None or not confirmed:
            self.asked = Ask(area, seat, card)
            return None
        self._take(card)
        return None

    def confirm(self) -> None:
        """The dealer confirms the camera's reading of the asked card (journalled keyed)."""
        if self.asked is None or self.asked.guess is None:
            raise RulesError("hold'em: no camera reading waits for confirmation; key the card")
        self.key(str(self.asked.guess))

    def key(self, code: str) -> None:
        """The dealer keys the asked card at the console.

        Raises:
            RulesError: no card is asked for, or the code is no card.
        """
        if self.asked is None:
            raise RulesError("hold'em: no card is asked for")
        try:
            card = Card.parse(code)
        except CardError as err:
            raise RulesError(f"hold'em: {err}") from err
        self.asked = None
        self.keyed.append(card)
        self._take(card)

    def clear(self) -> None:
        """The supervisor's key clears a hold; the offending card is to be read again."""
        if self.held is None:
            raise RulesError("hold'em: the round is not held")
        self.held = None

    # ------------------------------------------------------------------ views
    @property
    def in_play(self) -> list[int]:
        """Seats that have not folded (nor, at the showdown, been settled)."""
        return [n for n, seat in self.seats.items() if seat.nets is None]

    @property
    def pending_decisions(self) -> list[int]:
        """Seats that still owe the current decision."""
        if self.stage not in _DECISIONS:
            return []
        return [n for n in self.in_play if n not in self._decided]

    @property
    def showdown_seat(self) -> int | None:
        """The seat whose hand the dealer exposes next (from the dealer's right)."""
        if self.stage is not HoldemStage.SHOWDOWN:
            return None
        return showdown_order(self.in_play)[0]

    def seen_cards(self) -> list[Card]:
        """Every card read this round."""
        return [*self.board, *self.dealer, *(c for s in self.seats.values() for c in s.cards)]

    @property
    def prompt(self) -> str:
        """What the dealer does next, in the console's words."""
        if self.held is not None:
            return f"HOLD: {self.held}; the supervisor's key clears it"
        if self.asked is not None:
            where = f"seat {self.asked.seat}" if self.asked.seat else self.asked.area.value
            guess = f" (camera: {self.asked.guess}?)" if self.asked.guess else ""
            return f"confirm or key the {where} card{guess}"
        if self.stage in _DECISIONS:
            action = "bet or fold" if self.stage is HoldemStage.PLAY_OR_FOLD else "bet or check"
            return f"{action}: seat {', '.join(map(str, self.pending_decisions))}"
        if self.stage is HoldemStage.SHOWDOWN:
            return f"expose seat {self.showdown_seat}'s cards"
        return _PROMPTS[self.stage]

    def public(self) -> dict[str, object]:
        """What the console may show: only cards turned up and read, never a hidden one."""
        return {
            "stage": self.stage.value, "prompt": self.prompt, "held": self.held,
            "asked": None if self.asked is None else {
                "area": self.asked.area.value, "seat": self.asked.seat,
                "guess": None if self.asked.guess is None else str(self.asked.guess)},
            "board": [str(card) for card in self.board],
            "dealer": [str(card) for card in self.dealer],
            "seats": {str(n): {"cards": [str(card) for card in seat.cards],
                               "net": None if seat.nets is None else seat.nets.total}
                      for n, seat in self.seats.items()},
        }

    # ------------------------------------------------------------------ internals
    def _expect(self, *stages: HoldemStage) -> None:
        if self.held is not None:
            raise RulesError(f"hold'em: the round is held ({self.held}): the supervisor's key "
                             "clears it")
        if self.stage not in stages:
            raise RulesError(f"hold'em: not now: the round waits for {self.stage.value}")

    def _refuse(self, area: Area, seat: int | None) -> NotRead | None:
        if self.held is not None:
            return NotRead(f"held ({self.held}): no card is read until the key clears it")
        wanted = _AREA_OF.get(self.stage)
        if wanted is not area:
            return NotRead(f"a card in the {area.value} area while the round waits for "
                           f"{self.stage.value}: not read")
        if area is Area.SEAT and seat != self.showdown_seat:
            return NotRead(f"seat {seat}'s cards before seat {self.showdown_seat}'s: not read")
        if self.asked is not None:
            return NotRead("a card is asked for at the console: confirm or key it first")
        return None

    def _take(self, card: Card) -> None:
        if card in self.seen_cards():
            self.held = f"{card} seen twice in one round: one deck holds one {card}"
            return
        area = _AREA_OF[self.stage]
        if area is Area.SEAT:
            self._seat_card(card)
            return
        (self.dealer if area is Area.DEALER else self.board).append(card)
        if len(self.dealer if area is Area.DEALER else self.board) == _FULL[area]:
            self.stage = _NEXT[self.stage]
            if self.stage is HoldemStage.SHOWDOWN and not self.in_play:
                self.stage = HoldemStage.COMPLETE

    def _seat_card(self, card: Card) -> None:
        number = self.showdown_seat
        assert number is not None  # _refuse let only the showdown seat's card through
        seat = self.seats[number]
        seat.cards.append(card)
        if len(seat.cards) < 2:
            return
        line = holdem_bonus_line((seat.cards[0], seat.cards[1]),
                                 (self.dealer[0], self.dealer[1]))
        odds = None if line is None else self.pays.odds(line)
        seat.nets = settle_showdown(seat.wagers, best_hand([*seat.cards, *self.board]),
                                    best_hand([*self.dealer, *self.board]), odds)
        if not self.in_play:
            self.stage = HoldemStage.COMPLETE
