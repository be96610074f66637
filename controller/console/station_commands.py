"""The player stations' commands: what a station page (and a bot at a station) sends.

A command is a JSON object `{"command": NAME, "station": N, ...}`:

| command      | fields                        | trigger         | open while |
|--------------|-------------------------------|-----------------|------------|
| `wager`      | `spot` (1-3), `cents`, [`bet`]| `wager`         | bets open  |
| `clear_last` |                               | `clear_last`    | bets open  |
| `clear_all`  |                               | `clear_all`     | bets open  |
| `repeat`     |                               | `repeat`        | bets open  |
| `auto_repeat`| `on` (true/false)             | `auto_repeat`   | always     |
| `insurance`  | `spot`, `cents` (0: decline)  | `insurance`     | insurance  |
| `hit`, `stand`, `double`, `split` | `spot`   | the same name   | decisions  |

`bet` names the wager on the spot: `main` (the default) or a side wager the table offers
(`[rules.community] side_bets`). `parse` refuses a malformed command (`CommandError`: HTTP
400); `execute`, on the loop thread, refuses one the table does not take now (409, with the
reason) and otherwise fires its trigger with `source` (`station`, or `bot` for the
simulator's bots), journalled by the procedure; the answer carries the station's view
afterwards (`controller.console.station_view`).
"""

from __future__ import annotations

from typing import Any, Final

from controller.console.commands import CommandError, Reply, attribute
from controller.console.station_view import CHIPS, station_view
from controller.console.views import NO_STATIONS, station_model
from controller.procedure.community import CC, DECISIONS, CommunityModel
from controller.service.runtime import TableRuntime

FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "wager": ("spot", "cents"), "clear_last": (), "clear_all": (), "repeat": (),
    "auto_repeat": ("on",), "insurance": ("spot", "cents"),
    **dict.fromkeys(DECISIONS, ("spot",))}
"""Each command's fields besides `station` (integers, but `on`: a boolean)."""


def parse(command: object) -> dict[str, Any]:
    """A checked station command.

    Raises:
        CommandError: not an object, an unknown command, or a missing or non-integer field.
    """
    if not isinstance(command, dict):
        raise CommandError("a station command is a JSON object")
    name = command.get("command")
    if name not in FIELDS:
        raise CommandError(f"unknown station command {name!r} (known: {', '.join(FIELDS)})")
    for field in ("station", *FIELDS[str(name)]):
        value = command.get(field)
        if field == "on":
            if not isinstance(value, bool):
                raise CommandError(f"{name}: field 'on' must be true or false")
        elif not isinstance(value, int) or isinstance(value, bool):
            raise CommandError(f"{name}: field {field!r} must be an integer")
    parsed = {k: command[k] for k in ("command", "station", *FIELDS[str(name)])}
    if name == "wager" and "bet" in command:
        if not isinstance(command["bet"], str):
            raise CommandError("wager: field 'bet' must be a wager's name (main, or a side "
                               "wager offered)")
        parsed["bet"] = command["bet"]
    return parsed


def chip_refusal(command: dict[str, Any]) -> str:
    """Why a station's wager is not one chip of the posted values ("" when it is).

    The station server takes one chip a press (the page's DENOM): 1 cent, or 7.00, is no
    chip a station has. (The simulator's bots place whole amounts through `execute`.)
    """
    if command["command"] != "wager" or command["cents"] in CHIPS:
        return ""
    offered = ", ".join(f"{chip // 100}.{chip % 100:02d}" for chip in CHIPS)
    return (f"station {command['station']}: {command['cents']} cents is not a chip of this "
            f"table ({offered})")


def refusal(model: CommunityModel, command: dict[str, Any]) -> str:
    """Why the table cannot take the command now ("" when it can)."""
    name = command["command"]
    if name == "wager":
        return (model.wagers.refusal(command) if model.state == CC.BETTING
                else "bets are closed")
    if not 1 <= command["station"] <= model.station_count:
        return f"station must be a station number from 1 to {model.station_count}"
    if name == "auto_repeat":
        return ""
    if name == "repeat":
        return (model.wagers.repeat_refusal(command["station"]) if model.state == CC.BETTING
                else "bets are closed")
    if name in ("clear_last", "clear_all"):
        if model.state != CC.BETTING:
            return "bets are closed"
        return "" if model.wagers.presses.get(command["station"]) else "no chips to clear"
    if name == "insurance":
        return model.play.insurance_refusal(command)
    return model.play.decision_refusal(name, command)


def execute(runtime: TableRuntime, command: dict[str, Any], source: str = "station",
            by: str = "") -> Reply:
    """Carry out a parsed command on the loop thread (`by`: who gave it, `station:N`)."""
    model = station_model(runtime.model)
    if model is None:
        return Reply(409, {"error": NO_STATIONS})
    why = refusal(model, command)
    if why:
        return Reply(409, {"error": why})
    fields = {k: v for k, v in command.items() if k != "command"}
    attribute(runtime, command, by)
    runtime.fire(command["command"], **fields, source=source)
    return Reply(200, station_view(model, command["station"]))
