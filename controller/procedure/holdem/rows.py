"""Texas Hold'em Bonus: its procedure's transition rows."""

from __future__ import annotations

from typing import Any, Final

from controller.procedure.core.machine import Table
from controller.procedure.core.machine import names as _names
from controller.procedure.core.machine import row as _t
from controller.procedure.holdem.states import HE, IN_ROUND, RESUMABLE


def _holdem() -> list[dict[str, Any]]:
    """Texas Hold'em Bonus (seed 003): the round's own stages live in its `HoldemRound`.

    Ante and bonus are placed while betting is open (console wagers, the sensors saying where
    chips lie); at no more bets the dealer deals the hole cards face down and says so. The
    seats decide at the console (bet or fold; after the flop and the turn, bet or check);
    the camera reads each card turned up in its area (`camera_card`); a card it did not
    confirm is confirmed or keyed at the console; a card seen twice stops the round in
    `card_hold`, which only the supervisor key leaves. Every round the deck is shuffled.
    """
    every = _names(list(HE))
    live = _names([s for s in HE if s is not HE.FAULT])
    return [
        _t("shuffle_done", HE.SHUFFLING, HE.BETTING, after="open_betting"),
        _t("wager", HE.BETTING, None, "wagers.wager_allowed", after="wagers.place_wager"),
        _t("bet_sensor", live, None, after="wagers.sense_bet"),
        # A lost layout pauses the table: betting stays open but cannot close.
        _t("no_more_bets", HE.BETTING, HE.DEALING,
           ["wagers.has_wagers", "wagers.amounts_known", "layout_answers"],
           after="play.start_round"),
        _t("hole_cards_dealt", HE.DEALING, HE.DECISIONS, after="play.dealt"),
        *(_t(name, HE.DECISIONS, None, "play.decision_allowed", after="play.decide")
          for name in ("bet", "fold", "check")),
        _t("proceed", HE.DECISIONS, HE.SETTLEMENT, "play.stage_is_complete"),
        _t("proceed", HE.DECISIONS, HE.CARDS, "play.stage_is_cards"),
        # The camera's readings; a card asked for is confirmed or keyed at the console.
        _t("camera_card", HE.CARDS, None, after="play.take_reading"),
        _t("camera_card", every, None, after="play.note_unread"),
        _t("confirm_card", HE.CARDS, None, "play.guess_waits", after="play.confirm_card"),
        _t("key_card", HE.CARDS, None, "play.key_allowed", after="play.key_card"),
        _t("proceed", HE.CARDS, HE.CARD_HOLD, "play.round_is_held", after="play.record_hold"),
        _t("proceed", HE.CARDS, HE.DECISIONS, "play.stage_is_decision"),
        _t("proceed", HE.CARDS, HE.SETTLEMENT, "play.stage_is_complete"),
        _t("supervisor_clear", HE.CARD_HOLD, HE.CARDS, "supervisor_key_on",
           after=["play.clear_hold", "record_clear"]),
        _t("proceed", HE.SETTLEMENT, HE.ROUND_OVER, after="play.settle_round"),
        _t("clear_round", HE.ROUND_OVER, HE.SHUFFLING, after="close_round"),
        # Holds, links, the camera and the supervisor key (R9).
        _t("fault", every, HE.FAULT, after="record_hold"),
        _t("camera_status", every, None, after="note_camera_status"),
        _t("link_down", every, None, after=["note_layout_link", "progressive.link_down"]),
        _t("link_up", every, None, after=["note_layout_link", "progressive.link_up"]),
        _t("key_off", every, None, after="key_released"),
        _t("void_round", [str(s) for s in IN_ROUND], HE.SHUFFLING, "supervisor_key_on",
           after="void_in_play"),
        *(_t("supervisor_clear", HE.FAULT, state, ["supervisor_key_on", f"resumes_to_{state}"],
             after="record_clear") for state in [*RESUMABLE, HE.SHUFFLING]),
        _t("supervisor_clear", HE.FAULT, HE.SHUFFLING, "supervisor_key_on",
           after="void_and_clear"),
    ]


ROWS: Final[Table] = tuple(_holdem())
