"""The baccarat family's rows in the live view.

The Player's and the Banker's hands with why each draws or stands (R19), the seats' wagers
and, once the coup is settled, its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from controller.procedure.baccarat import BaccaratModel
from controller.rules import baccarat as bac
from controller.rules.cards import Card
from controller.sim.table_view.snapshot import SeatRow, SideRow

SHOWN_LAMPS: Final = ("no_more_bets", "player_draw", "banker_draw", "shuffle", "fault")
"""The table-wide lamps the view shows, in their order."""


def baccarat_rows(model: BaccaratModel) -> tuple[tuple[SideRow, ...], tuple[SeatRow, ...],
                                                  str]:
    """The Player's and the Banker's rows, the seats' rows and the coup's result line."""
    coup = model.coup
    due = model.card_due_to()
    player_rule, banker_rule = drawing_rules(coup)
    sides = (SideRow("PLAYER", tuple(str(c) for c in coup.player), _bac_total(coup.player),
                     player_rule, "+" if due is bac.Side.PLAYER else ""),
             SideRow("BANKER", tuple(str(c) for c in coup.banker), _bac_total(coup.banker),
                     banker_rule, "+" if due is bac.Side.BANKER else ""))
    record = model.round.result if model.round.settled else {}
    nets = {s["seat"]: tuple(s["bets"].items()) for s in record.get("seats", [])}
    bets = model.bets if model.bets else model.wagers.pending
    seats = tuple(SeatRow(seat, tuple(wagers.items()), (), nets.get(seat))
                  for seat, wagers in sorted(bets.items()))
    return sides, seats, _coup_result(coup) if record else ""


def _bac_total(cards: Sequence[Card]) -> str:
    return str(bac.baccarat_total(cards)) if cards else ""


def drawing_rules(coup: bac.Coup) -> tuple[str, str]:
    """Why each baccarat hand draws or stands (R19), from the cards on the layout.

    Returns:
        The Player's and the Banker's rule ("" before the four first cards are out).
    """
    player, banker = coup.player, coup.banker
    if len(player) < 2 or len(banker) < 2:
        return "", ""
    p_total, b_total = bac.baccarat_total(player[:2]), bac.baccarat_total(banker[:2])
    if bac.is_natural(player[:2]) or bac.is_natural(banker[:2]):
        return (_natural_rule(player[:2], p_total, "Banker"),
                _natural_rule(banker[:2], b_total, "Player"))
    drew = bac.player_draws(p_total)
    player_rule = f"draws on {p_total} (0-5)" if drew else f"stands on {p_total} (6-7)"
    return player_rule, _banker_rule(b_total, player, drew)


def _banker_rule(total: int, player: Sequence[Card], player_drew: bool) -> str:
    if not player_drew:
        return f"{'draws' if total <= 5 else 'stands'} on {total} (Player stood)"
    if len(player) < 3:
        return f"{total}: waits for the Player's third card"
    third = player[2]
    verb = "draws" if bac.banker_draws(total, third) else "stands"
    return f"{verb} on {total} against a Player third card of {third.rank.baccarat_points}"


def _natural_rule(cards: Sequence[Card], total: int, other: str) -> str:
    return f"natural {total}" if bac.is_natural(cards) else f"stands ({other} natural)"


def _coup_result(coup: bac.Coup) -> str:
    player, banker = bac.baccarat_total(coup.player), bac.baccarat_total(coup.banker)
    outcome = coup.outcome
    if outcome is bac.Outcome.TIE:
        return f"TIE {player}-{banker}"
    high, low = max(player, banker), min(player, banker)
    return f"{outcome.value.upper()} wins {high}-{low}"
