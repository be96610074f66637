"""Midi Baccarat: the procedure's states and the groups the machine and the model use."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class BAC(StrEnum):
    """Midi Baccarat states."""

    SHOE_LOADING = "shoe_loading"
    BURN = "burn"
    BETTING = "betting"
    DEALING = "dealing"
    PLAYER_THIRD = "player_third"
    BANKER_THIRD = "banker_third"
    SETTLEMENT = "settlement"
    ROUND_OVER = "round_over"
    CARD_IN_ERROR = "card_in_error"
    RESHUFFLE_DISCARDS = "reshuffle_discards"
    SHOE_ERROR = "shoe_error"
    FAULT = "fault"


IN_ROUND: Final[list[BAC]] = [BAC.DEALING, BAC.PLAYER_THIRD, BAC.BANKER_THIRD]
RESUMABLE: Final[list[BAC]] = [BAC.BURN, BAC.BETTING, BAC.DEALING, BAC.PLAYER_THIRD,
                               BAC.BANKER_THIRD, BAC.SETTLEMENT, BAC.ROUND_OVER,
                               BAC.CARD_IN_ERROR, BAC.RESHUFFLE_DISCARDS]
INITIAL: Final = BAC.SHOE_LOADING
"""Where the procedure starts on a new journal."""
IN_PLAY: Final[frozenset[str]] = frozenset(
    str(s) for s in [*IN_ROUND, BAC.SETTLEMENT, BAC.CARD_IN_ERROR, BAC.RESHUFFLE_DISCARDS])
"""States in which a round's wagers are locked in and it is not settled yet."""
