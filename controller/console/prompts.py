"""What the dealer must do next, in words, and what clears each fault.

Everything is said from public information (the hole card is never read here). The words
are the console's `prompt`, each fault's `what_to_do`, and the `what_to_do` of a refused
command; the operational log says the same.
"""

from __future__ import annotations

from typing import Final

from controller.console.views import view_of
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.states import TableState
from controller.procedure.shared.table_model import TableModel

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
    if model.state in HOLD_STATES or model.state == TableState.CARD_HOLD:
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
        if model.state == TableState.BETTING:
            return (f"{PAUSED}: check the layout board's cable; betting stays open and no "
                    "round starts until it is back")
        return f"layout down: no new round until it is back; {_next_step(model)}"
    return _next_step(model)


PAUSED = "layout down: table paused"
"""The console's words while the layout board does not answer between rounds."""


def _next_step(model: TableModel) -> str:
    view = view_of(model)
    step = _SIMPLE.get(model.state) or view.prompt(model)
    pay = view.pay_words(model)  # the settled round's, while it is on screen
    if not pay:
        return step
    return pay if model.state == TableState.ROUND_OVER else f"{pay}; then {step}"


_SIMPLE: Final[dict[str, str]] = {
    TableState.SHOE_LOADING: "load and shuffle the shoe, then press SHUFFLE DONE",
    TableState.BURN: "burn one card",
    TableState.CARD_IN_ERROR: "a card was drawn when none was due: was it exposed? press "
                              "EXPOSED or NOT EXPOSED",
    TableState.RESHUFFLE_DISCARDS: "too few cards left: shuffle the discards in, then press "
                                   "SHUFFLE DONE",
}
