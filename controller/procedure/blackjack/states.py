"""Blackjack and Spanish 21: the procedure's states and the groups the machine and the model use."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class BJ(StrEnum):
    """Blackjack and Spanish 21 states."""

    SHOE_LOADING = "shoe_loading"
    BURN = "burn"
    BETTING = "betting"
    DEALING = "dealing"
    INSURANCE = "insurance"
    PEEK = "peek"
    PLAYERS = "players"
    DEALER = "dealer"
    SETTLEMENT = "settlement"
    ROUND_OVER = "round_over"
    CARD_IN_ERROR = "card_in_error"
    RESHUFFLE_DISCARDS = "reshuffle_discards"
    SHOE_ERROR = "shoe_error"
    FAULT = "fault"


IN_ROUND: Final[list[BJ]] = [BJ.DEALING, BJ.INSURANCE, BJ.PEEK, BJ.PLAYERS, BJ.DEALER]
RESUMABLE: Final[list[BJ]] = [BJ.BURN, BJ.BETTING, BJ.DEALING, BJ.INSURANCE, BJ.PEEK, BJ.PLAYERS,
                              BJ.DEALER, BJ.SETTLEMENT, BJ.ROUND_OVER, BJ.CARD_IN_ERROR,
                              BJ.RESHUFFLE_DISCARDS]
INITIAL: Final = BJ.SHOE_LOADING
"""Where the procedure starts on a new journal."""
IN_PLAY: Final[frozenset[str]] = frozenset(
    str(s) for s in [*IN_ROUND, BJ.SETTLEMENT, BJ.CARD_IN_ERROR, BJ.RESHUFFLE_DISCARDS])
"""States in which a round's wagers are locked in and it is not settled yet."""
