"""Blackjack and Spanish 21 as the dealer's console shows them: seats, dealer, next card, words.

Public information only: the dealer's cards are the model's public ones (the hole card only
once it is turned over) and the peek is its one bit, once the peek has happened (R5). A seat
whose main wager is not known has `main` and every `net` null, and is settled by ratio.
"""

from __future__ import annotations

from controller.console.views.common import JsonObject, no_dealer, wager_seats
from controller.procedure.blackjack.model import BlackjackModel
from controller.procedure.families import model_as
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj
from controller.rules.hands import hand_value


def next_card(table: TableModel) -> JsonObject | None:
    """Who the next card out of the shoe goes to (hands numbered from 1)."""
    model = model_as(table, BlackjackModel)
    due = model.card_due_to()
    if due is None:
        turn = model.decision_due()
        if turn is not None and model.decisions.card_is_a_hit_now():
            return {"to": "seat", "seat": turn[0], "hand": turn[1] + 1}
        if model.state == "betting" and model.wagers.seats_in_play():
            first = next(iter(model.wagers.seats_in_play()))
            return {"to": "seat", "seat": first, "hand": 1}
        return None
    if due.is_dealer:
        return {"to": "dealer", "seat": None, "hand": None}
    return {"to": "seat", "seat": due.seat, "hand": due.hand + 1}


def seats(table: TableModel) -> list[JsonObject]:
    """Every seat of the table: in play or not, its main wager, its hands."""
    model = model_as(table, BlackjackModel)
    if model.game is None:
        return wager_seats(model)
    count = model.setup.config.table.seats
    playing = {s.seat: s for s in model.game.seats}
    record = {s["seat"]: s for s in (model.round.result or {}).get("seats", [])}
    return [_playing_seat(model, playing[n], record.get(n)) if n in playing
            else _idle_seat(n) for n in range(1, count + 1)]


def _idle_seat(number: int) -> JsonObject:
    return {"seat": number, "in_play": False, "main": None, "hands": []}


def _playing_seat(model: BlackjackModel, seat: bj.SeatState,
                  record: JsonObject | None) -> JsonObject:
    ratio = seat.seat in model.ratio_seats
    results = {(s, n): r for s, n, r in model.settlement.outcomes} if record else {}
    hands = []
    for index, hand in enumerate(seat.hands):
        value = hand_value(hand.cards)
        hands.append({"cards": [str(c) for c in hand.cards], "total": value.total,
                      "soft": value.soft, "result": results.get((seat.seat, index + 1)),
                      "net": record["hands"][index]["net"] if record else None})
    return {"seat": seat.seat, "in_play": True, "main": None if ratio else seat.bets.wager,
            "hands": hands}


def dealer(table: TableModel) -> JsonObject:
    """The dealer's public cards, and the peek's one bit once the peek has happened."""
    model = model_as(table, BlackjackModel)
    if model.game is None:
        return no_dealer()
    game = model.game
    return {"cards": model.dealer_public_cards(),
            "blackjack": game.dealer_blackjack if game.peeked else None}


def insurance(table: TableModel) -> list[int]:
    """The seats still to answer insurance or even money."""
    return model_as(table, BlackjackModel).insurer.seats_to_answer()


def blackjack_prompt(table: TableModel) -> str:
    """What the dealer does next at blackjack or Spanish 21, in words."""
    model = model_as(table, BlackjackModel)
    state = model.state
    if state == "betting":
        return _betting_prompt(model)
    due = model.card_due_to()
    if due is not None:
        if due.is_dealer:
            return "draw for the dealer" if state == "dealer" else (
                "deal the dealer's hole card face down" if due.hole else "deal the dealer")
        return f"deal seat {due.seat}" + (f" hand {due.hand + 1}" if due.hand else "")
    if state == "insurance":
        waiting = ", ".join(str(s) for s in model.insurer.seats_to_answer())
        return f"insurance or even money? seats to answer: {waiting}"
    turn = model.decision_due()
    if turn is not None:
        return _decision_prompt(model, turn)
    return state.replace("_", " ")


def _betting_prompt(model: BlackjackModel) -> str:
    playing = model.wagers.seats_in_play()
    head = ("place your bets: seats in play " + ", ".join(str(s) for s in playing)
            + "; NO MORE BETS, or deal the first card") if playing else (
        "place your bets: chips on a seat's spot, or SEAT on the console")
    closed = model.progressive.closed_because() if model.offers_progressive() else ""
    if closed:
        head = f"progressive closed: {closed}; {head}"
    settle = settlement_words(model)
    return f"{settle}; then {head}" if settle else head


def _decision_prompt(model: BlackjackModel, turn: tuple[int, int]) -> str:
    game = model.game
    assert game is not None
    hand = game.seat_state(turn[0]).hands[turn[1]]
    value = hand_value(hand.cards)
    options = ["STAND"]
    actions = bj.legal_actions(game)
    if bj.Action.HIT in actions and not model.decisions.exposed_card_offered():
        options.append("draw a card to hit")
    options += [a.value.upper() for a in (bj.Action.DOUBLE, bj.Action.SPLIT,
                                          bj.Action.SURRENDER, bj.Action.RESCUE)
                if a in actions]
    total = f"{'soft' if value.soft else 'hard'} {value.total}"
    offer = ": an exposed card is offered (HIT takes it)" if (
        model.decisions.exposed_card_offered()) else ""
    return f"seat {turn[0]} hand {turn[1] + 1} ({total}) decides{offer}: " + ", ".join(options)


def settlement_words(model: BlackjackModel) -> str:
    """How the dealer settles the last round's main wagers ("pay seat 2 3:2; collect seat 1")."""
    outcomes = model.settlement.outcomes
    seats_with_splits = {seat for seat, number, _ in outcomes if number > 1}
    pays = model.rules_table.rules.blackjack_pays
    words = []
    for seat, number, result in outcomes:
        name = f"seat {seat}" + (f" hand {number}" if seat in seats_with_splits else "")
        words.append(_RESULT_WORDS[result].format(name=name,
                                                  blackjack=f"{pays.win}:{pays.per}"))
    return "; ".join(words)


_RESULT_WORDS = {"win": "pay {name} 1:1", "blackjack": "pay {name} {blackjack}",
                 "push": "push {name}", "lose": "collect {name}",
                 "surrender": "take half from {name}"}
