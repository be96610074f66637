"""The community-card multi-hand blackjack: its procedure's transition rows."""

from __future__ import annotations

from typing import Any, Final

from controller.procedure.community.states import CC, IN_ROUND, RESUMABLE
from controller.procedure.core.machine import Table
from controller.procedure.core.machine import between_rounds_rows as _between_rounds
from controller.procedure.core.machine import common_rows as _common
from controller.procedure.core.machine import names as _names
from controller.procedure.core.machine import row as _t


def _community() -> list[dict[str, Any]]:
    """The community game (seed 004): shared starting cards, stations deciding on timers.

    After the deal, insurance (ace up) is answered per spot by every station, then the peek
    (inside the round: its one bit). In `decisions` every station decides on its own timer;
    a card is due once no station decides and one waits; it goes to each waiting station's
    chosen hand. Once every station is finished the hole card is turned and the dealer draws.
    """
    after_deal = [(CC.INSURANCE, "stage_is_insurance", None),
                  (CC.DECISIONS, "stage_is_decisions", None),
                  (CC.DEALER, "stage_is_dealer", "reveal_hole"),
                  (CC.SETTLEMENT, "stage_is_complete", "reveal_hole")]
    return [
        *_common(CC, IN_ROUND, RESUMABLE),
        _t("clear_last", CC.BETTING, None, "wagers.has_chips", after="wagers.clear_last"),
        _t("clear_all", CC.BETTING, None, "wagers.has_chips", after="wagers.clear_all"),
        _t("repeat", CC.BETTING, None, "wagers.can_repeat", after="wagers.repeat"),
        _t("last_bets", CC.BETTING, None, after="wagers.call_last_bets"),
        # Station preferences and the attendant's credits, whatever the round is doing.
        _t("auto_repeat", _names(list(CC)), None, "wagers.station_is_known",
           after="wagers.set_auto_repeat"),
        _t("credits_in", _names(list(CC)), None, "credits.in_allowed", after="credits.add"),
        _t("credits_out", _names(list(CC)), None, "credits.out_allowed",
           after="credits.cash_out"),
        _t("card", [CC.DEALING, CC.DECISIONS, CC.DEALER], None, "play.card_is_due",
           after="play.deal_card"),
        *(_t("proceed", CC.DEALING, dest, cond, after=cb) for dest, cond, cb in after_deal),
        _t("insurance", CC.INSURANCE, None, "play.insurance_allowed",
           after="play.answer_insurance"),
        *(_t("proceed", CC.INSURANCE, dest, cond, after=cb) for dest, cond, cb in after_deal
          if dest is not CC.INSURANCE),
        # Each station on its own: hit, split, double end its round of decisions; stand not.
        *(_t(name, CC.DECISIONS, None, "play.decision_allowed", after="play.decide")
          for name in ("hit", "stand", "double", "split")),
        _t("timer_expired", [CC.INSURANCE, CC.DECISIONS], None, "play.timer_is_current",
           after="play.expire"),
        _t("timer_expired", _names(list(CC)), None),
        _t("proceed", CC.DECISIONS, CC.DEALER, "stage_is_dealer", after="reveal_hole"),
        _t("proceed", CC.DECISIONS, CC.SETTLEMENT, "stage_is_complete", after="reveal_hole"),
        _t("proceed", CC.DEALER, CC.SETTLEMENT, "stage_is_complete"),
        # A card while stations decide: not exposed, it is the next card; exposed, burned.
        _t("card", [CC.INSURANCE, CC.DECISIONS], CC.CARD_IN_ERROR,
           after="play.hold_card_in_error"),
        *(_t("error_unexposed", CC.CARD_IN_ERROR, state, f"returns_to_{state}",
             after="play.keep_as_next_card") for state in (CC.INSURANCE, CC.DECISIONS)),
        *(_t("error_exposed", CC.CARD_IN_ERROR, state, f"returns_to_{state}",
             after="burn_error_card") for state in (CC.INSURANCE, CC.DECISIONS)),
        *_between_rounds(CC, settle="settle_round", hold_error="play.hold_card_in_error",
                         deal="play.deal_card"),
    ]


ROWS: Final[Table] = tuple(_community())
