"""The roulette table as the console, the result board and the pit view show it.

Public information only (there is nothing secret at roulette): the wagers on the layout, the
wheel's game and what it is doing, the winning number, what to clear and what to pay. The
result board (`GET /api/board`) is the marquee display's: the last 20 numbers, the
percentages and hot and cold numbers over the last `[rules.roulette] board_spins` spins; the
wheel-bias monitor (the pit view's `wheel_bias`) the chi-square over the last `bias_spins`.
`controller/console/API.md` is the contract.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Final

from controller.console.views.common import CommandCheck, JsonObject
from controller.odds.wheel_bias import bias_report, board_figures
from controller.procedure.families import model_as
from controller.procedure.roulette import RO, RouletteModel, wager_record
from controller.procedure.shared.table_model import TableModel
from controller.rules.money import format_cents
from controller.rules.roulette import colour


def roulette_table(table: TableModel) -> dict[str, Any]:
    """The table object's `roulette` part."""
    model = model_as(table, RouletteModel)
    spin = model.spin
    settled = model.settled
    return {
        "wheel": model.wheel.value, "wheel_phase": model.wheel_phase,
        "wheel_game": model.wheel_game,
        "spin": {"game": spin.game, "number": spin.number,
                 "colour": colour(spin.number) if spin.number else None,
                 "marker": spin.marker, "void_games": list(spin.void_games)},
        "wagers": [wager_record(w) for w in model.wagers.placed],
        "to_clear": ([wager_record(r.wager) for r in settled.losers]
                     if settled is not None and model.state == RO.CLEARING else []),
        "to_pay": ([{**wager_record(r.wager), "pays": str(model.setup.config.paytables
                                                         .roulette.odds(r.wager.bet)),
                     "win": r.net} for r in settled.winners]
                   if settled is not None and model.state in (RO.CLEARING, RO.PAYING)
                   else []),
        "history": list(reversed(model.history[-20:])),
    }


def roulette_prompt(table: TableModel) -> str:
    """What the roulette dealer must do next, in words."""
    model = model_as(table, RouletteModel)
    state, spin = model.state, model.spin
    number = f"{spin.number} {colour(spin.number).upper()}" if spin.number else ""
    if state == RO.BETTING:
        head = "NO SPIN: the wagers stand; " if spin.void_games else ""
        then = ("SPIN when the bets are down" if model.feed.launch_waits()
                else "no more bets when the ball is in the track")
        return (f"{head}place your bets (wheel game {_game(model.wheel_game)}): "
                f"{len(model.wagers.placed)} wagers on the layout; {then}")
    if state == RO.MARKER:
        return f"{_behind(model)}winning number {number}: put the marker on {spin.number}"
    if state == RO.CLEARING:
        return _behind(model) + "clear the losing bets: " + (
            _wagers_words(model, winners=False) or "none") + "; then LOSERS CLEARED"
    if state == RO.PAYING:
        return _behind(model) + "pay the winners: " + (
            _wagers_words(model, winners=True) or "none") + "; then WINNERS PAID"
    others: dict[str, str] = {
        RO.CLOSED: "the wheel is closed: betting opens when it starts a game",
        RO.NO_MORE_BETS: "no more bets: the ball is in the track",
        RO.ROUND_OVER: f"{number}: spin settled"}
    return others.get(state, state.replace("_", " "))


def _behind(model: RouletteModel) -> str:
    """Why the table holds while a wheel that launches itself has gone on to its next game."""
    game = model.wheel_game
    if game is None or game == model.spin.game or model.wheel_phase in ("closed", "other"):
        return ""
    return (f"WHEEL AHEAD: game {_game(game)} is played without wagers until this spin is "
            "paid; ")


def _game(game: int | None) -> str:
    return "-" if game is None else f"{game:03d}"


def _wagers_words(model: RouletteModel, *, winners: bool) -> str:
    settled = model.settled
    if settled is None:
        return ""
    pays = model.setup.config.paytables.roulette
    if not winners:
        return "; ".join(f"seat {r.wager.seat} {r.wager.describe()} "
                         f"{format_cents(r.wager.cents)}" for r in settled.losers)
    return "; ".join(f"seat {r.wager.seat} {r.wager.describe()} {format_cents(r.wager.cents)}"
                     f" at {pays.odds(r.wager.bet)}: pay {format_cents(r.net)}"
                     for r in settled.winners)


def board(table: TableModel) -> dict[str, Any]:
    """The result board's figures of the wheel (`GET /api/board`, after the table's own)."""
    model = model_as(table, RouletteModel)
    rules = model.setup.config.roulette
    figures = board_figures(model.history, model.wheel, rules.board_spins)
    spin = model.spin
    return {"wheel": model.wheel.value, "wheel_game": model.wheel_game,
            "last": [{"number": n, "colour": c} for n, c in figures.last],
            "spins": figures.spins, "window": figures.window, "percent": figures.percent,
            "counts": figures.counts,
            "hot": [{"number": n, "colour": colour(n), "hits": h} for n, h in figures.hot],
            "cold": [{"number": n, "colour": colour(n), "hits": h} for n, h in figures.cold],
            "spin": {"number": spin.number,
                     "colour": colour(spin.number) if spin.number else None,
                     "void": bool(spin.void_games) and spin.number is None}}


def wheel_bias(table: TableModel) -> dict[str, Any]:
    """The pit view's wheel-bias monitor."""
    model = model_as(table, RouletteModel)
    report = bias_report(model.history, model.wheel, model.setup.config.roulette.bias_spins)
    data = asdict(report)
    data["extreme"] = ({"number": report.extreme[0], "z": report.extreme[1]}
                       if report.extreme else None)
    return data


# -------------------------------------------------------- the commands only roulette takes


def _wager_refusal(table: TableModel, command: JsonObject) -> str:
    model = model_as(table, RouletteModel)
    return model.wagers.refusal(command) if model.state == RO.BETTING else ""


def _cancel_refusal(table: TableModel, command: JsonObject) -> str:
    model = model_as(table, RouletteModel)
    return model.wagers.cancel_refusal(command) if model.state == RO.BETTING else ""


def _marker_refusal(table: TableModel, command: JsonObject) -> str:
    return model_as(table, RouletteModel).croupier.marker_refusal(command["number"])


COMMAND_CHECKS: Final[dict[str, CommandCheck]] = {
    "wager": _wager_refusal, "cancel_wager": _cancel_refusal, "marker": _marker_refusal}
"""The console commands a roulette table takes and the others refuse, or checks its own way
(`wager`), each with its check here (`controller.console.views.FamilyView.commands`)."""
