"""The Midi Baccarat procedure model: what the baccarat transition table drives.

The coup is the rules' `Coup`; which hand is due the next card and whether a third card is
drawn come from `controller.rules.baccarat` (R19), settlement from `settle_baccarat`. The
lamps tell the dealer which hand draws (baccarat cards are dealt face up): its parts are the
wagers (`wagers.py`) and the outputs (`outputs.py`), each handed its host as a protocol.
"""

from __future__ import annotations

from typing import Any

from transitions import EventData

from controller.procedure.baccarat.outputs import BaccaratOutputs
from controller.procedure.baccarat.rows import ROWS
from controller.procedure.baccarat.states import BAC, IN_PLAY
from controller.procedure.baccarat.wagers import BACCARAT_BETS, BaccaratWagers
from controller.procedure.core.effects import CameraCheck, Journal, OpLog
from controller.procedure.core.machine import build_machine
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.rules import baccarat as bac
from controller.rules.cards import Card


class BaccaratModel(TableModel):
    """The model the baccarat transition table drives.

    Attributes:
        coup: The rules' coup in play.
        bets: Each seat's wagers locked at no more bets.
    """

    outputs: BaccaratOutputs
    in_play_states = IN_PLAY

    def __init__(self, setup: Setup, meters: meter_books.Meters,
                 initial: str = str(BAC.SHOE_LOADING)) -> None:
        super().__init__(setup, meters)
        self.coup = bac.Coup()
        self.bets: dict[int, dict[str, int]] = {}
        self.wagers = BaccaratWagers(self, self.progressive, tuple(BACCARAT_BETS))
        self.outputs = BaccaratOutputs(self, self.progressive)
        self.machine = build_machine(self, BAC, ROWS, initial)

    def lock_out_bets(self, event: EventData) -> None:
        """Callback: no more bets; wagers are checked by the rules and the coup begins."""
        self.collecting = {}
        self.bets = {}
        for seat, wagers in sorted(self.wagers.pending.items()):
            bac.check_baccarat_bets(bac.BaccaratSeat(seat, wagers))
            self.bets[seat] = dict(wagers)
        self.coup = bac.Coup()
        self.emit(Journal("round:no_more_bets", {"round": self.round.number,
                                                 "bets": {str(k): v for k, v in
                                                          self.bets.items()}}),
                  OpLog(f"no more bets: {len(self.bets)} seats"))

    def next_side(self) -> bac.Side | None:
        """Public: which hand is due the next card."""
        if self.state not in (BAC.DEALING, BAC.PLAYER_THIRD, BAC.BANKER_THIRD):
            return None
        return bac.next_side(self.coup)

    def card_due_to(self) -> bac.Side | None:
        """Public: which hand is due the next card (None: none)."""
        side = self.next_side()
        dealt = len(self.coup.player) + len(self.coup.banker)
        if side is None or (self.state == BAC.DEALING and dealt >= 4):
            return None
        if self.state == BAC.PLAYER_THIRD and side is not bac.Side.PLAYER:
            return None
        return side

    def card_is_due(self, event: EventData) -> bool:
        """Condition: a hand is due a card."""
        return self.card_due_to() is not None

    def deal_card(self, event: EventData) -> None:
        """Callback: the card goes to the hand due (journal only)."""
        card = self.shoe.count_card(str(event.kwargs["code"]))
        side = bac.next_side(self.coup)
        self.coup = bac.deal_card(self.coup, Card.parse(card))
        self.emit(Journal("card:dealt", {"round": self.round.number,
                                         "to": side.value if side else None, "card": card}))
        if side is not None:
            self.emit(CameraCheck(side.value, card, f"card {self.shoe.tally.cards_out}"))

    def camera_layout(self) -> tuple[dict[str, list[str | None]], list[str]]:
        """The two hands as dealt."""
        zones, loose = super().camera_layout()
        zones[bac.Side.PLAYER.value] = [str(c) for c in self.coup.player]
        zones[bac.Side.BANKER.value] = [str(c) for c in self.coup.banker]
        return zones, loose

    def four_dealt(self, event: EventData) -> bool:
        """Condition: both hands have their first two cards."""
        return len(self.coup.player) + len(self.coup.banker) >= 4

    def player_due(self, event: EventData) -> bool:
        """Condition: the Player hand draws a third card."""
        return bac.next_side(self.coup) is bac.Side.PLAYER

    def banker_due(self, event: EventData) -> bool:
        """Condition: the Banker hand draws a third card."""
        return bac.next_side(self.coup) is bac.Side.BANKER

    def coup_complete(self, event: EventData) -> bool:
        """Condition: no more cards are due."""
        return self.four_dealt(event) and self.coup.complete

    def announce_draw(self, event: EventData) -> None:
        """Callback: the lamps tell the dealer which hand draws."""
        self.emit(OpLog(f"third card to {self.state.removesuffix('_third')}"))

    def settle_round(self, event: EventData) -> None:
        """Callback: settle every wager through the rules."""
        seats = [bac.BaccaratSeat(s, w) for s, w in sorted(self.bets.items())]
        nets = bac.settle_baccarat(self.coup, seats, self.setup.config.baccarat,
                                   self.setup.config.paytables.dragon_bonus)
        record: dict[str, Any] = {
            "round": self.round.number, "player": [str(c) for c in self.coup.player],
            "banker": [str(c) for c in self.coup.banker], "result": self.coup.outcome.value,
            "seats": [{"seat": s, "bets": dict(b)} for s, b in nets.items()]}
        self.round.settled = True
        self.round.result = record
        self.results.append(record)
        self.emit(Journal("round:settled", record), OpLog(f"coup {self.round.number} settled"))

    def hold_card_in_error(self, event: EventData) -> None:
        """Callback (irregularity): a card drawn when none is due; it will be burned."""
        card = self.shoe.count_card(str(event.kwargs["code"]))
        self.error_return = event.transition.source if event.transition else ""
        self.round.next_card = card
        self.emit(Journal("irregularity:card_drawn_in_error", {"card": card}),
                  OpLog("irregularity: card drawn in error", "warning"))

    def discard_round(self) -> None:
        """Forget the coup in play."""
        super().discard_round()
        self.coup, self.bets = bac.Coup(), {}

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """Each seat's locked wagers (returned if the coup is voided)."""
        return [{"seat": seat, "wagers": dict(bets)} for seat, bets in sorted(self.bets.items())]

    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state."""
        return {**super().snapshot(), "player": [str(c) for c in self.coup.player],
                "banker": [str(c) for c in self.coup.banker],
                "bets": {str(k): v for k, v in self.bets.items()}}

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot."""
        super().restore(data)
        self.coup = bac.Coup(tuple(Card.parse(c) for c in data["player"]),
                             tuple(Card.parse(c) for c in data["banker"]))
        self.bets = {int(k): dict(v) for k, v in data["bets"].items()}
