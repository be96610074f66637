"""Blackjack and Spanish 21 as the dealer's console shows them: seats, dealer, next card, words.

Public information only: the dealer's cards are the model's public ones (the hole card only
once it is turned over), how many lie face down, and the peek's one bit once the peek has
happened (R5). A seat whose main wager is not known has `main` and every `net` null, and is
settled by ratio. The settled round (`settled_round`) is the last round's record, shown until
the next round begins (`controller.console.settled`).
"""

from __future__ import annotations

from typing import Any, Final

from controller.console.settled import settled_round_shown
from controller.console.views.common import CommandCheck, JsonObject, no_dealer, wager_seats
from controller.procedure.blackjack import BJ, BlackjackModel
from controller.procedure.families import model_as
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj
from controller.rules.cards import Card
from controller.rules.hands import hand_value
from controller.rules.money import format_cents
from controller.rules.sidebets import SideBet


def next_card(table: TableModel) -> JsonObject | None:
    """Who the next card out of the shoe goes to (hands numbered from 1)."""
    model = model_as(table, BlackjackModel)
    due = model.card_due_to()
    if due is None:
        turn = model.decision_due()
        if turn is not None and model.decisions.card_is_a_hit_now():
            return {"to": "seat", "seat": turn[0], "hand": turn[1] + 1}
        if model.state == BJ.BETTING and model.wagers.seats_in_play():
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
    """The dealer's public cards, their total, the cards face down, and the peek's bit.

    `face_down` counts the hole card before it is turned over (its place, never its value);
    `blackjack` is the peek's one bit once the peek has happened.
    """
    model = model_as(table, BlackjackModel)
    if model.game is None:
        return no_dealer()
    game = model.game
    public = model.dealer_public_cards()
    value = hand_value([Card.parse(code) for code in public])
    return {"cards": public, "total": value.total if public else None, "soft": value.soft,
            "face_down": len(game.dealer) - len(public),
            "blackjack": game.dealer_blackjack if game.peeked else None}


def turn(table: TableModel) -> JsonObject | None:
    """The hand due to decide (hands numbered from 1), or None."""
    due = model_as(table, BlackjackModel).decision_due()
    return None if due is None else {"seat": due[0], "hand": due[1] + 1}


def settled_round(table: TableModel) -> JsonObject | None:
    """The settled round while the console keeps it on screen (None otherwise).

    Its dealer's cards and total, and each seat's hands (cards, total, result, net and what
    the dealer does about it), each side wager's result apart, and the seat's net over all.
    """
    model = model_as(table, BlackjackModel)
    if settled_round_shown(model) is None:
        return None
    record = model.results[-1]
    results = {(s, n): r for s, n, r in model.settlement.outcomes}
    dealer_cards = [Card.parse(code) for code in record["dealer"]]
    value = hand_value(dealer_cards)
    return {"round": record["round"], "pay": settlement_words(model),
            "dealer": {"cards": list(record["dealer"]), "total": value.total,
                       "soft": value.soft, "bust": value.busted,
                       "blackjack": bool(record["dealer_blackjack"])},
            "seats": [_settled_seat(model, seat, results) for seat in record["seats"]]}


def _settled_seat(model: BlackjackModel, seat: dict[str, Any],
                  results: dict[tuple[int, int], str]) -> JsonObject:
    hands = []
    for number, hand in enumerate(seat["hands"], 1):
        value = hand_value([Card.parse(code) for code in hand["cards"]])
        result = results.get((seat["seat"], number), "")
        hands.append({"cards": list(hand["cards"]), "total": value.total, "soft": value.soft,
                      "result": result, "net": hand["net"],
                      "pay": _pay_words(model, result, hand["net"])})
    sides = [{"bet": name, "name": SIDE_NAMES.get(name, name.replace("-", " ").upper()),
              "result": None if net is None else _side_result(net), "net": net,
              "pay": "WAITS FOR THE PROGRESSIVE" if net is None else _money_words(net)}
             for name, net in seat["side_bets"].items()]
    nets = [h["net"] for h in seat["hands"]] + [s["net"] for s in sides]
    return {"seat": seat["seat"], "hands": hands, "side_bets": sides,
            "net": None if None in nets else sum(nets)}


SIDE_NAMES = {SideBet.PERFECT_PAIRS.value: "PERFECT PAIRS",
              SideBet.LUCKY_LADIES.value: "LUCKY LADIES",
              SideBet.MATCH_THE_DEALER.value: "MATCH THE DEALER",
              SideBet.BLAZING7S.value: "BLAZING 7'S", SideBet.AXMAN.value: "AXMAN",
              SideBet.INSURANCE.value: "INSURANCE", SideBet.SUPER_BONUS.value: "SUPER BONUS",
              SideBet.ENVY.value: "ENVY"}
"""Each side wager as the console names it."""


def _side_result(net: int) -> str:
    return "win" if net > 0 else "lose" if net < 0 else "push"


def _money_words(net: int) -> str:
    if net > 0:
        return f"PAY {format_cents(net)}"
    return f"COLLECT {format_cents(-net)}" if net < 0 else "PUSH"


def _pay_words(model: BlackjackModel, result: str, net: int | None) -> str:
    """What the dealer does about one settled hand: PAY 15.00, COLLECT 10.00, PUSH..."""
    if result == "push":
        return "PUSH"
    if net is None:  # settled by ratio: the amount is not known
        pays = model.rules_table.rules.blackjack_pays
        return {"win": "PAY 1:1", "blackjack": f"PAY {pays.win}:{pays.per}",
                "lose": "COLLECT", "surrender": "TAKE HALF"}.get(result, "")
    if result == "surrender":
        return f"TAKE HALF: {format_cents(-net)}"
    return _money_words(net)


def insurance(table: TableModel) -> list[int]:
    """The seats still to answer insurance or even money."""
    return model_as(table, BlackjackModel).insurer.seats_to_answer()


def blackjack_prompt(table: TableModel) -> str:
    """What the dealer does next at blackjack or Spanish 21, in words."""
    model = model_as(table, BlackjackModel)
    state = model.state
    if state == BJ.BETTING:
        return _betting_prompt(model)
    due = model.card_due_to()
    if due is not None:
        if due.is_dealer:
            return "draw for the dealer" if state == BJ.DEALER else (
                "deal the dealer's hole card face down" if due.hole else "deal the dealer")
        return f"deal seat {due.seat}" + (f" hand {due.hand + 1}" if due.hand else "")
    if state == BJ.INSURANCE:
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
    return f"progressive closed: {closed}; {head}" if closed else head


def pay_words(table: TableModel) -> str:
    """Whom to pay, while the settled round is on screen ("" once the next round began)."""
    model = model_as(table, BlackjackModel)
    return settlement_words(model) if settled_round_shown(model) is not None else ""


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


# ------------------------------------------------------- the commands only blackjack takes


def _insurance_refusal(table: TableModel, command: JsonObject) -> str:
    model = model_as(table, BlackjackModel)
    if model.state != BJ.INSURANCE:
        return "insurance is not open"
    waiting = model.insurer.seats_to_answer()
    if command["seat"] not in waiting:
        return (f"seat {command['seat']} is not asked about insurance (seats to answer: "
                f"{', '.join(map(str, waiting)) or 'none'})")
    return ""


def _decision_refusal(table: TableModel, command: JsonObject) -> str:
    model = model_as(table, BlackjackModel)
    due = model.decision_due()
    if due is None:
        return "no hand is due to act"
    seat = command.get("seat")
    if seat is not None and seat != due[0]:
        return f"seat {seat} is not due to act: seat {due[0]} hand {due[1] + 1} is"
    return ""


def _seat_refusal(table: TableModel, command: JsonObject) -> str:
    return model_as(table, BlackjackModel).wagers.seat_refusal(command)


COMMAND_CHECKS: Final[dict[str, CommandCheck]] = {
    "insurance": _insurance_refusal, "seat": _seat_refusal,
    **dict.fromkeys(("stand", "hit", "double", "split", "surrender", "rescue"),
                    _decision_refusal)}
"""The console commands a blackjack (or Spanish 21) table takes and the others refuse, each
with its check here (`controller.console.views.FamilyView.commands`)."""
