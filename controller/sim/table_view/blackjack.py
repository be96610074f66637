"""The blackjack family's rows in the live view (Spanish 21 deals like blackjack).

The dealer's hand is read from the cards lying on the layout (the model's `camera_layout`),
a face-down card as `??`: the hole card is never read before it is turned (R5). The seats
show each hand's cards, total, stake and the last decision the view remembers (`Memory`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from controller.procedure.blackjack import BlackjackModel
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj
from controller.rules.cards import Card
from controller.rules.hands import DEALER, Game, Position, hand_value
from controller.rules.sidebets import SideBet, Spanish21Bonus, is_super_bonus, spanish21_bonus
from controller.sim.table_view.snapshot import HIDDEN, HandRow, SeatRow, SideRow, players_net
from controller.sim.table_view.text import signed_cents

if TYPE_CHECKING:
    from controller.sim.table_view.memory import Memory

SHOWN_LAMPS: Final = ("no_more_bets", "blackjack", "insurance", "dealer_draw", "dealer_stand",
                      "shuffle", "fault")
"""The table-wide lamps the view shows, in their order."""
DECISION_LABELS: Final = {"insure": "insured", "even_money": "even money"}

BONUS_LABELS: Final = {
    Spanish21Bonus.FIVE_CARD_21: "5-card 21", Spanish21Bonus.SIX_CARD_21: "6-card 21",
    Spanish21Bonus.SEVEN_CARD_21: "7-card 21", Spanish21Bonus.MIXED_678: "6-7-8",
    Spanish21Bonus.SUITED_678: "suited 6-7-8", Spanish21Bonus.SPADES_678: "spaded 6-7-8",
    Spanish21Bonus.MIXED_777: "7-7-7", Spanish21Bonus.SUITED_777: "suited 7-7-7",
    Spanish21Bonus.SPADES_777: "spaded 7-7-7",
}


def blackjack_rows(model: BlackjackModel, memory: Memory) -> tuple[tuple[SideRow, ...],
                                                                   tuple[SeatRow, ...], str]:
    """The dealer's row, the seats' rows and the result line of a blackjack table."""
    game = model.game
    if game is None:
        return (SideRow("DEALER"),), _bets_placed(model), ""
    layout, _ = model.camera_layout()
    due = model.card_due_to()
    record = model.round.result if model.round.settled else {}
    settled = {s["seat"]: s for s in record.get("seats", [])}
    held = _held_face_up(model)
    seats = tuple(_seat(model, game, seat, held.get(seat.seat, ()), due, memory,
                        settled.get(seat.seat)) for seat in game.seats)
    result = f"players net {signed_cents(players_net(record))}" if record else ""
    return (_dealer(game, layout.get("dealer", []), due),), seats, result


def _bets_placed(model: TableModel) -> tuple[SeatRow, ...]:
    """Wagers on the layout while bets are open (Blazing 7's: the chip on its sensor)."""
    stake = model.setup.config.paytables.blazing7s.wager
    chips = (_sensor_seat(name) for name, on in model.wagers.sensors.items() if on)
    seats = set(model.wagers.pending) | {seat for seat in chips if seat is not None}
    rows = []
    for seat in sorted(seats):
        wagers = dict(model.wagers.pending.get(seat, {}))
        if model.wagers.sensors.get(f"seat{seat}.{SideBet.BLAZING7S}"):
            wagers[SideBet.BLAZING7S] = stake
        rows.append(SeatRow(seat, tuple(wagers.items())))
    return tuple(rows)


def _sensor_seat(sensor: str) -> int | None:
    """The seat of a bet sensor named `seat<n>.<bet>` (None for any other name)."""
    seat = sensor.partition(".")[0].removeprefix("seat")
    return int(seat) if seat.isdigit() else None


def _held_face_up(model: BlackjackModel) -> dict[int, tuple[str, ...]]:
    """Cards of the initial deal already on a seat but not yet taken by the rules' order."""
    held: dict[int, tuple[str, ...]] = {}
    for (seat, _hand, hole), card in model.deal.held:
        if seat != DEALER and not hole:
            held[seat] = (*held.get(seat, ()), str(card))
    return held


def _dealer(game: bj.BlackjackRound, lying: Sequence[str | None],
            due: Position | None) -> SideRow:
    """The dealer's cards as they lie: face-down ones (the hole card) as `??` (R5)."""
    cards = tuple(HIDDEN if card is None else card for card in lying)
    face_up = [Card.parse(card) for card in cards if card != HIDDEN]
    if HIDDEN in cards or not game.hole_revealed:
        total = f"showing {_points(face_up[0])}" if face_up else ""
    else:
        total = _total(face_up, blackjack_possible=True)
    note = "no blackjack" if game.peeked and not game.hole_revealed else ""
    marker = "+" if due is not None and due.is_dealer else ""
    return SideRow("DEALER", cards, total, note, marker)


def _points(card: Card) -> str:
    return "A" if card.rank.points == 1 else str(card.rank.points)


def _total(cards: Sequence[Card], *, blackjack_possible: bool) -> str:
    if not cards:
        return ""
    value = hand_value(cards)
    if value.total > 21:
        return f"bust {value.total}"
    if blackjack_possible and len(cards) == 2 and value.total == 21:
        return "blackjack"
    return f"{'soft' if value.soft else 'hard'} {value.total}"


def _seat(model: BlackjackModel, game: bj.BlackjackRound, seat: bj.SeatState,
          held: tuple[str, ...], due: Position | None, memory: Memory,
          record: dict[str, Any] | None) -> SeatRow:
    wagers = dict(seat.bets.side_bets)
    if seat.insurance:
        wagers[SideBet.INSURANCE] = seat.insurance
    hands = []
    turn = model.decision_due()
    for index, hand in enumerate(seat.hands):
        cards = (*(str(c) for c in hand.cards), *(held if index == 0 else ()))
        marker = (">" if turn == (seat.seat, index) else
                  "+" if due is not None and (due.seat, due.hand) == (seat.seat, index) else "")
        net = record["hands"][index]["net"] if record else None
        hands.append(HandRow(cards, _hand_total(game, hand, cards), hand.at_risk,
                             memory.decisions.get((seat.seat, index), ""), net, marker))
    nets = tuple(record["side_bets"].items()) if record else None
    asked = "?" if model.insurer.seat_asked() == seat.seat else ""
    return SeatRow(seat.seat, tuple(wagers.items()), tuple(hands), nets, asked)


def _hand_total(game: bj.BlackjackRound, hand: bj.Hand, codes: Sequence[str]) -> str:
    cards = [Card.parse(code) for code in codes]
    total = _total(cards, blackjack_possible=not hand.from_split)
    if game.rules.game is not Game.SPANISH21 or not total.endswith(" 21"):
        return total
    bonus = spanish21_bonus(cards)
    eligible = not hand.doubled and (not hand.from_split or game.rules.bonuses_after_split)
    if bonus is not None and eligible:
        total = f"{total} bonus {BONUS_LABELS[bonus]}"
    up = game.up_card
    if up is not None and is_super_bonus(cards, up):
        total = f"{total} SUPER BONUS"
    return total


def accepted(model: BlackjackModel) -> int | None:
    """Blazing 7's wagers accepted at no more bets (None before the lock-out)."""
    if model.game is None:
        return None
    return len(model.accepted_seats())


def note_decisions(memory: Memory, model: BlackjackModel) -> None:
    """Note in `memory` the decisions taken since the last step (the hand in turn decided)."""
    if model.round.number != memory.round:
        memory.round, memory.decisions, memory.turn = model.round.number, {}, None
        memory.steps = memory.answered = 0
    new_steps = [step for step in model.steps[memory.steps:] if step[0] != "card"]
    act = next((step for step in new_steps if step[0] == "act"), None)
    if act is not None and memory.turn is not None:
        memory.decisions[memory.turn] = str(act[1])
    for seat in model.insurer.answered[memory.answered:]:
        taken = next((s[0] for s in new_steps if s[0] in DECISION_LABELS and s[1] == seat),
                     None)
        memory.decisions[(seat, 0)] = DECISION_LABELS.get(taken or "", "no insurance")
    memory.steps, memory.answered = len(model.steps), len(model.insurer.answered)
    memory.turn = model.decision_due()
