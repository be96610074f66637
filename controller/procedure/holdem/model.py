"""The Texas Hold'em Bonus procedure model (seed 003): what the hold'em table drives.

No shoe deals this game: one deck is shuffled by hand every round (`shuffle_done` opens
betting), and the overhead camera is the card reader (`camera_card` triggers). The round is a
`HoldemRound`; the model's parts act on it: `wagers` (ante and bonus, `HoldemWagerBook`) and
`play` (the deal, the decisions, the cards, settlement: `controller.procedure.holdem.play`),
each reading the model through a protocol of its own module; the play asks the wagers
through the model (`antes`, `fixed_amounts`).

Public outputs (lamps, the dealer display, the console's view) come from the round's
`public()`, which holds only cards turned up and read: the dealer's cards appear once they
are exposed, never before (R5).
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.core.effects import Lamp, LampState
from controller.procedure.core.machine import build_machine
from controller.procedure.core.states import TableState
from controller.procedure.holdem.play import HoldemPlay, HoldemWagerBook
from controller.procedure.holdem.round import Area, Ask, HoldemRound, HoldemStage, Seat
from controller.procedure.holdem.rows import ROWS
from controller.procedure.holdem.states import HE, IN_PLAY, INITIAL
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import OutputsHost, SignDesk, TableOutputs
from controller.rules.cards import Card
from controller.rules.holdem import HoldemNets, HoldemWagers


class HoldemOutputsHost(OutputsHost, Protocol):
    """What the hold'em outputs read of the model besides the shared outputs' facts."""

    game: HoldemRound | None


class HoldemOutputs(TableOutputs):
    """The shared lamps (the fault lamp flashes in `card_hold` too); the round's prompt."""

    model: HoldemOutputsHost

    def __init__(self, model: HoldemOutputsHost, progressive: SignDesk) -> None:
        super().__init__(model, progressive)
        self.model = model

    def lamps(self) -> dict[str, LampState]:
        """The shared lamps; a held round flashes the fault lamp; shuffling lights shuffle."""
        lamps = super().lamps()
        if self.model.state == HE.CARD_HOLD:
            lamps[Lamp.FAULT] = LampState.FLASH
        if self.model.state == HE.SHUFFLING:
            lamps[Lamp.SHUFFLE] = LampState.ON
        return lamps

    def round_text(self) -> str:
        """SHUFFLE, DEAL, BET OR FOLD..., CARD HOLD: from the round's public prompt."""
        game = self.model.game
        if self.model.state == HE.SHUFFLING:
            return "SHUFFLE THE DECK"
        if self.model.state == HE.CARD_HOLD:
            return "CARD HOLD: SUPERVISOR KEY REQUIRED"
        if game is None or self.model.state == HE.ROUND_OVER:
            return ("ROUND OVER" if self.model.state == HE.ROUND_OVER
                    else self.model.state.upper())
        return game.prompt.upper()


class HoldemModel(TableModel):
    """The model the hold'em transition table drives.

    Attributes:
        game: The round in play (None before no more bets and after the round is cleared).
    """

    wagers: HoldemWagerBook
    outputs: HoldemOutputs
    in_play_states = IN_PLAY

    def __init__(self, setup: Setup, meters: meter_books.Meters,
                 initial: str = str(TableState.SHOE_LOADING)) -> None:
        super().__init__(setup, meters)
        self.game: HoldemRound | None = None
        self.wagers = HoldemWagerBook(self, self.progressive)
        self.play = HoldemPlay(self)
        self.outputs = HoldemOutputs(self, self.progressive)
        # The service starts every new table in the shoe's first state: no shoe here.
        start = str(INITIAL) if initial == TableState.SHOE_LOADING else initial
        self.machine = build_machine(self, HE, ROWS, start)

    def antes(self) -> dict[int, tuple[int, int]]:
        """Every seat's (ante, bonus) in cents, for the seats whose ante is known."""
        return self.wagers.antes()

    def fixed_amounts(self) -> list[str]:
        """The sensors whose wager this round is the table's fixed amount (none entered)."""
        return self.wagers.fixed_amounts()

    def discard_round(self) -> None:
        """Forget the round in play."""
        super().discard_round()
        self.game = None

    def close_round(self, event: EventData) -> None:
        """Callback: the round is over; the cards are collected while the deck is shuffled."""
        super().close_round(event)
        self.collecting = {}

    def public_round(self) -> dict[str, object] | None:
        """The round as the console may show it (None between rounds)."""
        return None if self.game is None else self.game.public()

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """Every seat's wagers in the round (what a void returns)."""
        if self.game is None:
            return self.wagers.in_play()
        return [{"seat": n, "wagers": _wagers_json(seat.wagers)}
                for n, seat in self.game.seats.items()]

    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state (the round, whole)."""
        return {**super().snapshot(),
                "holdem": None if self.game is None else round_to_json(self.game)}

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot (after a restart)."""
        super().restore(data)
        saved = data.get("holdem")
        self.game = None if saved is None else round_from_json(saved, self)


def _wagers_json(wagers: HoldemWagers) -> dict[str, int]:
    return {"ante": wagers.ante, "bonus": wagers.bonus, "flop": wagers.flop,
            "turn": wagers.turn, "river": wagers.river}


def round_to_json(game: HoldemRound) -> dict[str, Any]:
    """The round as the critical state keeps it."""
    return {
        "stage": game.stage.value, "board": [str(c) for c in game.board],
        "dealer": [str(c) for c in game.dealer], "held": game.held,
        "keyed": [str(c) for c in game.keyed], "decided": sorted(game._decided),
        "asked": None if game.asked is None else {
            "area": game.asked.area.value, "seat": game.asked.seat,
            "guess": None if game.asked.guess is None else str(game.asked.guess)},
        "seats": {str(n): {"wagers": _wagers_json(s.wagers), "cards": [str(c) for c in s.cards],
                           "nets": None if s.nets is None else {
                               "ante": s.nets.ante, "bonus": s.nets.bonus, "flop": s.nets.flop,
                               "turn": s.nets.turn, "river": s.nets.river}}
                  for n, s in game.seats.items()},
    }


def round_from_json(data: dict[str, Any], model: HoldemModel) -> HoldemRound:
    """The round from the critical state."""
    def cards(codes: list[str]) -> list[Card]:
        return [Card.parse(code) for code in codes]

    seats = {int(n): Seat(HoldemWagers(**s["wagers"]), cards(s["cards"]),
                          None if s["nets"] is None else HoldemNets(**s["nets"]))
             for n, s in data["seats"].items()}
    asked = data["asked"]
    return HoldemRound(
        seats, model.setup.config.paytables.holdem_bonus, HoldemStage(data["stage"]),
        cards(data["board"]), cards(data["dealer"]),
        None if asked is None else Ask(Area(asked["area"]), asked["seat"],
                                       None if asked["guess"] is None
                                       else Card.parse(asked["guess"])),
        data["held"], cards(data["keyed"]), set(data["decided"]))
