"""The roulette procedure model: what the roulette transition table drives.

The wheel decides: its facts (a game starts, the ball is in the track, the winning number, a
void game, a warning) reach the table as triggers, each carrying the wheel's own game number,
which every spin record keeps. Betting is open until the wheel calls no more bets (or the
dealer does); the winning number waits for the dealer's marker on it at the console; then
the losing wagers are cleared and only then the winners paid (RULES.md, "Roulette"), both
journalled, the console saying what to clear and what to pay. A void game is no spin: it is
journalled and announced, and the wagers stand for the re-spin. Settlement is the rules'
`settle_spin`, over integer cents.

The model holds the spin (`spin.py`), the wagers (`wagers`, a `RouletteWagers`,
`wagers.py`) and the wheel's history; its parts act on them, each through the protocol of
the model it declares: `feed` (`feed.py`) takes the wheel's facts, `croupier`
(`croupier.py`) the marker, the clearing and the paying. Every decided number (and
only those: void games are no results) joins the history, kept in the critical state, from
which the result board and the wheel-bias monitor are computed
(`controller/console/views/roulette.py`).
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.core.effects import Journal, OpLog
from controller.procedure.core.machine import build_machine
from controller.procedure.core.states import TableState
from controller.procedure.roulette.croupier import Croupier, settle
from controller.procedure.roulette.feed import WheelFacts
from controller.procedure.roulette.rows import ROWS
from controller.procedure.roulette.spin import Spin, wager_from_record
from controller.procedure.roulette.states import IN_PLAY, INITIAL, RO
from controller.procedure.roulette.wagers import RouletteWagers
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import OutputsHost, SignDesk, TableOutputs
from controller.rules import roulette as ro


class RouletteOutputsHost(OutputsHost, Protocol):
    """What the roulette outputs read of the model besides the shared outputs' facts."""

    spin: Spin


class RouletteOutputs(TableOutputs):
    """The shared lamps; the dealer display names the number, the chips' next step, a void.

    The no-more-bets lamp lights from the ball in the track until betting opens again.
    """

    model: RouletteOutputsHost

    def __init__(self, model: RouletteOutputsHost, progressive: SignDesk) -> None:
        super().__init__(model, progressive)
        self.model = model

    def dealer_text(self) -> str:
        """Place your bets (after a no spin: NO SPIN first), else the spin's words."""
        text = super().dealer_text()
        if self.model.state == RO.BETTING and self.model.spin.void_games:
            return f"NO SPIN - {text}"
        return text

    def round_text(self) -> str:
        """The number and what the dealer does with the chips."""
        state, spin = self.model.state, self.model.spin
        shown = f"{spin.number} {ro.colour(spin.number).upper()}" if spin.number else ""
        texts: dict[str, str] = {
            RO.CLOSED: "TABLE CLOSED", RO.NO_MORE_BETS: "NO MORE BETS", RO.MARKER: shown,
            RO.CLEARING: f"{shown} - CLEAR LOSING BETS", RO.PAYING: f"{shown} - PAY WINNERS",
            RO.ROUND_OVER: shown}
        return texts.get(state, state.upper())


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
                 initial: str = str(TableState.SHOE_LOADING)) -> None:
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
        # The service starts every new table in the shoe's first state: no shoe here.
        start = str(INITIAL) if initial == TableState.SHOE_LOADING else initial
        self.machine = build_machine(self, RO, ROWS, start)

    @property
    def wheel(self) -> ro.Wheel:
        """The configured wheel and layout."""
        return self.setup.config.roulette.wheel

    # ------------------------------------------------------------------ between the parts
    def placed_wagers(self) -> list[ro.RouletteWager]:
        """The wagers on the layout, in the order placed (the wagers' own list)."""
        return self.wagers.placed

    def wager_count(self) -> int:
        """How many wagers are on the layout."""
        return len(self.wagers.placed)

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
