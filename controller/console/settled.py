"""The settled round the dealer's console keeps on screen until the next round begins.

At settlement a live table opens betting again at once, and the round leaves the model; the
dealer still has to pay it. The console keeps it (decision 070): from the settlement until
the first chip or seat of the next round, the dealer's NEXT ROUND (`next_round`), or any
other phase the table enters (a hold, a card in error, the deal), the table object's
`settled` shows the round and the prompt says whom to pay. Once it has ended it does not
come back: a jam cleared, or a card in error answered, returns to betting without the pay
line.

This is the console's state, not the procedure's: nothing here changes what the table does
or records (NEXT ROUND is journalled as a console command, nothing more). It is kept per
model, so a restart starts without it (as it starts without `last_round`), and it moves on
when it is looked at: the console's watchers (the hubs, the operational log's `next:`) look
after every commit, so every phase the table passes through is seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from weakref import WeakKeyDictionary

from controller.procedure.core.states import TableState
from controller.procedure.shared.table_model import TableModel

KEPT_IN: Final = frozenset({TableState.ROUND_OVER, TableState.BETTING, TableState.SHOE_LOADING,
                            TableState.BURN})
"""The phases between one round's settlement and the next round's deal: the settled round
stays on screen through them (the cut card out: the dealer pays, then shuffles)."""


@dataclass
class _Shown:
    ended: int | None = None
    """The last settled round whose showing has ended (None: none has)."""
    covered: frozenset[str] | None = None
    """The bet sensors covered when last looked at between rounds (None: not looked yet)."""


_STATE: WeakKeyDictionary[TableModel, _Shown] = WeakKeyDictionary()


def settled_round_shown(model: TableModel) -> int | None:
    """The number of the settled round the console shows now (None: none), moved on first.

    Asked by the views of the families that keep their settled round on screen (blackjack:
    its hands are the console's seats; `FamilyView.settled`).
    """
    if not model.results:
        return None
    last = int(model.results[-1]["round"])
    state = _STATE.setdefault(model, _Shown())
    if state.ended == last:
        return None
    if model.state == TableState.ROUND_OVER:
        state.covered = None  # the wagers on the layout are the settled round's own
        return last
    if model.state in KEPT_IN and not _bet_since(model, state):
        return last
    state.ended = last
    return None


def end_showing(model: TableModel) -> None:
    """The dealer's NEXT ROUND: the settled round shown now leaves the screen for good."""
    shown = settled_round_shown(model)
    if shown is not None:
        _STATE.setdefault(model, _Shown()).ended = shown


def _bet_since(model: TableModel, state: _Shown) -> bool:
    """True once anything of the next round is on the layout or the console.

    A wager placed, a seat put in play, or a chip put on a spot: a sensor newly covered
    since the last look. Chips left on a main spot from the settled round (a wager let
    ride: the wager book counts them for the next round) are not a new bet, and neither
    is the dealer collecting chips.
    """
    wagers = model.wagers
    covered = frozenset(name for name, on in wagers.sensors.items() if on)
    before, state.covered = state.covered, covered
    newly = covered - before if before is not None else frozenset()
    return bool(wagers.pending or wagers.unknown_main or newly)
