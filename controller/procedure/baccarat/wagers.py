"""The wagers of a baccarat coup: Banker, Player and Tie, and the side wagers, by seat.

Conditions and callbacks named `wagers.<name>` in the baccarat transition table: the shared
wager book, taking any of the game's own bets on a seat of the table.
"""

from __future__ import annotations

from transitions import EventData

from controller.procedure.shared.wager_book import WagerBook
from controller.rules import baccarat as bac

BACCARAT_BETS = (bac.BaccaratBet.BANKER, bac.BaccaratBet.PLAYER, bac.BaccaratBet.TIE)
"""The main wagers: a seat needs one of Banker, Player and Tie."""


class BaccaratWagers(WagerBook):
    """Baccarat wagers: any of the game's own bets on a seat of the table."""

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: a baccarat wager on a seat of this table."""
        seat, bet = int(event.kwargs.get("seat", 0)), str(event.kwargs.get("bet", ""))
        known = bet in [b.value for b in bac.BaccaratBet]
        in_range = 1 <= seat <= self.model.setup.config.table.seats
        return known and in_range and int(event.kwargs.get("cents", 0)) > 0
