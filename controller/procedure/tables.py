"""The dealing procedures as declarative transition tables: the only place transitions live.

One table per game family: blackjack (also Spanish 21), Midi Baccarat, roulette, the
community-card multi-hand blackjack and Texas Hold'em Bonus. Each
entry is a `transitions` transition: trigger (a domain verb), source, destination (None = internal),
conditions (named predicates on the model, tried in table order: the first whose conditions
hold wins) and callbacks (named methods on the model, which only produce effects).

Irregularities (RULES.md, R8) each have their own named trigger. Shoe and reader errors
stop the table in `shoe_error`; exceptions and device faults in `fault`; only
`supervisor_clear` (the supervisor key, never a dealer button) leaves either (R9).

`shoectl diagram GAME` draws these tables; `controller/procedure/procedure_<game>.mmd` is the
committed mermaid rendering, kept fresh by a test.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from transitions import Machine


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


Table = tuple[dict[str, Any], ...]


def _t(trigger: str, source: Any, dest: Any, conditions: str | list[str] | None = None,
       after: str | list[str] | None = None, before: str | None = None) -> dict[str, Any]:
    src = [str(x) for x in source] if isinstance(source, list) else str(source)
    entry: dict[str, Any] = {"trigger": trigger, "source": src,
                             "dest": None if dest is None else str(dest)}
    if conditions:
        entry["conditions"] = conditions
    if after:
        entry["after"] = after
    if before:
        entry["before"] = before
    return entry


def _names(states: list[StrEnum]) -> list[str]:
    return [str(s) for s in states]


def _common(S: Any, in_round: list[Any],  # noqa: N803 (S: the family's state enum)
            resumable: list[Any]) -> list[dict[str, Any]]:
    """Transitions both families share: shoe, holds, link state, supervisor actions."""
    every = _names(list(S))
    live = _names([s for s in S if s not in (S.SHOE_ERROR, S.FAULT)])
    in_play = _names([*in_round, S.SETTLEMENT, S.CARD_IN_ERROR, S.RESHUFFLE_DISCARDS])
    rows = [
        _t("shuffle_done", S.SHOE_LOADING, S.BURN, "shoe.burn_needed", after="shoe.record_shuffle"),
        _t("shuffle_done", S.SHOE_LOADING, S.BETTING, after="shoe.record_shuffle"),
        _t("card", S.BURN, S.BETTING, "shoe.card_is_possible", after="shoe.burn_card"),
        _t("wager", S.BETTING, None, "wagers.wager_allowed", after="wagers.place_wager"),
        _t("bet_sensor", live, None, after="wagers.sense_bet"),
        # Bet sensors lock out at no more bets; the meter rises per accepted wager (R10).
        # ...and only while the layout board answers: its loss pauses the table.
        _t("no_more_bets", S.BETTING, S.DEALING, ["wagers.has_wagers", "layout_answers"],
           after="lock_out_bets"),
        # Shoe and reader errors (R9): only the supervisor key leaves shoe_error.
        _t("card", live, S.SHOE_ERROR, "shoe.card_is_impossible", after="record_hold"),
        _t("card_unreadable", live, S.SHOE_ERROR, after="record_hold"),
        _t("wrong_back", live, S.SHOE_ERROR, after="record_hold"),
        _t("shoe_error", live, S.SHOE_ERROR, after="record_hold"),
        _t("fault", every, S.FAULT, after="record_hold"),
        # Irregularities that do not stop the table (RULES.md).
        _t("face_up_card", live, None, after="shoe.discard_face_up"),
        _t("cut_card", live, None, after="shoe.note_cut_card"),
        # The shoe is empty: that matters only once a card is due (decision 106 "Shoe"). A
        # round that completes with the cards dealt is settled; one that wants a card that
        # is not there waits for the discards (a live table) or is voided (a shoe file).
        _t("shoe_empty", _names(in_round), S.RESHUFFLE_DISCARDS, "shoe.card_is_wanted",
           after="shoe.record_too_few"),
        _t("shoe_empty", in_play, None, after="shoe.note_shoe_empty"),
        _t("shoe_empty", [S.SHOE_LOADING, S.BURN, S.BETTING, S.ROUND_OVER], S.SHOE_LOADING,
           after="shoe.record_shoe_finished"),
        _t("out_of_cards", _names(in_round), S.RESHUFFLE_DISCARDS, "shoe.card_is_wanted",
           after="shoe.record_too_few"),
        # A void round (supervisor key, R9): every wager is returned and the progressive
        # contributions it collected are reversed by a recorded meter:void.
        _t("void_round", in_play, S.SHOE_LOADING, ["supervisor_key_on", "shoe.shuffle_due"],
           after="void_in_play"),
        _t("void_round", in_play, S.BETTING, "supervisor_key_on",
           after=["void_in_play", "open_betting"]),
        # The camera cross-check (R9): a mismatch or a card the shoe never dealt.
        _t("camera_fault", every, S.FAULT, after="record_hold"),
        _t("camera_status", every, None, after="note_camera_status"),
        _t("link_down", every, None, after=["note_layout_link", "progressive.link_down"]),
        _t("link_up", every, None, after=["note_layout_link", "progressive.link_up"]),
        _t("meter_correction", every, None, "supervisor_key_on", after="progressive.correct_meter"),
        _t("meter_params", every, None, "supervisor_key_on", after="progressive.file_meter_params"),
        # A linked hit the progressive controller rejected, paid by the supervisor (pit view).
        _t("settle_hit_by_hand", every, None, "progressive.may_settle_by_hand",
           after="progressive.settle_by_hand"),
        _t("key_off", every, None, after="key_released"),
        _t("new_shoe", [S.BETTING, S.ROUND_OVER], S.SHOE_LOADING, after="shoe.record_new_shoe"),
    ]
    rows.extend(_t("shuffle_done", S.RESHUFFLE_DISCARDS, state, f"reshuffled_to_{state}",
                   after="shoe.record_discards_shuffled") for state in resumable)
    for hold in (S.SHOE_ERROR, S.FAULT):
        rows.extend(_t("supervisor_clear", hold, state,
                       ["supervisor_key_on", f"resumes_to_{state}"], after="record_clear")
                    for state in [*resumable, S.SHOE_LOADING])
        rows.append(_t("supervisor_clear", hold, S.SHOE_LOADING, "supervisor_key_on",
                       after="void_and_clear"))
    return rows


def _between_rounds(S: Any, settle: str = "settle_round",  # noqa: N803 (S: the family's states)
                    hold_error: str = "hold_card_in_error",
                    deal: str = "deal_card") -> list[dict[str, Any]]:
    """The end of a round both families share: settlement, then the next round or the shuffle.

    A card drawn when none is due, while bets are open or after settlement, is held in
    `card_in_error` until the dealer says whether it was exposed; either way it is burned.
    These rows come after each family's own, which may claim such a card first.
    """
    rows = [
        _t("proceed", S.SETTLEMENT, S.ROUND_OVER, after=settle),
        # The first card out while betting is open closes betting when a seat is in play
        # and the layout answers; else it is a card drawn in error (never dealt unlit).
        _t("card", S.BETTING, S.DEALING, ["wagers.has_wagers", "layout_answers"],
           after=["lock_out_bets", deal]),
        _t("card", [S.BETTING, S.ROUND_OVER], S.CARD_IN_ERROR, after=hold_error),
    ]
    rows.extend(_t(trigger, S.CARD_IN_ERROR, state, f"returns_to_{state}",
                   after="burn_error_card")
                for state in (S.BETTING, S.ROUND_OVER)
                for trigger in ("error_unexposed", "error_exposed"))
    rows += [
        # The next round, or the shuffle when the cut card came out (R7).
        _t("clear_round", S.ROUND_OVER, S.SHOE_LOADING, "shoe.shuffle_due", after="close_round"),
        _t("clear_round", S.ROUND_OVER, S.BETTING, after="open_betting"),
    ]
    return rows


_BJ_IN_ROUND: Final = [BJ.DEALING, BJ.INSURANCE, BJ.PEEK, BJ.PLAYERS, BJ.DEALER]
_BJ_RESUMABLE: Final = [BJ.BURN, BJ.BETTING, BJ.DEALING, BJ.INSURANCE, BJ.PEEK, BJ.PLAYERS,
                        BJ.DEALER, BJ.SETTLEMENT, BJ.ROUND_OVER, BJ.CARD_IN_ERROR,
                        BJ.RESHUFFLE_DISCARDS]

BLACKJACK_TABLE: Final[Table] = (
    *_common(BJ, _BJ_IN_ROUND, _BJ_RESUMABLE),
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

_BAC_IN_ROUND: Final = [BAC.DEALING, BAC.PLAYER_THIRD, BAC.BANKER_THIRD]
_BAC_RESUMABLE: Final = [BAC.BURN, BAC.BETTING, BAC.DEALING, BAC.PLAYER_THIRD,
                         BAC.BANKER_THIRD, BAC.SETTLEMENT, BAC.ROUND_OVER,
                         BAC.CARD_IN_ERROR, BAC.RESHUFFLE_DISCARDS]

BACCARAT_TABLE: Final[Table] = (
    *_common(BAC, _BAC_IN_ROUND, _BAC_RESUMABLE),
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

_RO_IN_ROUND: Final = [RO.NO_MORE_BETS, RO.MARKER, RO.CLEARING, RO.PAYING]
_RO_RESUMABLE: Final = [RO.BETTING, *_RO_IN_ROUND, RO.ROUND_OVER]


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
        _t("wheel_status", every, None, after="feed.note_wheel"),
        _t("wheel_warning", every, None, after="feed.note_warning"),
        # The winning number: once per game; one the layout does not have stops the table.
        _t("winning_number", live, RO.FAULT, "feed.number_is_impossible",
           after="record_hold"),
        _t("winning_number", every, None, "feed.result_is_repeat", after="feed.note_repeat"),
        _t("winning_number", RO.NO_MORE_BETS, RO.BETTING, "feed.wheel_moved_on",
           after=["feed.abandon_spin", "feed.note_unplayed"]),
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
        _t("void_round", [str(s) for s in _RO_IN_ROUND], RO.BETTING, "supervisor_key_on",
           after=["void_in_play", "open_betting"]),
    ]
    rows.extend(_t("supervisor_clear", RO.FAULT, state,
                   ["supervisor_key_on", f"resumes_to_{state}"], after="record_clear")
                for state in [*_RO_RESUMABLE, RO.CLOSED])
    rows.append(_t("supervisor_clear", RO.FAULT, RO.CLOSED, "supervisor_key_on",
                   after="void_and_clear"))
    return rows


ROULETTE_TABLE: Final[Table] = tuple(_roulette())

_CC_IN_ROUND: Final = [CC.DEALING, CC.INSURANCE, CC.DECISIONS, CC.DEALER]
_CC_RESUMABLE: Final = [CC.BURN, CC.BETTING, *_CC_IN_ROUND, CC.SETTLEMENT, CC.ROUND_OVER,
                        CC.CARD_IN_ERROR, CC.RESHUFFLE_DISCARDS]


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
        *_common(CC, _CC_IN_ROUND, _CC_RESUMABLE),
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


COMMUNITY_TABLE: Final[Table] = tuple(_community())

_HE_IN_ROUND: Final = [HE.DEALING, HE.DECISIONS, HE.CARDS, HE.CARD_HOLD, HE.SETTLEMENT]
_HE_RESUMABLE: Final = [HE.BETTING, HE.DEALING, HE.DECISIONS, HE.CARDS, HE.SETTLEMENT,
                        HE.ROUND_OVER]


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
        _t("void_round", [str(s) for s in _HE_IN_ROUND], HE.SHUFFLING, "supervisor_key_on",
           after="void_in_play"),
        *(_t("supervisor_clear", HE.FAULT, state, ["supervisor_key_on", f"resumes_to_{state}"],
             after="record_clear") for state in [*_HE_RESUMABLE, HE.SHUFFLING]),
        _t("supervisor_clear", HE.FAULT, HE.SHUFFLING, "supervisor_key_on",
           after="void_and_clear"),
    ]


HOLDEM_TABLE: Final[Table] = tuple(_holdem())

TABLES: Final[dict[str, tuple[type[StrEnum], Table]]] = {
    "blackjack": (BJ, BLACKJACK_TABLE),
    "baccarat": (BAC, BACCARAT_TABLE),
    "roulette": (RO, ROULETTE_TABLE),
    "community": (CC, COMMUNITY_TABLE),
    "holdem": (HE, HOLDEM_TABLE),
}
FAMILY: Final = {"blackjack": "blackjack", "spanish21": "blackjack", "baccarat": "baccarat",
                 "roulette": "roulette", "community": "community",
                 "holdem": "holdem"}
INITIAL: Final = {"blackjack": "shoe_loading", "baccarat": "shoe_loading", "roulette": "closed",
                  "community": "shoe_loading", "holdem": "shuffling"}
"""Where each family's procedure starts on a new journal."""
IN_PLAY: Final[frozenset[str]] = frozenset(
    str(s) for s in [*_BJ_IN_ROUND, *_BAC_IN_ROUND, BJ.SETTLEMENT, BJ.CARD_IN_ERROR,
                     BJ.RESHUFFLE_DISCARDS, *_RO_IN_ROUND, *_CC_IN_ROUND, *_HE_IN_ROUND])
"""States in which a round's wagers are locked in and it is not settled yet (any family)."""


def build_machine(model: Any, family: str, initial: str = "shoe_loading") -> Machine:
    """Bind the family's table to `model` with the settings the procedure relies on.

    Automatic `to_<state>` transitions are off, triggers fired from callbacks queue behind
    the current one, and invalid triggers raise (the model records them as faults).
    """
    states, table = TABLES[family]
    return Machine(
        model=model, states=[str(s) for s in states], transitions=list(table),
        initial=initial, auto_transitions=False, queued=True, send_event=True,
        ignore_invalid_triggers=False, finalize_event="finalize",
        on_exception="on_exception", after_state_change="record_state_change",
    )


def callback_names(family: str) -> set[str]:
    """Every condition and callback name the family's table uses."""
    names: set[str] = set()
    for row in TABLES[family][1]:
        for key in ("conditions", "after", "before"):
            value = row.get(key)
            names.update([value] if isinstance(value, str) else value or [])
    return names
