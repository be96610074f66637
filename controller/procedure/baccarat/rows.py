"""Midi Baccarat: the transition rows of its procedure (`controller.procedure.core.machine`)."""

from __future__ import annotations

from typing import Final

from controller.procedure.baccarat.states import BAC, IN_ROUND, RESUMABLE
from controller.procedure.core.machine import Table
from controller.procedure.core.machine import between_rounds_rows as _between_rounds
from controller.procedure.core.machine import common_rows as _common
from controller.procedure.core.machine import row as _t

ROWS: Final[Table] = (
    *_common(BAC, IN_ROUND, RESUMABLE),
    # Cards 1 and 3 to Player, 2 and 4 to Banker; then the third-card rules (R19).
    _t("card", BAC.DEALING, None, "card_is_due", after="deal_card"),
    _t("proceed", BAC.DEALING, BAC.PLAYER_THIRD, ["four_dealt", "player_due"],
       after="announce_draw"),
    _t("proceed", BAC.DEALING, BAC.BANKER_THIRD, ["four_dealt", "banker_due"],
       after="announce_draw"),
    _t("proceed", BAC.DEALING, BAC.SETTLEMENT, "coup_complete"),
    _t("card", BAC.PLAYER_THIRD, None, "card_is_due", after="deal_card"),
    _t("proceed", BAC.PLAYER_THIRD, BAC.BANKER_THIRD, "banker_due", after="announce_draw"),
    _t("proceed", BAC.PLAYER_THIRD, BAC.SETTLEMENT, "coup_complete"),
    _t("card", BAC.BANKER_THIRD, None, "card_is_due", after="deal_card"),
    _t("proceed", BAC.BANKER_THIRD, BAC.SETTLEMENT, "coup_complete"),
    *_between_rounds(BAC),
)
