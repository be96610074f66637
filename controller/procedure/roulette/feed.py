"""The roulette table's part that takes the wheel's facts: `feed.<name>` in the table.

Each fact carries the wheel's own game number (`controller/service/wheel_intake.py`): a change
of the wheel's state, a warning, the winning number, a void game. The winning number of the
spin in play becomes the spin's; one decided while no bets were open is journalled
unplayed; every decided number joins the history (void games are no results); a void game
is no spin, announced, the wagers standing for the re-spin.
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.core.effects import Effect, Journal, LaunchWheel, OpLog
from controller.procedure.core.roundstate import Round
from controller.procedure.roulette.spin import Spin
from controller.procedure.shared.setup import Setup
from controller.rules import roulette as ro

WHEEL_PHASES = ("before_game", "place_bets", "ball_in_rim", "no_more_bets", "winning_number",
                "closed", "other")
"""The wheel's phases as its facts name them (`drivers.events.WheelPhase`)."""


class FeedHost(Protocol):
    """What the wheel's facts read and change of the roulette model."""

    setup: Setup
    state: str
    round: Round
    spin: Spin
    wheel_phase: str
    wheel_game: int | None
    launched_game: int | None
    last_decided: tuple[int, str] | None
    warnings: dict[int, list[str]]
    history: list[str]
    spin_log: list[dict[str, Any]]

    @property
    def wheel(self) -> ro.Wheel:
        """The configured wheel and layout."""
        ...

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def lock_out_bets(self, event: EventData) -> None:
        """No more bets: the wagers on the layout are the spin's."""
        ...

    def close_round(self, event: EventData) -> None:
        """The spin is over; the layout is cleared."""
        ...

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """The wagers on the layout, as records."""
        ...

    def wager_count(self) -> int:
        """How many wagers are on the layout."""
        ...


class WheelFacts:
    """Conditions and callbacks on the wheel's facts.

    Args:
        model: The roulette model, as the feed sees it: the spin, the history and the
            wheel's phase.
    """

    def __init__(self, model: FeedHost) -> None:
        self.model = model

    # ------------------------------------------------------------------ status and warnings
    def note_wheel(self, event: EventData) -> None:
        """Callback: the wheel's status changed (journalled).

        A new game resets the repeat guard and forgets older games' warnings.
        """
        model = self.model
        phase = str(event.kwargs.get("phase", ""))
        game = event.kwargs.get("game")
        model.wheel_phase = phase if phase in WHEEL_PHASES else "other"
        if isinstance(game, int):
            model.wheel_game = game
        if phase == "place_bets":
            model.last_decided = None
            model.warnings = {g: w for g, w in model.warnings.items() if g == game}
        model.emit(Journal("wheel:status", {"phase": model.wheel_phase, "game": game,
                                            "state": event.kwargs.get("state"),
                                            "flags": event.kwargs.get("flags", 0),
                                            "table": model.state}))
        if phase == "other":
            model.emit(OpLog(f"wheel: state {event.kwargs.get('state')} is not one this "
                             "table acts on", "warning"))

    def note_warning(self, event: EventData) -> None:
        """Callback: a warning of the wheel's, kept with its game for the spin record."""
        game, warning = int(event.kwargs["game"]), str(event.kwargs["warning"])
        seen = self.model.warnings.setdefault(game, [])
        if warning not in seen:
            seen.append(warning)
        self.model.emit(Journal("wheel:warning", {"game": game, "warning": warning,
                                                  "detail": event.kwargs.get("detail", "")}),
                        OpLog(f"wheel game {game:03d}: {warning.replace('_', ' ')}",
                              "warning"))

    def wheel_is_closed(self, event: EventData) -> bool:
        """Condition: the wheel says the table is closed."""
        return self.model.wheel_phase == "closed"

    def wheel_past_bets(self, event: EventData) -> bool:
        """Condition: the wheel's next game is already at no more bets."""
        model = self.model
        decided = model.last_decided[0] if model.last_decided else None
        return (model.wheel_phase == "no_more_bets" and model.wheel_game != model.spin.game
                and model.wheel_game != decided)

    def wheel_moved_on(self, event: EventData) -> bool:
        """Condition: the wheel names another game than the spin's, which it never decided."""
        game, spin = event.kwargs.get("game"), self.model.spin.game
        return spin is not None and isinstance(game, int) and game != spin

    # ------------------------------------------------------------------ the launch
    def launch_waits(self) -> bool:
        """True while the wheel holds the game in play in place your bets for the croupier."""
        model = self.model
        return (model.setup.wheel_launch == "host" and model.wheel_phase == "place_bets"
                and model.wheel_game is not None and model.launched_game != model.wheel_game)

    def launch_allowed(self, event: EventData) -> bool:
        """Condition: the croupier may launch (SPIN) the game the wheel holds."""
        return self.launch_waits()

    def launch_wheel(self, event: EventData) -> None:
        """Callback: journal the launch, then send the wheel its start command."""
        model = self.model
        model.launched_game = model.wheel_game
        model.emit(Journal("spin:launch", {"round": model.round.number,
                                           "game": model.wheel_game,
                                           "wagers": model.wager_count(),
                                           "source": event.kwargs.get("source", "")}),
                   LaunchWheel(),
                   OpLog(f"launch: wheel game {model.wheel_game:03d} "
                         f"({model.wager_count()} wagers on the layout)"))

    # ------------------------------------------------------------------ the winning number
    def late_lock_out(self, event: EventData) -> None:
        """Callback (irregularity): a number came while betting was open; bets close now."""
        self.model.emit(Journal("irregularity:no_more_bets_missed", {
            "round": self.model.round.number, "game": event.kwargs.get("game")}),
            OpLog("irregularity: the number came before no more bets; bets closed now",
                  "warning"))
        self.model.lock_out_bets(event)

    def number_is_impossible(self, event: EventData) -> bool:
        """Condition: the wheel named a pocket this layout does not have (00 on single zero)."""
        wheel = self.model.wheel
        if str(event.kwargs.get("number")) in wheel.pockets:
            return False
        event.kwargs["reason"] = (f"the wheel reported {event.kwargs.get('number')!r}, which "
                                  f"the {wheel.label} layout does not have")
        return True

    def result_is_repeat(self, event: EventData) -> bool:
        """Condition: the wheel repeated the last decided game (the driver was restarted)."""
        return self.model.last_decided == (event.kwargs.get("game"),
                                           event.kwargs.get("number"))

    def note_repeat(self, event: EventData) -> None:
        """Callback: a repeated result changes nothing."""
        self.model.emit(Journal("wheel:result_repeated", {"game": event.kwargs.get("game"),
                                                          "number": event.kwargs.get("number")}))

    def take_result(self, event: EventData) -> None:
        """Callback: the winning number of the spin in play (journalled with the wheel's game)."""
        game, number = int(event.kwargs["game"]), str(event.kwargs["number"])
        spin = self.model.spin
        spin.game, spin.number = game, number
        spin.sources = list(event.kwargs.get("sources", []))
        spin.warnings = self.model.warnings.pop(game, [])
        self._decided(game, number, spin.warnings, played=True)
        todo = "place the marker" if self.model.wager_count() else "no wagers on the layout"
        self.model.emit(OpLog(f"winning number {number} {ro.colour(number)} (wheel game "
                              f"{game:03d}): {todo}"))

    def note_unplayed(self, event: EventData) -> None:
        """Callback: a number decided while no bets were open (closed, or still settling)."""
        game, number = int(event.kwargs["game"]), str(event.kwargs["number"])
        self._decided(game, number, self.model.warnings.pop(game, []), played=False)
        self.model.emit(OpLog(f"wheel game {game:03d} decided {number} while the table was "
                              f"{self.model.state.replace('_', ' ')}: no wagers on it",
                              "warning"))

    def _decided(self, game: int, number: str, warnings: list[str], *, played: bool) -> None:
        model = self.model
        model.last_decided = (game, number)
        model.history = [*model.history, number][-model.setup.config.roulette.history:]
        model.spin_log.append({"game": game, "number": number, "void": False,
                               "warnings": list(warnings)})
        model.emit(Journal("spin:result", {"round": model.round.number if played else None,
                                           "game": game, "number": number,
                                           "colour": ro.colour(number), "played": played,
                                           "warnings": list(warnings)}))

    # ------------------------------------------------------------------ no spin
    def announce_void(self, event: EventData) -> None:
        """Callback: the wheel voided the game: no spin; the wagers stand for the re-spin."""
        self._no_spin(int(event.kwargs["game"]), str(event.kwargs.get("reason", "")))

    def abandon_spin(self, event: EventData) -> None:
        """Callback: no result will come for the spin in play: no spin, the wagers stand."""
        self._no_spin(int(self.model.spin.game or 0),
                      f"no result: the wheel went on to game {event.kwargs.get('game')}")

    def _no_spin(self, game: int, reason: str) -> None:
        model = self.model
        warnings = model.warnings.pop(game, [])
        model.spin.void_games.append(game)
        model.spin.game = None
        model.spin_log.append({"game": game, "number": None, "void": True,
                               "warnings": list(warnings)})
        model.emit(Journal("spin:void", {"round": model.round.number, "game": game,
                                         "reason": reason, "warnings": warnings,
                                         "standing": model.wagers_in_play()}),
                   OpLog(f"NO SPIN: wheel game {game:03d} void ({reason}); the wagers stand",
                         "warning"))

    def note_unplayed_void(self, event: EventData) -> None:
        """Callback: a game voided while no bets were on it."""
        game = int(event.kwargs["game"])
        warnings = self.model.warnings.pop(game, [])
        self.model.spin_log.append({"game": game, "number": None, "void": True,
                                    "warnings": list(warnings)})
        self.model.emit(Journal("spin:void", {"round": None, "game": game,
                                              "reason": str(event.kwargs.get("reason", "")),
                                              "warnings": warnings, "standing": []}))

    def close_table(self, event: EventData) -> None:
        """Callback: the wheel closed the table; the wagers on the layout are returned."""
        model = self.model
        model.emit(Journal("spin:closed", {"round": model.round.number,
                                           "returned": model.wagers_in_play()}),
                   OpLog("the wheel closed the table: every wager on the layout returned"))
        model.close_round(event)
