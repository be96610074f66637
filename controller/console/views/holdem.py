"""The Texas Hold'em Bonus table as the dealer's console shows it, and its prompts.

Public information only: the round (`HoldemRound.public`) holds only cards turned up and read
by the camera or keyed at the console, so the dealer's two cards appear once exposed and
read, never before; a folded seat's cards are never read. `controller/console/API.md` is the
contract of the `holdem` object.
"""

from __future__ import annotations

from typing import Any, Final

from controller.console.views.common import CommandCheck, JsonObject
from controller.procedure.families import model_as
from controller.procedure.holdem import HE, HoldemModel
from controller.procedure.shared.table_model import TableModel

_PROMPTS: dict[str, str] = {
    HE.SHUFFLING: "shuffle the deck, then press SHUFFLE DONE",
    HE.DEALING: "deal two cards face down to each seat and the dealer, one at a time from "
                "seat 1, then HOLE CARDS DEALT",
    HE.SETTLEMENT: "settle the round",
    HE.ROUND_OVER: "collect the cards",
}


def holdem_table(table: TableModel) -> dict[str, Any]:
    """The table object's `holdem` part."""
    model = model_as(table, HoldemModel)
    game = model.game
    if game is None:
        return {"stage": None, "asked": None, "held": None, "board": [], "dealer": [],
                "to_decide": [], "seats": {},
                "betting": model.wagers.betting() if model.state == HE.BETTING else {}}
    shown = game.public()
    seats = shown["seats"]
    assert isinstance(seats, dict)
    for number, seat in game.seats.items():
        wagers = seat.wagers
        seats[str(number)]["wagers"] = {"ante": wagers.ante, "bonus": wagers.bonus,
                                        "flop": wagers.flop, "turn": wagers.turn,
                                        "river": wagers.river}
        seats[str(number)]["folded"] = seat.nets is not None and wagers.folded
        nets = seat.nets
        seats[str(number)]["nets"] = None if nets is None else {
            "ante": nets.ante, "bonus": nets.bonus, "flop": nets.flop, "turn": nets.turn,
            "river": nets.river}
    return {"stage": shown["stage"], "asked": shown["asked"], "held": shown["held"],
            "board": shown["board"], "dealer": shown["dealer"],
            "to_decide": game.pending_decisions, "seats": seats, "betting": {}}


def holdem_prompt(table: TableModel) -> str:
    """What the dealer does next at a hold'em table, in words."""
    model = model_as(table, HoldemModel)
    state = model.state
    if state == HE.BETTING:
        return _betting_prompt(model)
    if state == HE.CARD_HOLD:
        return (f"CARD HOLD: {model.hold_reason}; the supervisor checks the cards on the "
                "layout, then turns the key to clear the hold")
    if state in _PROMPTS or model.game is None:
        return _PROMPTS.get(state, state.replace("_", " "))
    return model.game.prompt


def _betting_prompt(model: HoldemModel) -> str:
    unknown = model.wagers.unknown_amounts()
    lone = model.wagers.lone_bonuses()
    antes = model.wagers.antes()
    if lone:
        return ("a bonus needs an ante: seat " + ", ".join(map(str, lone)) + " has chips on "
                "its bonus spot and none on its ante")
    if unknown:
        return ("chips on " + ", ".join(unknown) + " have no amount: enter it (tap the seat, "
                "ANTE or BONUS, the chips, DONE) or set it in [table] sensor_cents; no more "
                "bets waits for it")
    if antes:
        return ("place your bets: antes on seats " + ", ".join(map(str, antes))
                + "; then NO MORE BETS")
    return "place your bets: an ante on a seat (its sensor, or tap the seat), a bonus beside it"


# ---------------------------------------------------------- the commands only hold'em takes


def _wager_refusal(table: TableModel, command: JsonObject) -> str:
    model = model_as(table, HoldemModel)
    return model.wagers.refusal(command) if model.state == HE.BETTING else ""


def _decision_refusal(table: TableModel, command: JsonObject) -> str:
    return model_as(table, HoldemModel).play.decision_refusal(command["command"],
                                                              command["seat"])


def _key_card_refusal(table: TableModel, command: JsonObject) -> str:
    return model_as(table, HoldemModel).play.key_refusal(command["card"])


COMMAND_CHECKS: Final[dict[str, CommandCheck]] = {
    "wager": _wager_refusal, "key_card": _key_card_refusal,
    **dict.fromkeys(("bet", "fold", "check"), _decision_refusal)}
"""The console commands a hold'em table takes and the others refuse, or checks its own way
(`wager`), each with its check here (`controller.console.views.FamilyView.commands`)."""
