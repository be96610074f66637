"""The attendant's credits at the stations, from the pit view with the supervisor's credential.

`POST /api/pit/station/N/credits` with `{"action": "in", "cents": C}` adds C cents to station
N; `{"action": "out"}` cashes out its whole balance. `parse` refuses a malformed body (400);
`execute` refuses what the table does not take now (409, with the reason) and otherwise fires
`credits_in` / `credits_out`, journalled with `who` (`pit:<user>`), and answers with the
station's credits and meters (STATIONS.md).
"""

from __future__ import annotations

from typing import Any

from controller.console.commands import CommandError, Reply
from controller.console.views import NO_STATIONS, station_model
from controller.procedure.community import CommunityModel
from controller.service.runtime import TableRuntime


def parse(body: object, station: int) -> dict[str, Any]:
    """A checked credits command for `station`.

    Raises:
        CommandError: not an object, an unknown action, a missing or non-integer amount.
    """
    if not isinstance(body, dict):
        raise CommandError("a credits command is a JSON object with an \"action\"")
    action = body.get("action")
    if action not in ("in", "out"):
        raise CommandError(f"unknown credits action {action!r} (known: in, out)")
    unknown = sorted(set(body) - {"action", "cents"})
    if unknown:
        raise CommandError(f"credits {action}: unknown field {unknown[0]!r}")
    command: dict[str, Any] = {"action": action, "station": station}
    if action == "in":
        cents = body.get("cents")
        if not isinstance(cents, int) or isinstance(cents, bool):
            raise CommandError("credits in: field 'cents' must be an integer")
        command["cents"] = cents
    elif "cents" in body:
        raise CommandError("credits out: cashes out the whole balance (no 'cents')")
    return command


def credits_of(model: CommunityModel, station: int) -> dict[str, Any]:
    """The station's balance and meters."""
    return {"station": station, "credits": model.credits.balance.get(station, 0),
            "meters": model.credits.meters_of(station)}


def execute(runtime: TableRuntime, command: dict[str, Any], source: str) -> Reply:
    """Carry out a parsed credits command on the loop thread (`source` names the attendant)."""
    model = station_model(runtime.model)
    if model is None:
        return Reply(409, {"error": NO_STATIONS})
    out = command["action"] == "out"
    why = model.credits.refusal(command, out=out)
    if why:
        return Reply(409, {"error": why})
    fields = {k: v for k, v in command.items() if k != "action"}
    runtime.fire("credits_out" if out else "credits_in", **fields, who=source)
    return Reply(200, credits_of(model, command["station"]))
