"""Texas Hold'em Bonus: the procedure's states and the groups the machine and the model use."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class HE(StrEnum):
    """Texas Hold'em Bonus states: one deck shuffled by hand, the camera reads the cards."""

    SHUFFLING = "shuffling"
    BETTING = "betting"
    DEALING = "dealing"
    DECISIONS = "decisions"
    CARDS = "cards"
    CARD_HOLD = "card_hold"
    SETTLEMENT = "settlement"
    ROUND_OVER = "round_over"
    FAULT = "fault"


IN_ROUND: Final[list[HE]] = [HE.DEALING, HE.DECISIONS, HE.CARDS, HE.CARD_HOLD, HE.SETTLEMENT]
RESUMABLE: Final[list[HE]] = [HE.BETTING, HE.DEALING, HE.DECISIONS, HE.CARDS, HE.SETTLEMENT,
                              HE.ROUND_OVER]
INITIAL: Final = HE.SHUFFLING
"""Where the procedure starts on a new journal."""
IN_PLAY: Final[frozenset[str]] = frozenset(str(s) for s in IN_ROUND)
"""States in which a round's wagers are locked in and it is not settled yet."""
