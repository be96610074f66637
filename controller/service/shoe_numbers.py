"""Where each card the shoe reports falls in the journal's numbering (PROTOCOL.md 9 and 12).

The shoe's driver numbers its board's cards (`CardDrawn.count`) and says how (`BoardNumbering`:
the board's boot id and the base it adds). `ShoeNumbers` places each card against what the
journal holds (the shoe tally of the critical state, committed with every card) and keeps the
board's numbering in that tally, so a restarted host hands it back to the driver
(`resume_numbering`) and maps the board's card numbers exactly as before:

* the next card is taken;
* a number recorded already, reported again as the card recorded under it, is a repeat
  (`shoe:card_repeated`): not taken again;
* a number recorded already as another card (or too long ago to tell) cannot be placed
  (`shoe:card_unplaced`): the table holds for the supervisor, never a silent drop;
* a number beyond the next one leaves cards nothing recorded (`shoe:card_after_gap`): the
  table holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import NumberPlacement, ShoeTally
from controller.rules.cards import Card, CardError
from drivers import events as ev
from drivers.interfaces import ShoeScanner


@dataclass(frozen=True)
class CardPlace:
    """A card's placement, what to journal for it, and why the table holds ("" if not)."""

    placement: NumberPlacement
    effects: list[Effect] = field(default_factory=list)
    hold: str = ""


def card_code(code: str | None) -> str:
    """A card's code as the tally keeps it by number: canonical, "" for a card not read."""
    if code is None:
        return ""
    try:
        return str(Card.parse(code))
    except CardError:
        return code


class ShoeNumbers:
    """Places the shoe's cards in the journal's numbering; keeps the board's numbering.

    Args:
        tally: The shoe tally now (a shuffle replaces it).
    """

    def __init__(self, tally: Callable[[], ShoeTally]) -> None:
        self._tally = tally

    def card(self, event: ev.CardDrawn) -> CardPlace:
        """Place one card; a card taken (next, or after a gap) is recorded in the tally."""
        tally = self._tally()
        last = tally.last_card_no
        code = card_code(event.code)
        placement = tally.placement(event.count, code)
        if placement is NumberPlacement.REPEATED:
            return CardPlace(placement, [
                Journal("shoe:card_repeated", {"card_no": event.count, "last": last}),
                OpLog(f"shoe reported card {event.count} again: ignored", "warning")])
        if placement is NumberPlacement.UNPLACED:
            return CardPlace(placement, [Journal("shoe:card_unplaced", {
                "card_no": event.count, "card": event.code, "last": last})],
                f"the shoe reported card {event.count} again, but not as the card recorded "
                "under that number")
        tally.record_number(event.count, code)
        self.note(event.numbering)
        if placement is NumberPlacement.GAP:
            # Cards left the shoe while nothing recorded them (e.g. the controller lost
            # power after the board's event was acknowledged): the supervisor decides.
            return CardPlace(placement, [Journal("shoe:card_after_gap", {
                "card_no": event.count, "card": event.code,
                "missing": [last + 1, event.count - 1]})],
                f"cards {last + 1}..{event.count - 1} left the shoe but were never recorded")
        return CardPlace(placement)

    def loaded(self, numbering: ev.BoardNumbering | None) -> None:
        """The board loaded a new shoe: its numbers start at 1 again."""
        self._tally().restart_numbering()
        self.note(numbering)

    def note(self, numbering: ev.BoardNumbering | None) -> None:
        """Keep the board's numbering in the tally (committed with the record in hand)."""
        if numbering is not None:
            tally = self._tally()
            tally.board_boot, tally.board_base = numbering.boot_id, numbering.base
            tally.board_handled = numbering.handled


def resume_numbering(shoe: ShoeScanner, critical: dict[str, Any] | None) -> None:
    """Hand the shoe the numbering its last recorded card was committed with (if any).

    So a board that kept running while this host restarted has its card numbers mapped
    exactly as before (PROTOCOL.md section 9, "What the host keeps").
    """
    procedure = (critical or {}).get("procedure")
    tally = procedure.get("shoe") if isinstance(procedure, dict) else None
    if not isinstance(tally, dict) or tally.get("board_boot") is None:
        return
    shoe.resume(ev.BoardNumbering(int(tally["board_boot"]), int(tally.get("board_base", 0)),
                                  int(tally.get("board_handled", 0))),
                int(tally.get("last_card_no", 0)))
