"""Settling a blackjack round: every wager through the rules, meter hits counter-clockwise.

`settle_round` (named `settlement.settle_round` in the transition table) settles the rules'
round with `controller.rules.settlement`, pays Blazing 7's meter hits seat by seat from the
dealer's right (R13: a second 100% hit in a round is paid from the reset amount) and checks
the meter's books against the rules' own settlement before the round is recorded.

At a linked table a meter hit is the link group's: the rest of the round settles, and the hit
seat's Blazing 7's wager is recorded as waiting (`"blazing7s": null` in the round record, the
hit in `linked_hits`) until the progressive controller's answer settles it.
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.rules import blackjack as bj
from controller.rules import settlement
from controller.rules.errors import RulesError
from controller.rules.money import MeterShare
from controller.rules.sidebets import SideBet, blazing7s_line

HandOutcome = tuple[int, int, str]
"""(seat, hand number from 1, result: win, blackjack, push, lose or surrender)."""


class SettlementHost(Protocol):
    """What the settlement reads and calls of the blackjack model."""

    setup: Setup
    round: Round
    game: bj.BlackjackRound | None
    ratio_seats: list[int]
    results: list[dict[str, Any]]

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def accepted_seats(self) -> list[int]:
        """Seats whose Blazing 7's wager was accepted at the lock-out."""
        ...


class MeterDesk(Protocol):
    """What the settlement reads and does of the progressive desk."""

    meters: meter_books.Meters
    linked: bool

    def pay(self, seat: int, kind: meter_books.HitKind) -> int:
        """Pay a meter hit (this table's books)."""
        ...

    def hold_hit(self, seat: int, kind: meter_books.HitKind, stake: int,
                 cards: list[str]) -> None:
        """Record a linked hit, whose settlement waits for the controller's answer."""
        ...


class BlackjackSettlement:
    """The settlement of the round in play, its record, and what the dealer announces.

    Args:
        model: The blackjack model, as the settlement sees it.
        progressive: The progressive desk (the meter's books, its hits).

    Attributes:
        outcomes: Each hand's result in the last round settled (for the dealer's prompt).
    """

    def __init__(self, model: SettlementHost, progressive: MeterDesk) -> None:
        self.model = model
        self.progressive = progressive
        self.outcomes: list[HandOutcome] = []

    def settle_round(self, event: EventData) -> None:
        """Callback: settle every wager through the rules; meter hits counter-clockwise."""
        model = self.model
        assert model.game is not None
        desk = self.progressive
        hits = self.meter_hits()
        before = meter_books.rules_state(desk.meters)
        result = settlement.settle(model.game, before if model.accepted_seats() else None)
        if desk.linked:
            self._hold_linked_hits(hits)
        else:
            for seat, kind in hits:
                desk.pay(seat, kind)
            if result.meter is not None and result.meter.amount != desk.meters.amount:
                raise RulesError("the meter books disagree with the rules' settlement")
        record = self.round_record(result)
        if desk.linked and hits:
            waits = {seat for seat, _ in hits}
            for seat in record["seats"]:
                if seat["seat"] in waits:
                    seat["side_bets"][SideBet.BLAZING7S.value] = None
            record["linked_hits"] = [{"seat": seat, "kind": kind.value} for seat, kind in hits]
        self.outcomes = hand_outcomes(model.game, result)
        model.round.settled = True
        model.round.result = record
        model.results.append(record)
        model.emit(Journal("round:settled", record),
                   OpLog(f"round {model.round.number} settled"))

    def _hold_linked_hits(self, hits: list[tuple[int, meter_books.HitKind]]) -> None:
        game = self.model.game
        assert game is not None
        seats = {s.seat: s for s in game.seats if SideBet.BLAZING7S in s.bets.side_bets}
        for seat, kind in hits:
            first, second = seats[seat].first_cards
            self.progressive.hold_hit(seat, kind, seats[seat].bets.side_bets[
                SideBet.BLAZING7S], [str(first), str(second), str(game.dealer[0])])

    def meter_hits(self) -> list[tuple[int, meter_books.HitKind]]:
        """Each seat's Blazing 7's meter hit, counter-clockwise (from the dealer's right)."""
        game = self.model.game
        assert game is not None
        pays = self.model.setup.config.paytables.blazing7s
        hits = []
        for seat in sorted(game.seats, key=lambda s: s.seat, reverse=True):
            if SideBet.BLAZING7S not in seat.bets.side_bets:
                continue
            line = blazing7s_line(seat.first_cards[0], seat.first_cards[1], game.dealer[0])
            pay = pays.pay(line) if line else None
            if isinstance(pay, MeterShare):
                hits.append((seat.seat, meter_books.kind_of(pay)))
        return hits

    def round_record(self, result: settlement.Settlement) -> dict[str, Any]:
        """The settled round as journalled and printed (`simulate --json`)."""
        model = self.model
        game = model.game
        assert game is not None
        ratio = set(model.ratio_seats)
        seats = [{"seat": s.seat,
                  "hands": [{"cards": [str(c) for c in h.cards],
                             "net": None if s.seat in ratio else h.net} for h in s.hands],
                  "side_bets": {str(k): v for k, v in s.side_bets.items()}}
                 for s in result.seats]
        return {"round": model.round.number, "dealer": [str(c) for c in game.dealer],
                "peeked": game.peeked, "dealer_blackjack": game.dealer_blackjack,
                "seats": seats, "meter": self.progressive.meters.amount}


def hand_outcomes(game: bj.BlackjackRound,
                  result: settlement.Settlement) -> list[HandOutcome]:
    """Each settled hand's result, as the dealer announces it."""
    found = []
    for state, seat in zip(game.seats, result.seats, strict=True):
        for number, (hand, settled) in enumerate(zip(state.hands, seat.hands, strict=True), 1):
            found.append((seat.seat, number, hand_result(hand, settled.net)))
    return found


def hand_result(hand: bj.Hand, net: int) -> str:
    """win, blackjack, push, lose or surrender (even money is a win)."""
    if hand.surrendered:
        return "surrender"
    if net == 0:
        return "push"
    if net < 0:
        return "lose"
    natural = hand.blackjack and not hand.from_split and not hand.even_money
    return "blackjack" if natural else "win"
