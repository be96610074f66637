"""How a game's procedure is written and bound: transition rows, and the machine they drive.

Each game family declares its transitions in `controller/procedure/<family>/rows.py` (the
only place transitions live), built from the helpers here. Each
entry is a `transitions` transition: trigger (a domain verb), source, destination (None = internal),
conditions (named predicates on the model, tried in table order: the first whose conditions
hold wins) and callbacks (named methods on the model, which only produce effects).

Irregularities (RULES.md, R8) each have their own named trigger. Shoe and reader errors
stop the table in `shoe_error`; exceptions and device faults in `fault`; only
`supervisor_clear` (the supervisor key, never a dealer button) leaves either (R9).

`shoectl diagram GAME` draws these tables; `controller/procedure/<family>/procedure_<family>.mmd`
is the committed mermaid rendering, kept fresh by a test.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from transitions import Machine

Table = tuple[dict[str, Any], ...]
"""A family's transition rows, in the order `transitions` tries them."""


def row(trigger: str, source: Any, dest: Any, conditions: str | list[str] | None = None,
        after: str | list[str] | None = None, before: str | None = None) -> dict[str, Any]:
    """One transition row: `dest` None is an internal transition (no state change)."""
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


def names(states: list[StrEnum]) -> list[str]:
    """The states' names, as the machine knows them."""
    return [str(s) for s in states]


def common_rows(S: Any, in_round: list[Any],  # noqa: N803 (S: the family's state enum)
                resumable: list[Any]) -> list[dict[str, Any]]:
    """Transitions both families share: shoe, holds, link state, supervisor actions."""
    every = names(list(S))
    live = names([s for s in S if s not in (S.SHOE_ERROR, S.FAULT)])
    in_play = names([*in_round, S.SETTLEMENT, S.CARD_IN_ERROR, S.RESHUFFLE_DISCARDS])
    rows = [
        row("shuffle_done", S.SHOE_LOADING, S.BURN, "shoe.burn_needed",
            after="shoe.record_shuffle"),
        row("shuffle_done", S.SHOE_LOADING, S.BETTING, after="shoe.record_shuffle"),
        row("card", S.BURN, S.BETTING, "shoe.card_is_possible", after="shoe.burn_card"),
        row("wager", S.BETTING, None, "wagers.wager_allowed", after="wagers.place_wager"),
        row("bet_sensor", live, None, after="wagers.sense_bet"),
        # Bet sensors lock out at no more bets; the meter rises per accepted wager (R10).
        # ...and only while the layout board answers: its loss pauses the table.
        row("no_more_bets", S.BETTING, S.DEALING, ["wagers.has_wagers", "layout_answers"],
           after="lock_out_bets"),
        # Shoe and reader errors (R9): only the supervisor key leaves shoe_error.
        row("card", live, S.SHOE_ERROR, "shoe.card_is_impossible", after="record_hold"),
        row("card_unreadable", live, S.SHOE_ERROR, after="record_hold"),
        row("wrong_back", live, S.SHOE_ERROR, after="record_hold"),
        row("shoe_error", live, S.SHOE_ERROR, after="record_hold"),
        row("fault", every, S.FAULT, after="record_hold"),
        # Irregularities that do not stop the table (RULES.md).
        row("face_up_card", live, None, after="shoe.discard_face_up"),
        row("cut_card", live, None, after="shoe.note_cut_card"),
        # The shoe is empty: that matters only once a card is due (decision 106 "Shoe"). A
        # round that completes with the cards dealt is settled; one that wants a card that
        # is not there waits for the discards (a live table) or is voided (a shoe file).
        row("shoe_empty", names(in_round), S.RESHUFFLE_DISCARDS, "shoe.card_is_wanted",
           after="shoe.record_too_few"),
        row("shoe_empty", in_play, None, after="shoe.note_shoe_empty"),
        row("shoe_empty", [S.SHOE_LOADING, S.BURN, S.BETTING, S.ROUND_OVER], S.SHOE_LOADING,
           after="shoe.record_shoe_finished"),
        row("out_of_cards", names(in_round), S.RESHUFFLE_DISCARDS, "shoe.card_is_wanted",
           after="shoe.record_too_few"),
        # A void round (supervisor key, R9): every wager is returned and the progressive
        # contributions it collected are reversed by a recorded meter:void.
        row("void_round", in_play, S.SHOE_LOADING, ["supervisor_key_on", "shoe.shuffle_due"],
           after="void_in_play"),
        row("void_round", in_play, S.BETTING, "supervisor_key_on",
           after=["void_in_play", "open_betting"]),
        # The camera cross-check (R9): a mismatch or a card the shoe never dealt.
        row("camera_fault", every, S.FAULT, after="record_hold"),
        row("camera_status", every, None, after="note_camera_status"),
        row("link_down", every, None, after=["note_layout_link", "progressive.link_down"]),
        row("link_up", every, None, after=["note_layout_link", "progressive.link_up"]),
        row("meter_correction", every, None, "supervisor_key_on",
            after="progressive.correct_meter"),
        row("meter_params", every, None, "supervisor_key_on",
            after="progressive.file_meter_params"),
        # A linked hit the progressive controller rejected, paid by the supervisor (pit view).
        row("settle_hit_by_hand", every, None, "progressive.may_settle_by_hand",
           after="progressive.settle_by_hand"),
        row("key_off", every, None, after="key_released"),
        row("new_shoe", [S.BETTING, S.ROUND_OVER], S.SHOE_LOADING, after="shoe.record_new_shoe"),
    ]
    rows.extend(row("shuffle_done", S.RESHUFFLE_DISCARDS, state, f"reshuffled_to_{state}",
                   after="shoe.record_discards_shuffled") for state in resumable)
    for hold in (S.SHOE_ERROR, S.FAULT):
        rows.extend(row("supervisor_clear", hold, state,
                       ["supervisor_key_on", f"resumes_to_{state}"], after="record_clear")
                    for state in [*resumable, S.SHOE_LOADING])
        rows.append(row("supervisor_clear", hold, S.SHOE_LOADING, "supervisor_key_on",
                       after="void_and_clear"))
    return rows


def between_rounds_rows(S: Any,  # noqa: N803 (S: the family's states)
                        settle: str = "settle_round",
                        hold_error: str = "hold_card_in_error",
                        deal: str = "deal_card") -> list[dict[str, Any]]:
    """The end of a round both families share: settlement, then the next round or the shuffle.

    A card drawn when none is due, while bets are open or after settlement, is held in
    `card_in_error` until the dealer says whether it was exposed; either way it is burned.
    These rows come after each family's own, which may claim such a card first.
    """
    rows = [
        row("proceed", S.SETTLEMENT, S.ROUND_OVER, after=settle),
        # The first card out while betting is open closes betting when a seat is in play
        # and the layout answers; else it is a card drawn in error (never dealt unlit).
        row("card", S.BETTING, S.DEALING, ["wagers.has_wagers", "layout_answers"],
           after=["lock_out_bets", deal]),
        row("card", [S.BETTING, S.ROUND_OVER], S.CARD_IN_ERROR, after=hold_error),
    ]
    rows.extend(row(trigger, S.CARD_IN_ERROR, state, f"returns_to_{state}",
                   after="burn_error_card")
                for state in (S.BETTING, S.ROUND_OVER)
                for trigger in ("error_unexposed", "error_exposed"))
    rows += [
        # The next round, or the shuffle when the cut card came out (R7).
        row("clear_round", S.ROUND_OVER, S.SHOE_LOADING, "shoe.shuffle_due", after="close_round"),
        row("clear_round", S.ROUND_OVER, S.BETTING, after="open_betting"),
    ]
    return rows


def build_machine(model: Any, states: type[StrEnum], table: Table, initial: str) -> Machine:
    """Bind a family's states and rows to `model` with the settings the procedure relies on.

    Automatic `to_<state>` transitions are off, triggers fired from callbacks queue behind
    the current one, and invalid triggers raise (the model records them as faults).
    """
    return Machine(
        model=model, states=[str(s) for s in states], transitions=list(table),
        initial=initial, auto_transitions=False, queued=True, send_event=True,
        ignore_invalid_triggers=False, finalize_event="finalize",
        on_exception="on_exception", after_state_change="record_state_change",
    )


def callback_names(table: Table) -> set[str]:
    """Every condition and callback name a family's rows use."""
    found: set[str] = set()
    for entry in table:
        for key in ("conditions", "after", "before"):
            value = entry.get(key)
            found.update([value] if isinstance(value, str) else value or [])
    return found
