"""The roulette procedure model: what the roulette transition table drives.

The wheel decides: its facts (a game starts, the ball is in the track, the winning number, a
void game, a warning) reach the table as triggers, each carrying the wheel's own game number,
which every spin record keeps. Betting is open until the wheel calls no more bets (or the
dealer does); the winning number waits for the dealer's marker on it at the console; then
the losing wagers are cleared and only then the winners paid (RULES.md, "Roulette"), both
journalled, the console saying what to clear and what to pay. A void game is no spin: it is
journalled and announced, and the wagers stand for the re-spin. Settlement is the rules'
`settle_spin`, over integer cents.

Every decided number (and only those: void games are no results) joins the table's history,
kept in the critical state, from which the result board and the wheel-bias monitor are
computed (`controller/console/board_state.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transitions import EventData

from controller.procedure import meter_books
from controller.procedure.effects import Journal, OpLog
from controller.procedure.table_model import Setup, TableModel
from controller.procedure.table_outputs import TableOutputs
from controller.procedure.tables import INITIAL, build_machine
from controller.procedure.wager_book import WagerBook
from controller.rules import roulette as ro
from controller.rules.errors import RulesError

WHEEL_PHASES = ("before_game", "place_bets", "ball_in_rim", "no_more_bets", "winning_number",
                "closed", "other")
"""The wheel's phases as its facts name them (`drivers.events.WheelPhase`)."""


def wager_record(wager: ro.RouletteWager) -> dict[str, Any]:
    """A wager as the journal and the console carry it."""
    return {"seat": wager.seat, "bet": wager.bet.value, "numbers": list(wager.numbers),
            "cents": wager.cents, "named": wager.describe()}


def wager_from_record(data: dict[str, Any]) -> ro.RouletteWager:
    """A wager back from `wager_record`."""
    return ro.RouletteWager(int(data["seat"]), ro.RouletteBet(data["bet"]),
                            frozenset(data["numbers"]), int(data["cents"]))


class RouletteWagers(WagerBook):
    """The wagers on the layout: any number a seat, each its bet, spot and amount."""

    model: RouletteModel

    def __init__(self, model: RouletteModel) -> None:
        super().__init__(model, ())
        self.model = model
        self.placed: list[ro.RouletteWager] = []

    def refusal(self, kwargs: dict[str, Any]) -> str:
        """Why a `wager` cannot be placed ("" when it can)."""
        try:
            self._wager(kwargs)
        except RulesError as exc:
            return str(exc)
        return ""

    def _wager(self, kwargs: dict[str, Any]) -> ro.RouletteWager:
        table = self.model.setup.config.table
        seat, cents = kwargs.get("seat"), kwargs.get("cents")
        if not isinstance(seat, int) or not 1 <= seat <= table.seats:
            raise RulesError(f"seat must be a seat number from 1 to {table.seats}")
        if not isinstance(cents, int) or not table.min_wager <= cents <= table.max_wager:
            raise RulesError(f"seat {seat}: {cents} cents is outside the table limits "
                             f"{table.min_wager}..{table.max_wager} cents")
        numbers = kwargs.get("numbers") or []
        if not isinstance(numbers, list) or not all(isinstance(n, str) for n in numbers):
            raise RulesError("numbers must be a list of pockets such as [\"17\", \"20\"]")
        which = kwargs.get("which")
        spot = ro.spot_for(str(kwargs.get("bet", "")), self.model.wheel, numbers,
                           which if isinstance(which, int) else None)
        return ro.RouletteWager(seat, ro.RouletteBet(str(kwargs["bet"])), spot, cents)

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: a wager the layout has, on a seat, within the table limits."""
        return self.refusal(event.kwargs) == ""

    def place_wager(self, event: EventData) -> None:
        """Callback: the wager is on the layout (journalled with its spot)."""
        wager = self._wager(event.kwargs)
        self.placed.append(wager)
        self.model.emit(Journal("bet:wager", {"round": self.model.round.number,
                                              **wager_record(wager),
                                              "source": event.kwargs.get("source", "")}))

    def cancel_refusal(self, kwargs: dict[str, Any]) -> str:
        """Why a `cancel_wager` cannot be taken ("" when it can)."""
        try:
            wager = self._wager(kwargs)
        except RulesError as exc:
            return str(exc)
        return "" if wager in self.placed else f"seat {wager.seat} has no {wager.describe()} " \
                                               f"of {wager.cents} cents on the layout"

    def cancel_allowed(self, event: EventData) -> bool:
        """Condition: that wager is on the layout."""
        return self.cancel_refusal(event.kwargs) == ""

    def cancel_wager(self, event: EventData) -> None:
        """Callback: the player takes the wager back before no more bets."""
        wager = self._wager(event.kwargs)
        self.placed.remove(wager)
        self.model.emit(Journal("bet:cancelled", {"round": self.model.round.number,
                                                  **wager_record(wager),
                                                  "source": event.kwargs.get("source", "")}))

    def seats_in_play(self) -> dict[int, int | None]:
        """Each seat with wagers on the layout, and its total wagered."""
        seats: dict[int, int | None] = {}
        for wager in self.placed:
            seats[wager.seat] = (seats.get(wager.seat) or 0) + wager.cents
        return dict(sorted(seats.items()))

    def has_wagers(self, event: EventData) -> bool:
        """Condition: some wager is on the layout."""
        return bool(self.placed)

    def in_play(self) -> list[dict[str, Any]]:
        """Every wager on the layout (what a void returns)."""
        return [wager_record(w) for w in self.placed]

    def clear(self) -> None:
        """A new spin: the layout is empty."""
        super().clear()
        self.placed = []


@dataclass
class Spin:
    """The spin in play: the wheel game it is, its number, the marker and the settlement.

    Attributes:
        game: The wheel's game number (None until the wheel names one).
        number: The winning number (None until decided).
        sources: What said the number (`status`, `number_line`).
        warnings: What the wheel warned of during the game.
        marker: The dealer has put the marker on the number.
        void_games: The wheel games voided while this spin's wagers stood.
    """

    game: int | None = None
    number: str | None = None
    sources: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    marker: bool = False
    void_games: list[int] = field(default_factory=list)


class RouletteOutputs(TableOutputs):
    """The shared lamps; the dealer display names the number, the chips' next step, a void.

    The no-more-bets lamp lights from the ball in the track until betting opens again.
    """

    model: RouletteModel

    def __init__(self, model: RouletteModel) -> None:
        super().__init__(model)
        self.model = model

    def dealer_text(self) -> str:
        """Place your bets (after a no spin: NO SPIN first), else the spin's words."""
        text = super().dealer_text()
        if self.model.state == "betting" and self.model.spin.void_games:
            return f"NO SPIN - {text}"
        return text

    def round_text(self) -> str:
        """The number and what the dealer does with the chips."""
        state, spin = self.model.state, self.model.spin
        shown = f"{spin.number} {ro.colour(spin.number).upper()}" if spin.number else ""
        return {"closed": "TABLE CLOSED", "no_more_bets": "NO MORE BETS",
                "marker": shown, "clearing": f"{shown} - CLEAR LOSING BETS",
                "paying": f"{shown} - PAY WINNERS", "round_over": shown}.get(state,
                                                                            state.upper())


class RouletteModel(TableModel):
    """The model the roulette transition table drives.

    Attributes:
        wagers: The wagers on the layout.
        spin: The spin in play.
        wheel_phase: What the wheel last said it is doing (`WHEEL_PHASES`).
        wheel_game: The wheel's game number it last named.
        history: The decided numbers, oldest first, at most `[rules.roulette]`'s longer
            window.
        spin_log: Every wheel game the table saw decided or voided, in order (this run).
        settlement: The last spin's settlement (losers, then winners).
    """

    wagers: RouletteWagers
    outputs: RouletteOutputs

    def __init__(self, setup: Setup, meters: meter_books.Meters,
                 initial: str = "shoe_loading") -> None:
        super().__init__(setup, meters)
        self.wagers = RouletteWagers(self)
        self.outputs = RouletteOutputs(self)
        self.spin = Spin()
        self.wheel_phase = "closed"
        self.wheel_game: int | None = None
        self.history: list[str] = []
        self.spin_log: list[dict[str, Any]] = []
        self.warnings: dict[int, list[str]] = {}
        self.last_decided: tuple[int, str] | None = None
        self.settlement: ro.SpinSettlement | None = None
        start = INITIAL["roulette"] if initial == "shoe_loading" else initial
        self.machine = build_machine(self, "roulette", start)

    @property
    def wheel(self) -> ro.Wheel:
        """The configured wheel and layout."""
        return self.setup.config.roulette.wheel

    # ------------------------------------------------------------------ the wheel's facts
    def note_wheel(self, event: EventData) -> None:
        """Callback: the wheel's status changed (journalled).

        A new game resets the repeat guard and forgets older games' warnings.
        """
        phase = str(event.kwargs.get("phase", ""))
        game = event.kwargs.get("game")
        self.wheel_phase = phase if phase in WHEEL_PHASES else "other"
        if isinstance(game, int):
            self.wheel_game = game
        if phase == "place_bets":
            self.last_decided = None
            self.warnings = {g: w for g, w in self.warnings.items() if g == game}
        self.emit(Journal("wheel:status", {"phase": self.wheel_phase, "game": game,
                                           "state": event.kwargs.get("state"),
                                           "flags": event.kwargs.get("flags", 0),
                                           "table": self.state}))
        if phase == "other":
            self.emit(OpLog(f"wheel: state {event.kwargs.get('state')} is not one this table "
                            "acts on", "warning"))

    def note_warning(self, event: EventData) -> None:
        """Callback: a warning of the wheel's, kept with its game for the spin record."""
        game, warning = int(event.kwargs["game"]), str(event.kwargs["warning"])
        seen = self.warnings.setdefault(game, [])
        if warning not in seen:
            seen.append(warning)
        self.emit(Journal("wheel:warning", {"game": game, "warning": warning,
                                            "detail": event.kwargs.get("detail", "")}),
                  OpLog(f"wheel game {game:03d}: {warning.replace('_', ' ')}", "warning"))

    def lock_out_bets(self, event: EventData) -> None:
        """Callback: no more bets; the wagers on the layout are this spin's."""
        self.spin.game = self.wheel_game if self.spin.game is None else self.spin.game
        source = "dealer" if event.event and event.event.name == "no_more_bets" else "wheel"
        self.emit(Journal("spin:no_more_bets", {"round": self.round.number,
                                                "game": self.wheel_game, "by": source,
                                                "wagers": self.wagers.in_play()}),
                  OpLog(f"no more bets ({source}): {len(self.wagers.placed)} wagers"))

    def late_lock_out(self, event: EventData) -> None:
        """Callback (irregularity): a number came while betting was open; bets close now."""
        self.emit(Journal("irregularity:no_more_bets_missed", {
            "round": self.round.number, "game": event.kwargs.get("game")}),
            OpLog("irregularity: the number came before no more bets; bets closed now",
                  "warning"))
        self.lock_out_bets(event)

    def number_is_impossible(self, event: EventData) -> bool:
        """Condition: the wheel named a pocket this layout does not have (00 on single zero)."""
        if str(event.kwargs.get("number")) in self.wheel.pockets:
            return False
        event.kwargs["reason"] = (f"the wheel reported {event.kwargs.get('number')!r}, which "
                                  f"the {self.wheel.label} layout does not have")
        return True

    def result_is_repeat(self, event: EventData) -> bool:
        """Condition: the wheel repeated the last decided game (the driver was restarted)."""
        return self.last_decided == (event.kwargs.get("game"), event.kwargs.get("number"))

    def note_repeat(self, event: EventData) -> None:
        """Callback: a repeated result changes nothing."""
        self.emit(Journal("wheel:result_repeated", {"game": event.kwargs.get("game"),
                                                    "number": event.kwargs.get("number")}))

    def take_result(self, event: EventData) -> None:
        """Callback: the winning number of the spin in play (journalled with the wheel's game)."""
        game, number = int(event.kwargs["game"]), str(event.kwargs["number"])
        spin = self.spin
        spin.game, spin.number = game, number
        spin.sources = list(event.kwargs.get("sources", []))
        spin.warnings = self.warnings.pop(game, [])
        self._decided(game, number, spin.warnings, played=True)
        self.emit(OpLog(f"winning number {number} {ro.colour(number)} (wheel game "
                        f"{game:03d}): place the marker"))

    def note_unplayed(self, event: EventData) -> None:
        """Callback: a number decided while no bets were open (closed, or still settling)."""
        game, number = int(event.kwargs["game"]), str(event.kwargs["number"])
        self._decided(game, number, self.warnings.pop(game, []), played=False)
        self.emit(OpLog(f"wheel game {game:03d} decided {number} while the table was "
                        f"{self.state.replace('_', ' ')}: no wagers on it", "warning"))

    def _decided(self, game: int, number: str, warnings: list[str], *, played: bool) -> None:
        self.last_decided = (game, number)
        self.history = [*self.history, number][-self.setup.config.roulette.history:]
        self.spin_log.append({"game": game, "number": number, "void": False,
                              "warnings": list(warnings)})
        self.emit(Journal("spin:result", {"round": self.round.number if played else None,
                                          "game": game, "number": number,
                                          "colour": ro.colour(number), "played": played,
                                          "warnings": list(warnings)}))

    def announce_void(self, event: EventData) -> None:
        """Callback: the wheel voided the game: no spin; the wagers stand for the re-spin."""
        game = int(event.kwargs["game"])
        reason = str(event.kwargs.get("reason", ""))
        warnings = self.warnings.pop(game, [])
        self.spin.void_games.append(game)
        self.spin.game = None
        self.spin_log.append({"game": game, "number": None, "void": True,
                              "warnings": list(warnings)})
        self.emit(Journal("spin:void", {"round": self.round.number, "game": game,
                                        "reason": reason, "warnings": warnings,
                                        "standing": self.wagers.in_play()}),
                  OpLog(f"NO SPIN: wheel game {game:03d} void ({reason}); the wagers stand",
                        "warning"))

    def wheel_moved_on(self, event: EventData) -> bool:
        """Condition: the wheel names another game than the spin's, which it never decided."""
        game = event.kwargs.get("game")
        return self.spin.game is not None and isinstance(game, int) and game != self.spin.game

    def abandon_spin(self, event: EventData) -> None:
        """Callback: no result will come for the spin in play: no spin, the wagers stand."""
        game = int(self.spin.game or 0)
        self.spin.void_games.append(game)
        self.spin.game = None
        self.spin_log.append({"game": game, "number": None, "void": True,
                              "warnings": self.warnings.pop(game, [])})
        reason = f"no result: the wheel went on to game {event.kwargs.get('game')}"
        self.emit(Journal("spin:void", {"round": self.round.number, "game": game,
                                        "reason": reason, "warnings": [],
                                        "standing": self.wagers.in_play()}),
                  OpLog(f"NO SPIN: wheel game {game:03d} ({reason}); the wagers stand",
                        "warning"))

    def note_unplayed_void(self, event: EventData) -> None:
        """Callback: a game voided while no bets were on it."""
        game = int(event.kwargs["game"])
        warnings = self.warnings.pop(game, [])
        self.spin_log.append({"game": game, "number": None, "void": True,
                              "warnings": list(warnings)})
        self.emit(Journal("spin:void", {"round": None, "game": game,
                                        "reason": str(event.kwargs.get("reason", "")),
                                        "warnings": warnings, "standing": []}))

    def close_table(self, event: EventData) -> None:
        """Callback: the wheel closed the table; the wagers on the layout are returned."""
        self.emit(Journal("spin:closed", {"round": self.round.number,
                                          "returned": self.wagers.in_play()}),
                  OpLog("the wheel closed the table: every wager on the layout returned"))
        self.close_round(event)

    def wheel_is_closed(self, event: EventData) -> bool:
        """Condition: the wheel says the table is closed."""
        return self.wheel_phase == "closed"

    def wheel_past_bets(self, event: EventData) -> bool:
        """Condition: the wheel's next game is already at no more bets."""
        return self.wheel_phase == "no_more_bets" and self.wheel_game != self.spin.game

    # ------------------------------------------------------------------ the dealer
    def marker_refusal(self, number: object) -> str:
        """Why the marker cannot go on `number` ("" when it can)."""
        if self.state != "marker" or self.spin.number is None:
            return "there is no winning number to mark"
        if number != self.spin.number:
            return (f"the winning number is {self.spin.number}: put the marker on "
                    f"{self.spin.number}, not on {number}")
        return ""

    def marker_matches(self, event: EventData) -> bool:
        """Condition: the marker goes on the wheel's number."""
        return self.marker_refusal(event.kwargs.get("number")) == ""

    def place_marker(self, event: EventData) -> None:
        """Callback: the marker is on the number; settle, and say what to clear."""
        number = str(self.spin.number)
        self.spin.marker = True
        self.settlement = ro.settle_spin(self.wagers.placed, number, self.wheel,
                                         self.setup.config.paytables.roulette)
        self.emit(Journal("spin:marker", {"round": self.round.number, "number": number,
                                          "source": event.kwargs.get("source", "")}),
                  OpLog(f"marker on {number}: clear {len(self.settlement.losers)} losing "
                        "wagers"))

    def clear_losers(self, event: EventData) -> None:
        """Callback: the losing wagers are off the layout (before any winner is paid)."""
        assert self.settlement is not None
        losers = [wager_record(r.wager) for r in self.settlement.losers]
        self.emit(Journal("spin:losers_cleared", {"round": self.round.number,
                                                  "losers": losers,
                                                  "source": event.kwargs.get("source", "")}))

    def settle_round(self, event: EventData) -> None:
        """Callback: the winners are paid; the spin's record is the round's result."""
        settled = self.settlement
        assert settled is not None
        paid = [{**wager_record(r.wager), "pays": str(self.setup.config.paytables.roulette
                                                      .odds(r.wager.bet)), "net": r.net}
                for r in settled.winners]
        record = self.round_record(settled)
        self.round.settled = True
        self.round.result = record
        self.results.append(record)
        self.emit(Journal("spin:winners_paid", {"round": self.round.number, "winners": paid,
                                                "source": event.kwargs.get("source", "")}),
                  Journal("round:settled", record),
                  OpLog(f"spin {self.round.number} settled: players net {settled.net} cents"))

    def round_record(self, settled: ro.SpinSettlement) -> dict[str, Any]:
        """The settled spin: its number, game, and every seat's wagers with their nets."""
        seats: dict[int, list[dict[str, Any]]] = {}
        for result in (*settled.losers, *settled.winners):
            wager = result.wager
            seats.setdefault(wager.seat, []).append(
                {"bet": wager.bet.value, "numbers": list(wager.numbers), "cents": wager.cents,
                 "net": result.net})
        return {"round": self.round.number, "game": self.spin.game, "number": settled.number,
                "colour": ro.colour(settled.number),
                "seats": [{"seat": s, "wagers": w} for s, w in sorted(seats.items())]}

    # ------------------------------------------------------------------ the round
    def discard_round(self) -> None:
        """Forget the spin in play."""
        super().discard_round()
        self.spin = Spin()
        self.settlement = None

    def close_round(self, event: EventData) -> None:
        """Callback: the spin is over; the layout is cleared for the next."""
        super().close_round(event)
        self.collecting = {}

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """The wagers on the layout (returned if the spin is voided by the supervisor)."""
        return self.wagers.in_play()

    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state."""
        spin = self.spin
        return {**super().snapshot(), "roulette": {
            "wagers": self.wagers.in_play(), "wheel_phase": self.wheel_phase,
            "wheel_game": self.wheel_game, "history": list(self.history),
            "spin": {"game": spin.game, "number": spin.number, "sources": spin.sources,
                     "warnings": spin.warnings, "marker": spin.marker,
                     "void_games": spin.void_games},
            "warnings": {str(g): w for g, w in self.warnings.items()},
            "last_decided": list(self.last_decided) if self.last_decided else None}}

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot (the settlement is recomputed from the marked number)."""
        super().restore(data)
        saved = data["roulette"]
        self.wagers.placed = [wager_from_record(w) for w in saved["wagers"]]
        self.wheel_phase, self.wheel_game = saved["wheel_phase"], saved["wheel_game"]
        self.history = list(saved["history"])
        self.spin = Spin(**saved["spin"])
        self.warnings = {int(g): list(w) for g, w in saved["warnings"].items()}
        last = saved["last_decided"]
        self.last_decided = (int(last[0]), str(last[1])) if last else None
        if self.spin.marker and self.spin.number is not None:
            self.settlement = ro.settle_spin(self.wagers.placed, self.spin.number, self.wheel,
                                             self.setup.config.paytables.roulette)
