"""Roulette: the procedure's states and the groups the machine and the model use."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class RO(StrEnum):
    """Roulette states: the wheel decides, the dealer marks the number, clears, then pays."""

    CLOSED = "closed"
    BETTING = "betting"
    NO_MORE_BETS = "no_more_bets"
    MARKER = "marker"
    CLEARING = "clearing"
    PAYING = "paying"
    ROUND_OVER = "round_over"
    FAULT = "fault"


IN_ROUND: Final[list[RO]] = [RO.NO_MORE_BETS, RO.MARKER, RO.CLEARING, RO.PAYING]
RESUMABLE: Final[list[RO]] = [RO.BETTING, *IN_ROUND, RO.ROUND_OVER]
INITIAL: Final = RO.CLOSED
"""Where the procedure starts on a new journal."""
IN_PLAY: Final[frozenset[str]] = frozenset(str(s) for s in IN_ROUND)
"""States in which a round's wagers are locked in and it is not settled yet."""
