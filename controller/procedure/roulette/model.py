"""The roulette procedure model: what the roulette transition table drives.

The wheel decides: its facts (a game starts, the ball is in the track, the winning number, a
void game, a warning) reach the table as triggers, each carrying the wheel's own game number,
which every spin record keeps. Betting is open until the wheel calls no more bets (or the
dealer does); the winning number waits for the dealer's marker on it at the console; then
the losing wagers are cleared and only then the winners paid (RULES.md, "Roulette"), both
journalled, the console saying what to clear and what to pay. A void game is no spin: it is
journalled and announced, and the wagers stand for the re-spin. Settlement is the rules'
`settle_spin`, over integer cents.

The model holds the spin, the wagers (`wagers`, a `RouletteWagers`) and the wheel's history;
its parts act on them: `feed` (`feed.py`) takes the wheel's facts, `croupier`
(`croupier.py`) the marker, the clearing and the paying. Every decided number (and
only those: void games are no results) joins the history, kept in the critical state, from
which the result board and the wheel-bias monitor are computed
(`controller/console/views/roulette.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transitions import EventData

from controller.procedure.core.effects import Journal, OpLog
from controller.procedure.core.machine import build_machine
from controller.procedure.roulette.croupier import (
    Croupier,
    settle,
    wager_from_record,
    wager_record,
)
from controller.procedure.roulette.feed import WheelFacts
from controller.procedure.roulette.rows import ROWS
from controller.procedure.roulette.states import IN_PLAY, INITIAL, RO
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import SignDesk, TableOutputs
from controller.procedure.shared.wager_book import ProgressiveGate, WagerBook
from controller.rules import roulette as ro
from controller.rules.errors import RulesError


class RouletteWagers(WagerBook):
    """The wagers on the layout: any number a seat, each its bet, spot and amount."""

    model: RouletteModel

    def __init__(self, model: RouletteModel, progressive: ProgressiveGate) -> None:
        super().__init__(model, progressive, ())
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

    def layout_is_empty(self, event: EventData) -> bool:
        """Condition: no wager is on the layout."""
        return not self.placed

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

    def __init__(self, model: RouletteModel, progressive: SignDesk) -> None:
        super().__init__(model, progressive)
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
        warnings: The wheel's warnings by its game number, until the game is decided.
        last_decided: The last decided game and number (a repeat of it changes nothing).
        launched_game: The wheel game the croupier last launched (SPIN), user-start wheels;
            not in the critical state: after a restart a second start command is answered
            `*u NO` by a wheel already past place your bets.
        settled: The spin's settlement once the marker is on the number (losers, winners).
        feed: The part that takes the wheel's facts (`feed.<name>` in the table).
        croupier: The dealer's marker, clearing and paying (`croupier.<name>`).
    """

    wagers: RouletteWagers
    outputs: RouletteOutputs
    in_play_states = IN_PLAY
    pauses_without_layout = False
    """The wheel, not the layout, paces a roulette table: its loss refuses nothing more."""

    def __init__(self, setup: Setup, meters: meter_books.Meters,
                 initial: str = "shoe_loading") -> None:
        super().__init__(setup, meters)
        self.wagers = RouletteWagers(self, self.progressive)
        self.outputs = RouletteOutputs(self, self.progressive)
        self.spin = Spin()
        self.wheel_phase = "closed"
        self.wheel_game: int | None = None
        self.history: list[str] = []
        self.spin_log: list[dict[str, Any]] = []
        self.warnings: dict[int, list[str]] = {}
        self.last_decided: tuple[int, str] | None = None
        self.launched_game: int | None = None
        self.settled: ro.SpinSettlement | None = None
        self.feed = WheelFacts(self)
        self.croupier = Croupier(self)
        start = str(INITIAL) if initial == "shoe_loading" else initial
        self.machine = build_machine(self, RO, ROWS, start)

    @property
    def wheel(self) -> ro.Wheel:
        """The configured wheel and layout."""
        return self.setup.config.roulette.wheel

    # ------------------------------------------------------------------ no more bets
    def lock_out_bets(self, event: EventData) -> None:
        """Callback: no more bets; the wagers on the layout are this spin's."""
        self.spin.game = self.wheel_game if self.spin.game is None else self.spin.game
        source = "dealer" if event.event and event.event.name == "no_more_bets" else "wheel"
        self.emit(Journal("spin:no_more_bets", {"round": self.round.number,
                                                "game": self.wheel_game, "by": source,
                                                "wagers": self.wagers.in_play()}),
                  OpLog(f"no more bets ({source}): {len(self.wagers.placed)} wagers"))

    # ------------------------------------------------------------------ the round
    def discard_round(self) -> None:
        """Forget the spin in play."""
        super().discard_round()
        self.spin = Spin()
        self.settled = None

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
            self.settled = settle(self)
