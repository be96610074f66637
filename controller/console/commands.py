"""The console's commands: checked, then carried out on the loop thread as procedure triggers.

A command is a JSON object `{"command": NAME, ...fields}`. `parse` refuses a malformed one
(unknown command, missing or wrong field: HTTP 400); `execute`, on the loop thread, refuses
one the procedure does not take now (HTTP 409, with what to do instead) and otherwise fires
its trigger, journalled with `source: "console"` (or the bots' `"bot"`) and, given over the
API, a `console:command` record naming who gave it (`"by": "dealer:D17"`), and answers with
the table as it is afterwards. The layout's buttons fire the same triggers (source `layout`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from controller.console import settled
from controller.console.prompts import prompt
from controller.console.table_state import table_state
from controller.console.views import view_of
from controller.console.views.common import CommandCheck, JsonObject
from controller.procedure.blackjack import BlackjackModel
from controller.procedure.core.effects import Journal
from controller.procedure.families import model_as
from controller.procedure.shared.table_model import TableModel
from controller.service.runtime import TableRuntime


class CommandError(ValueError):
    """A malformed command: unknown, or a missing or wrong field (HTTP 400)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What a command came to: the status, and the body to send back."""

    status: int
    body: JsonObject


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One console command: its fields, and how it becomes a trigger.

    Attributes:
        fields: Field name -> (expected type, required).
        trigger: The trigger fired, given the model and the command (after `refusal`).
        refusal: Why the command cannot be taken now ("" when it can), before firing, at
            a table whose family's console view does not check it its own way
            (`controller.console.views.FamilyView.commands`): a command only some families
            take is refused here with the reason the others give.
    """

    fields: dict[str, tuple[type, bool]] = field(default_factory=dict)
    trigger: Callable[[TableModel, JsonObject], str] | None = None
    refusal: CommandCheck | None = None


def _named(name: str) -> Callable[[TableModel, JsonObject], str]:
    return lambda _model, _command: name


def _insurance_trigger(model: TableModel, command: JsonObject) -> str:
    if not command["take"]:
        return "no_insurance"
    blackjack = model_as(model, BlackjackModel)
    return "even_money" if blackjack.try_step(["even_money", command["seat"]]) else "insurance"


def _refused(why: str) -> CommandCheck:
    """The check of a command at a table whose family does not take it: always `why`."""
    return lambda _model, _command: why


def _wager_refusal(_model: TableModel, command: JsonObject) -> str:
    if "numbers" in command or "which" in command:
        return "numbers and which are for roulette wagers"
    return ""


def _launch_refusal(model: TableModel, command: JsonObject) -> str:
    if model.setup.wheel_launch != "host":
        return "this table's wheel launches each game itself: there is no SPIN"
    return ""


_SEAT: Final[dict[str, tuple[type, bool]]] = {"seat": (int, True)}
_HOLDEM_DECISION: Final = CommandSpec(
    {"seat": (int, True)}, refusal=_refused("bet, fold and check are the hold'em seats' decisions"))
_ROULETTE_WAGER: Final[dict[str, tuple[type, bool]]] = {
    "seat": (int, True), "bet": (str, True), "cents": (int, True), "numbers": (list, False),
    "which": (int, False)}
_NO_DECISIONS: Final = _refused("this game has no player decisions")
_DECISION: Final = CommandSpec({"seat": (int, False)}, refusal=_NO_DECISIONS)

COMMANDS: Final[dict[str, CommandSpec]] = {
    "shuffle_done": CommandSpec(),
    "seat": CommandSpec({"seat": (int, True), "in_play": (bool, True), "main": (int, False)},
                        refusal=_refused("seats are put in play with wagers at this game "
                                         "(the `wager` command)")),
    "wager": CommandSpec(_ROULETTE_WAGER, refusal=_wager_refusal),
    "cancel_wager": CommandSpec(_ROULETTE_WAGER, refusal=_refused(
        "only roulette wagers are taken back at the console")),
    "marker": CommandSpec({"number": (str, True)}, refusal=_refused("this game has no marker")),
    "losers_cleared": CommandSpec(), "winners_paid": CommandSpec(),
    "no_more_bets": CommandSpec(), "last_bets": CommandSpec(),
    "launch": CommandSpec(refusal=_launch_refusal),
    "insurance": CommandSpec({"seat": (int, True), "take": (bool, True)},
                             trigger=_insurance_trigger,
                             refusal=_refused("insurance is not open")),
    "stand": _DECISION, "hit": _DECISION, "split": _DECISION, "surrender": _DECISION,
    "rescue": _DECISION,
    "double": CommandSpec({"seat": (int, False), "cents": (int, False)},
                          refusal=_NO_DECISIONS),
    "error_exposed": CommandSpec(), "error_unexposed": CommandSpec(),
    "seat_no_card": CommandSpec(_SEAT), "seat_one_card": CommandSpec(_SEAT),
    "dealer_missed_card": CommandSpec(), "new_shoe": CommandSpec(),
    "hole_cards_dealt": CommandSpec(),
    "bet": _HOLDEM_DECISION, "fold": _HOLDEM_DECISION, "check": _HOLDEM_DECISION,
    "key_card": CommandSpec({"card": (str, True)}, refusal=_refused(
        "cards are keyed at the console only where the camera reads them (hold'em)")),
    "confirm_card": CommandSpec(),
    "next_round": CommandSpec(),
}
"""Every console command (API.md lists their fields and meaning)."""


def parse(body: object) -> JsonObject:
    """The command, checked for shape (not for whether the table takes it now).

    Raises:
        CommandError: Not an object, an unknown command, a missing, unknown or wrong field.
    """
    if not isinstance(body, dict):
        raise CommandError("the body must be a JSON object with a \"command\"")
    name = body.get("command")
    if not isinstance(name, str) or name not in COMMANDS:
        raise CommandError(f"unknown command {name!r} (commands: {', '.join(COMMANDS)})")
    spec = COMMANDS[name]
    for key in body:
        if key != "command" and key not in spec.fields:
            raise CommandError(f"{name}: unknown field {key!r}")
    for key, (kind, required) in spec.fields.items():
        value = body.get(key)
        if value is None:
            if required:
                raise CommandError(f"{name}: field {key!r} is required")
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CommandError(f"{name}: field {key!r} must be {kind.__name__}, "
                               f"got {value!r}")
    return dict(body)


def accepting(model: TableModel) -> list[str]:
    """Every command the procedure takes now."""
    here = model.triggers_here()
    return [name for name in COMMANDS if _accepted(model, name, here)]


_NEED_FIELDS: Final = frozenset({"seat", "wager", "seat_no_card", "seat_one_card", "marker",
                                 "cancel_wager", "bet", "fold", "check", "key_card"})
"""Commands whose conditions read their fields: taken wherever the state has the trigger."""


def _accepted(model: TableModel, name: str, here: frozenset[str]) -> bool:
    if name == "next_round":
        return view_of(model).settled(model) is not None
    if name == "insurance":
        return bool(view_of(model).insurance(model))
    if name not in here:
        return False
    return name in _NEED_FIELDS or model.trigger_allowed(name)


def table_now(runtime: TableRuntime) -> JsonObject:
    """The public table as the console API returns it (loop thread only)."""
    model = runtime.model
    display = runtime.shown.dealer_text if runtime.shown is not None else ""
    return table_state(model, accepting(model), display)


def attribute(runtime: TableRuntime, command: JsonObject, by: str) -> None:
    """Journal who gave `command` (`console:command`, `by`), in the commit of its trigger.

    Called just before the trigger is fired: the record goes out with the trigger's own.
    """
    if by:
        runtime.model.emit(Journal("console:command", {"by": by, **command}))


def execute(runtime: TableRuntime, command: JsonObject, source: str = "console",
            by: str = "") -> Reply:
    """Carry out a parsed command on the loop thread; the reply to send back.

    `by` names who gave it (`dealer:D17`, `kiosk`), journalled with the trigger's records.
    """
    model = runtime.model
    if command["command"] == "next_round":
        return _next_round(runtime, command, by)
    why = refusal(model, command)
    if why:
        return Reply(409, {"error": why, "what_to_do": prompt(model)})
    spec = COMMANDS[command["command"]]
    trigger = (spec.trigger or _named(command["command"]))(model, command)
    kwargs = {k: v for k, v in command.items() if k not in ("command", "take")}
    if not _allowed_now(model, trigger, kwargs):
        return Reply(409, {"error": f"{command['command']} is not taken now "
                                    f"(phase {model.state})", "what_to_do": prompt(model)})
    attribute(runtime, command, by)
    runtime.fire(trigger, **kwargs, source=source)
    return Reply(200, table_now(runtime))


def refusal(model: TableModel, command: JsonObject) -> str:
    """Why the table's family does not take the parsed `command` now ("" when it may).

    The check the family's console view declares for the command (`FamilyView.commands`),
    chosen by the table's family key; else the command's own `refusal` in `COMMANDS`.
    """
    name = command["command"]
    check = view_of(model).commands.get(name, COMMANDS[name].refusal)
    return check(model, command) if check is not None else ""


def _next_round(runtime: TableRuntime, command: JsonObject, by: str) -> Reply:
    """The dealer's NEXT ROUND: the settled round leaves the console's screen.

    The console's own step, not the procedure's (decision 070): journalled as a console
    command, and published.
    """
    if view_of(runtime.model).settled(runtime.model) is None:
        return Reply(409, {"error": "no settled round is on the screen",
                           "what_to_do": prompt(runtime.model)})
    settled.end_showing(runtime.model)
    if by:
        runtime.record("console:command", {"by": by, **command})
    else:
        runtime.commit_effects([])  # nothing to journal: the watchers publish the change
    return Reply(200, table_now(runtime))


def _allowed_now(model: TableModel, trigger: str, kwargs: dict[str, Any]) -> bool:
    check = getattr(model, f"may_{trigger}", None)
    return bool(check(**kwargs)) if check is not None else False
