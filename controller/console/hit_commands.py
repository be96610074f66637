"""The supervisor settles by hand a linked hit the progressive controller rejected.

`POST /api/pit/progressive/settle` (pit view, the supervisor's credential) with
`{"round": R, "seat": S, "cents": C, "reason": "..."}` pays seat S's Blazing 7's hit of
round R: C cents, as the supervisor paid it, with why. `parse` refuses a malformed body
(400); `execute` refuses, in one line (409), a hit that still waits for the controller (it
may yet pay it: paying by hand as well would pay twice), one already settled or never
rejected, an amount outside 0..the ceiling (`ProgressiveDesk.manual_ceiling`) and an empty
or overlong reason; otherwise it fires `settle_hit_by_hand`, journalled as
`meter:linked_paid` with `"manual": true` and `who` (`pit:<user>`), and answers with the
settlement (API.md).
"""

from __future__ import annotations

from typing import Any

from controller.console.commands import CommandError, Reply
from controller.service.runtime import TableRuntime

_FIELDS = ("round", "seat", "cents", "reason")


def parse(body: object) -> dict[str, Any]:
    """A checked settlement by hand.

    Raises:
        CommandError: not an object, a missing, unknown or mistyped field.
    """
    if not isinstance(body, dict):
        raise CommandError('a settlement by hand is a JSON object: {"round", "seat", '
                           '"cents", "reason"}')
    unknown = sorted(set(body) - set(_FIELDS))
    if unknown:
        raise CommandError(f"settle by hand: unknown field {unknown[0]!r}")
    for name in _FIELDS[:3]:
        value = body.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise CommandError(f"settle by hand: field {name!r} must be an integer "
                               f"(cents for 'cents'), got {value!r}")
    if not isinstance(body.get("reason"), str):
        raise CommandError("settle by hand: field 'reason' must be a text (why it is paid "
                           "this amount)")
    return {name: body[name] for name in _FIELDS}


def execute(runtime: TableRuntime, command: dict[str, Any], source: str) -> Reply:
    """Carry out a parsed settlement by hand on the loop thread (`source`: the supervisor)."""
    desk = runtime.model.progressive
    if not desk.linked:
        return Reply(409, {"error": "this table's meter is not linked: no hit is settled by "
                                    "hand here"})
    why = desk.refuse_by_hand(command["round"], command["seat"], command["cents"],
                              command["reason"])
    if why:
        return Reply(409, {"error": why})
    key = (command["round"], command["seat"])
    hit = next(h for h in desk.rejected if (h["round"], h["seat"]) == key)
    if not runtime.fire("settle_hit_by_hand", **command, who=source):
        return Reply(409, {"error": f"the table does not take a settlement by hand in state "
                                    f"{runtime.model.state}"})
    return Reply(200, {"settled": {
        "round": key[0], "seat": key[1], "kind": hit["kind"], "stake": hit["stake"],
        "paid": command["cents"], "net": command["cents"] - int(hit["stake"]),
        "manual": True, "who": source}})
