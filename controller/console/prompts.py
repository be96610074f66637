"""What the dealer must do next, in words, and what clears each fault.

Everything is said from public information (the hole card is never read here). The words
are the console's `prompt`, each fault's `what_to_do`, and the `what_to_do` of a refused
command; the operational log says the same.
"""

from __future__ import annotations

from controller.console.community_view import community_prompt
from controller.console.holdem_view import holdem_prompt
from controller.console.roulette_view import roulette_prompt
from controller.procedure.baccarat.model import BaccaratModel
from controller.procedure.blackjack.model import BlackjackModel
from controller.procedure.community.model import CommunityModel
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.holdem.model import HoldemModel
from controller.procedure.roulette.model import RouletteModel
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj
from controller.rules.hands import hand_value

KEY = "then turn the supervisor key to clear the hold"

FAULT_ADVICE = {
    "jam": f"clear the jam in the shoe, {KEY}",
    "lid_open": f"close the shoe's lid, {KEY}",
    "cards_missing": f"cards left the shoe unrecorded: the supervisor checks the shoe, {KEY}",
    "impossible_card": f"the shoe read a card it cannot hold: the supervisor checks the shoe, "
                       f"{KEY}",
    "unreadable_card": f"a card could not be read: the supervisor checks it, {KEY}",
    "wrong_back": f"a card of the wrong deck: the supervisor takes it out, {KEY}",
    "camera": f"the camera disagrees with the shoe: the supervisor checks the layout, {KEY}",
    "device_fault": f"a device failed: check its cable and power, {KEY}",
    "software_fault": f"the controller stopped on an internal error: call the technician, {KEY}",
    "card_seen_twice": f"the camera or the console gave a card already read this round: the "
                       f"supervisor checks the cards on the layout, {KEY}",
}
"""What clears each kind of hold (the console's `faults[].what_to_do`)."""


def faults(model: TableModel) -> list[dict[str, str]]:
    """The holds and lost links the table shows, each with what clears it."""
    found = []
    if model.state in HOLD_STATES or model.state == "card_hold":
        kind = model.hold_kind or "device_fault"
        found.append({"kind": kind, "what_to_do": FAULT_ADVICE.get(kind, f"call the "
                                                                         f"supervisor, {KEY}"),
                      "detail": model.hold_reason})
    found.extend({"kind": f"link_down:{device}",
                  "what_to_do": f"the {device} does not answer: check its cable; "
                                + _LINK_ADVICE.get(device, _LINK_ADVICE["sign"]),
                  "detail": ""} for device in sorted(model.progressive.links_down))
    found.extend({"kind": "progressive_waiting",
                  "what_to_do": f"seat {hit['seat']}'s Blazing 7's {hit['kind']} hit (round "
                                f"{hit['round']}) waits for the progressive controller's "
                                "amount: pay it once the amount shows",
                  "detail": ""} for hit in model.progressive.waiting)
    found.extend({"kind": "progressive_rejected",
                  "what_to_do": f"seat {hit['seat']}'s Blazing 7's {hit['kind']} hit (round "
                                f"{hit['round']}) was rejected by the progressive controller: "
                                "the supervisor settles it by hand from the pit view (the "
                                "amount paid and why); the linked meter does not pay it",
                  "detail": f"the controller's reason: {hit['reason']}"}
                 for hit in model.progressive.rejected)
    if model.camera_down:
        found.append({"kind": "camera_down", "what_to_do": "the camera does not answer: "
                      "check it; cards are not cross-checked meanwhile",
                      "detail": model.camera_down})
    found.extend({"kind": f"bad_frames:{device}",
                  "what_to_do": f"frames on the {device}'s line failed their checks (forged, "
                                "replayed or damaged; none was taken): check its cable and "
                                "tell the supervisor; the table goes on",
                  "detail": detail} for device, detail in sorted(model.link_alarms.items()))
    return found


_LINK_ADVICE = {
    "wheel": "no number can come until it is back",
    "sign": "progressive wagers are refused until it is back",
    "floor": "the floor's progressive controller: progressive wagers are refused until it is "
             "back",
    "layout": "the table is paused: the round in play is finished at the console, and no "
              "new round starts until it is back (progressive wagers are refused meanwhile)",
}


def prompt(model: TableModel) -> str:
    """What the dealer must do next, in words."""
    if model.state in HOLD_STATES:
        return "TABLE STOPPED: " + faults(model)[0]["what_to_do"]
    if model.pauses_without_layout and not model.layout_answers():
        if model.state == "betting":
            return (f"{PAUSED}: check the layout board's cable; betting stays open and no "
                    "round starts until it is back")
        return f"layout down: no new round until it is back; {_next_step(model)}"
    return _next_step(model)


PAUSED = "layout down: table paused"
"""The console's words while the layout board does not answer between rounds."""


def _next_step(model: TableModel) -> str:
    state = model.state
    simple = _SIMPLE.get(state)
    if simple is not None:
        return simple
    if isinstance(model, BlackjackModel):
        return _blackjack_prompt(model)
    if isinstance(model, CommunityModel):
        return community_prompt(model)
    if isinstance(model, BaccaratModel):
        side = model.card_due_to()
        return f"deal the {side.value}" if side is not None else state.replace("_", " ")
    if isinstance(model, RouletteModel):
        return roulette_prompt(model)
    if isinstance(model, HoldemModel):
        return holdem_prompt(model)
    return state.replace("_", " ")


_SIMPLE = {
    "shoe_loading": "load and shuffle the shoe, then press SHUFFLE DONE",
    "burn": "burn one card",
    "card_in_error": "a card was drawn when none was due: was it exposed? press EXPOSED or "
                     "NOT EXPOSED",
    "reshuffle_discards": "too few cards left: shuffle the discards in, then press "
                          "SHUFFLE DONE",
}


def _blackjack_prompt(model: BlackjackModel) -> str:
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
