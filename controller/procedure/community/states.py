"""The community-card multi-hand blackjack: its procedure's states."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class CC(StrEnum):
    """Community-card multi-hand blackjack states (the stations' own phases: the model)."""

    SHOE_LOADING = "shoe_loading"
    BURN = "burn"
    BETTING = "betting"
    DEALING = "dealing"
    INSURANCE = "insurance"
    DECISIONS = "decisions"
    DEALER = "dealer"
    SETTLEMENT = "settlement"
    ROUND_OVER = "round_over"
    CARD_IN_ERROR = "card_in_error"
    RESHUFFLE_DISCARDS = "reshuffle_discards"
    SHOE_ERROR = "shoe_error"
    FAULT = "fault"


IN_ROUND: Final[list[CC]] = [CC.DEALING, CC.INSURANCE, CC.DECISIONS, CC.DEALER]
RESUMABLE: Final[list[CC]] = [CC.BURN, CC.BETTING, *IN_ROUND, CC.SETTLEMENT, CC.ROUND_OVER,
                              CC.CARD_IN_ERROR, CC.RESHUFFLE_DISCARDS]
INITIAL: Final = CC.SHOE_LOADING
"""Where the procedure starts on a new journal."""
IN_PLAY: Final[frozenset[str]] = frozenset(
    str(s) for s in [*IN_ROUND, CC.SETTLEMENT, CC.CARD_IN_ERROR, CC.RESHUFFLE_DISCARDS])
"""States in which a round's wagers are locked in and it is not settled yet."""
