"""Roulette: the transition rows of its procedure (`controller.procedure.core.machine`)."""

from __future__ import annotations

from typing import Any, Final

from controller.procedure.core.machine import Table
from controller.procedure.core.machine import row as _t
from controller.procedure.roulette.states import IN_ROUND, RESUMABLE, RO


def _roulette() -> list[dict[str, Any]]:
    """The roulette procedure (RULES.md): bets, the wheel's number, marker, clear, then pay.

    Bets are placed until no more bets (the ball in the track); the winning number waits for
    the dealer's marker; the losing bets are cleared, then the winners paid. The wheel's
    facts arrive as triggers of their own (`controller/service/wheel_intake.py`): each has
    an internal row from every state after the rows that act on it, so a fact the state does
    not act on is journalled, never refused.
    """
    every = [str(s) for s in RO]
    live = [str(s) for s in RO if s is not RO.FAULT]
    rows = [
        # The wheel opens a game: a closed table opens for bets.
        _t("wheel_start", RO.CLOSED, RO.BETTING, after=["feed.note_wheel", "open_betting"]),
        # The wheel moved on without deciding the spin (a contradiction held, lines lost):
        # no spin, the wagers stand.
        _t("wheel_start", RO.NO_MORE_BETS, RO.BETTING, "feed.wheel_moved_on",
           after=["feed.note_wheel", "feed.abandon_spin"]),
        _t("wheel_start", every, None, after="feed.note_wheel"),
        _t("ball_in_rim", every, None, after="feed.note_wheel"),
        # No more bets when the ball is in the track: the wheel says so, or the dealer.
        _t("wheel_no_more_bets", RO.BETTING, RO.NO_MORE_BETS,
           after=["feed.note_wheel", "lock_out_bets"]),
        _t("wheel_no_more_bets", RO.CLOSED, RO.NO_MORE_BETS,
           after=["feed.note_wheel", "open_betting", "lock_out_bets"]),
        _t("wheel_no_more_bets", every, None, after="feed.note_wheel"),
        _t("no_more_bets", RO.BETTING, RO.NO_MORE_BETS, after="lock_out_bets"),
        # A wheel in user-start mode holds each game in place your bets for the croupier.
        _t("launch", RO.BETTING, None, "feed.launch_allowed", after="feed.launch_wheel"),
        _t("wheel_status", every, None, after="feed.note_wheel"),
        _t("wheel_warning", every, None, after="feed.note_warning"),
        # The winning number: once per game; one the layout does not have stops the table.
        _t("winning_number", live, RO.FAULT, "feed.number_is_impossible",
           after="record_hold"),
        _t("winning_number", every, None, "feed.result_is_repeat", after="feed.note_repeat"),
        _t("winning_number", RO.NO_MORE_BETS, RO.BETTING, "feed.wheel_moved_on",
           after=["feed.abandon_spin", "feed.note_unplayed"]),
        # A game no wager was on settles itself: nothing to mark, clear or pay.
        _t("winning_number", RO.NO_MORE_BETS, RO.ROUND_OVER, "wagers.layout_is_empty",
           after=["feed.take_result", "croupier.settle_empty_layout"]),
        _t("winning_number", RO.BETTING, RO.ROUND_OVER, "wagers.layout_is_empty",
           after=["feed.late_lock_out", "feed.take_result", "croupier.settle_empty_layout"]),
        _t("winning_number", RO.NO_MORE_BETS, RO.MARKER, after="feed.take_result"),
        _t("winning_number", RO.BETTING, RO.MARKER,
           after=["feed.late_lock_out", "feed.take_result"]),
        _t("winning_number", every, None, after="feed.note_unplayed"),
        # A void game is no spin: announced, journalled; the wagers stand for the re-spin.
        _t("void_spin", [RO.BETTING, RO.NO_MORE_BETS], RO.BETTING,
           after="feed.announce_void"),
        _t("void_spin", every, None, after="feed.note_unplayed_void"),
        _t("wheel_closed", [RO.BETTING, RO.NO_MORE_BETS], RO.CLOSED,
           after=["feed.note_wheel", "feed.close_table"]),
        _t("wheel_closed", every, None, after="feed.note_wheel"),
        # The dealer: the marker on the number, the losing bets cleared, the winners paid.
        _t("marker", RO.MARKER, RO.CLEARING, "croupier.marker_matches",
           after="croupier.place_marker"),
        _t("losers_cleared", RO.CLEARING, RO.PAYING, after="croupier.clear_losers"),
        _t("winners_paid", RO.PAYING, RO.ROUND_OVER, after="croupier.settle_round"),
        _t("clear_round", RO.ROUND_OVER, RO.CLOSED, "feed.wheel_is_closed",
           after="close_round"),
        _t("clear_round", RO.ROUND_OVER, RO.NO_MORE_BETS, "feed.wheel_past_bets",
           after=["open_betting", "lock_out_bets"]),
        _t("clear_round", RO.ROUND_OVER, RO.BETTING, after="open_betting"),
        _t("wager", RO.BETTING, None, "wagers.wager_allowed", after="wagers.place_wager"),
        _t("cancel_wager", RO.BETTING, None, "wagers.cancel_allowed",
           after="wagers.cancel_wager"),
        _t("bet_sensor", live, None, after="wagers.sense_bet"),
        # Holds, links and the supervisor key (R9).
        _t("fault", every, RO.FAULT, after="record_hold"),
        _t("camera_status", every, None, after="note_camera_status"),
        _t("link_down", every, None, after="progressive.link_down"),
        _t("link_up", every, None, after="progressive.link_up"),
        _t("key_off", every, None, after="key_released"),
        _t("void_round", [str(s) for s in IN_ROUND], RO.BETTING, "supervisor_key_on",
           after=["void_in_play", "open_betting"]),
    ]
    rows.extend(_t("supervisor_clear", RO.FAULT, state,
                   ["supervisor_key_on", f"resumes_to_{state}"], after="record_clear")
                for state in [*RESUMABLE, RO.CLOSED])
    rows.append(_t("supervisor_clear", RO.FAULT, RO.CLOSED, "supervisor_key_on",
                   after="void_and_clear"))
    return rows


ROWS: Final[Table] = tuple(_roulette())
