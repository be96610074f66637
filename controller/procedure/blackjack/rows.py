"""Blackjack and Spanish 21: its procedure's transition rows."""

from __future__ import annotations

from typing import Final

from controller.procedure.blackjack.states import BJ, IN_ROUND, RESUMABLE
from controller.procedure.core.machine import Table
from controller.procedure.core.machine import between_rounds_rows as _between_rounds
from controller.procedure.core.machine import common_rows as _common
from controller.procedure.core.machine import row as _t

ROWS: Final[Table] = (
    *_common(BJ, IN_ROUND, RESUMABLE),
    # A seat in play for this round, with its main wager when the dealer knows it.
    _t("seat", BJ.BETTING, None, "wagers.seat_allowed", after="wagers.set_seat"),
    # The initial deal (R7) and its irregularities.
    _t("card", BJ.DEALING, None, "deal.card_is_due", after="deal.deal_card"),
    _t("seat_no_card", BJ.DEALING, None, "deal.seat_without_card", after="deal.dead_hand"),
    _t("seat_one_card", BJ.DEALING, None, "deal.seat_in_round", after="deal.second_card_last"),
    _t("dealer_missed_card", BJ.DEALING, None, "deal.dealer_card_pending",
       after="deal.dealer_card_last"),
    _t("proceed", BJ.DEALING, BJ.INSURANCE, "phase_is_insurance", after="insurer.open"),
    _t("proceed", BJ.DEALING, BJ.PEEK, "phase_is_peek"),
    _t("proceed", BJ.DEALING, BJ.PLAYERS, "phase_after_peek", after="decisions.start_players"),
    # Insurance and even money, seat by seat, closed before the peek (R4).
    _t("insurance", BJ.INSURANCE, None, "insurer.allowed", after="insurer.take"),
    _t("even_money", BJ.INSURANCE, None, "insurer.even_money_allowed",
       after="insurer.take_even_money"),
    _t("no_insurance", BJ.INSURANCE, None, "insurer.due", after="insurer.decline"),
    _t("proceed", BJ.INSURANCE, BJ.PEEK, "insurer.closed", after="insurer.close"),
    # The peek: the blackjack lamp is its only output (R5).
    _t("proceed", BJ.PEEK, BJ.SETTLEMENT, "insurer.dealer_has_blackjack",
       after="insurer.reveal_blackjack"),
    _t("proceed", BJ.PEEK, BJ.PLAYERS, after="insurer.peek_clear"),
    # Player decisions (layout buttons or bots), one hand at a time from the dealer's left.
    _t("hit", BJ.PLAYERS, None, "decisions.can_hit", after="decisions.decide"),
    _t("stand", BJ.PLAYERS, None, "decisions.can_stand", after="decisions.decide"),
    _t("double", BJ.PLAYERS, None, "decisions.can_double", after="decisions.decide"),
    _t("split", BJ.PLAYERS, None, "decisions.can_split", after="decisions.decide"),
    _t("surrender", BJ.PLAYERS, None, "decisions.can_surrender", after="decisions.decide"),
    _t("rescue", BJ.PLAYERS, None, "decisions.can_rescue", after="decisions.decide"),
    _t("card", BJ.PLAYERS, None, "deal.card_is_due", after="deal.deal_card"),
    # A card drawn to the hand due to act is a hit for it.
    _t("card", BJ.PLAYERS, None, "decisions.card_is_a_hit", after="decisions.hit_with_card"),
    _t("card", [BJ.PLAYERS, BJ.INSURANCE, BJ.PEEK], BJ.CARD_IN_ERROR,
       after="deal.hold_card_in_error"),
    _t("proceed", BJ.PLAYERS, BJ.DEALER, "phase_is_dealer", after="insurer.reveal_hole"),
    _t("proceed", BJ.PLAYERS, BJ.SETTLEMENT, "phase_is_complete", after="insurer.reveal_hole"),
    # A card drawn in error: not exposed, it is the next card; exposed, it is offered.
    *(_t(trigger, BJ.CARD_IN_ERROR, state, f"returns_to_{state}", after=callback)
      for trigger, callback in (("error_unexposed", "deal.keep_as_next_card"),
                                ("error_exposed", "deal.offer_exposed_card"))
      for state in (BJ.PLAYERS, BJ.INSURANCE, BJ.PEEK)),
    # The dealer's turn: lamps say draw or stand.
    _t("card", BJ.DEALER, None, "deal.card_is_due", after="deal.deal_card"),
    _t("proceed", BJ.DEALER, BJ.SETTLEMENT, "phase_is_complete"),
    # After settlement: a card drawn by a dealer who stood on 17-21 is burned.
    _t("card", BJ.ROUND_OVER, None, "deal.dealer_stood_17_21", after="deal.burn_overdraw"),
    *_between_rounds(BJ, settle="settlement.settle_round",
                     hold_error="deal.hold_card_in_error", deal="deal.deal_card"),
)
