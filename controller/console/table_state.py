"""The table as the dealer's console shows it: `GET /api/table`, from public information only.

Built on the loop thread (the only thread that reads the model) after every commit. Nothing
here reads the hole card: the dealer's cards are the model's public ones (the hole card only
once it is turned over) and the peek is its one bit, once the peek has happened (R5).
Amounts are integer cents; a seat whose main wager is not known has `main` and every `net`
null, and is settled by ratio (`result`).
"""

from __future__ import annotations

from typing import Any

from controller.console.community_view import community_table
from controller.console.holdem_view import holdem_table
from controller.console.prompts import faults, prompt
from controller.console.roulette_view import roulette_table
from controller.procedure.baccarat.model import BaccaratModel
from controller.procedure.blackjack.model import BlackjackModel
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj
from controller.rules.hands import hand_value
from controller.rules.sidebets import SideBet

JsonObject = dict[str, Any]


def table_state(model: TableModel, accepting: list[str], display: str) -> JsonObject:
    """The table object of the console API (see API.md beside this module)."""
    table = model.setup.config.table
    return {
        "table": table.name, "game": table.game.value, "phase": model.state,
        "round": model.round.number, "prompt": prompt(model), "display": display,
        "accepting": accepting, "next_card": next_card(model), "seats": seats(model),
        "dealer": dealer(model), "meter": meter(model), "faults": faults(model),
        "insurance": (model.insurer.seats_to_answer()
                      if isinstance(model, BlackjackModel) else []),
        "last_round": model.results[-1] if model.results else None,
        "roulette": roulette_table(model),
        "holdem": holdem_table(model),
        "community": community_table(model),
    }


def meter(model: TableModel) -> int | None:
    """The progressive amount, at a table that offers the progressive wager."""
    if SideBet.BLAZING7S not in model.setup.config.table.side_bets:
        return None
    return model.progressive.meters.amount


def next_card(model: TableModel) -> JsonObject | None:
    """Who the next card out of the shoe goes to (hands numbered from 1)."""
    if model.state == "burn":
        return {"to": "burn", "seat": None, "hand": None}
    if not isinstance(model, BlackjackModel):
        return _baccarat_next(model)
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


def _baccarat_next(model: TableModel) -> JsonObject | None:
    if isinstance(model, BaccaratModel):
        side = model.card_due_to()
        if side is not None:
            return {"to": side.value, "seat": None, "hand": None}
    return None


def seats(model: TableModel) -> list[JsonObject]:
    """Every seat of the table: in play or not, its main wager, its hands."""
    count = model.setup.config.table.seats
    if isinstance(model, BlackjackModel) and model.game is not None:
        playing = {s.seat: s for s in model.game.seats}
        record = {s["seat"]: s for s in (model.round.result or {}).get("seats", [])}
        return [_playing_seat(model, playing[n], record.get(n)) if n in playing
                else _idle_seat(n) for n in range(1, count + 1)]
    in_play = model.wagers.seats_in_play()
    return [{"seat": n, "in_play": n in in_play, "main": in_play.get(n), "hands": []}
            for n in range(1, count + 1)]


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


def dealer(model: TableModel) -> JsonObject:
    """The dealer's public cards, and the peek's one bit once the peek has happened."""
    if not isinstance(model, BlackjackModel) or model.game is None:
        return {"cards": [], "blackjack": None}
    game = model.game
    return {"cards": model.dealer_public_cards(),
            "blackjack": game.dealer_blackjack if game.peeked else None}
