"""The Blazing 7's meter at this table: its books, the lock-out, links, and what the sign shows.

Conditions and callbacks named `progressive.<name>` in the transition tables. The meter moves
only through the pure transforms of `controller.procedure.meter_books`, each returning the
journal record that proves it (R13). Progressive wagers are refused while the sign or the bet
sensors do not answer (R15), and for the rest of a betting period in which either was lost or
came back: progressive play reopens with the next round's betting, once both answer. A round
whose wagers were locked in before the loss settles them normally (the meter is in the
journal, not on the sign).

At a linked table (`linked`) the meter is the link group's: a meter hit is not paid from
this table's books but waits (`waiting`, `meter:linked_hit`) for the progressive
controller's answer, which settles it (`settle_linked`, `meter:linked_paid`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transitions import EventData

from controller.procedure import meter_books
from controller.procedure.effects import Journal, OpLog

if TYPE_CHECKING:
    from controller.procedure.table_model import TableModel

LAYOUT = "layout"
"""The layout board's device name: its loss also pauses a card table."""
PROGRESSIVE_DEVICES = frozenset({"sign", LAYOUT, "floor"})
"""Links whose loss refuses progressive wagers (the sign, the bet sensors and a linked
table's floor link, R15)."""


LinkedState = tuple[list[dict[str, Any]], str, tuple[int, int]]
"""The waiting linked hits, the sign's message and its win."""


class ProgressiveDesk:
    """The meter's books, the links it depends on and the sign's message.

    Attributes:
        meters: The GLI-12 meters (amount, hits, cumulative paid...).
        links_down: Devices whose link is down.
        closed_round: A round whose betting saw a progressive link lost or back (0: none);
            its progressive wagers are refused even once the link answers again.
        sign_message: "" for the amount alone, or the `WIN` text of this round's hit.
        sign_win: (seat, cents) of this round's last meter hit ((0, 0): none).
        linked: The meter is a link group's (`[progressive] link`): hits wait for its answer.
        waiting: The linked hits not yet answered, oldest first: `round`, `seat`, `kind`
            and `stake` (cents) of each.
    """

    def __init__(self, model: TableModel, meters: meter_books.Meters) -> None:
        self.model = model
        self.meters = meters
        self.links_down: set[str] = set()
        self.closed_round = 0
        self.sign_message = ""
        self.sign_win = (0, 0)
        self.linked = False
        self.waiting: list[dict[str, Any]] = []

    def is_open(self) -> bool:
        """Progressive wagers are accepted only while sign and sensors answer (R15).

        Also not for the rest of a betting period in which one of them was lost or came back.
        """
        return (not (self.links_down & PROGRESSIVE_DEVICES)
                and self.closed_round != self.model.round.number)

    def closed_because(self) -> str:
        """Why progressive wagers are refused now, in the dealer's words ("" while open)."""
        down = sorted(self.links_down & PROGRESSIVE_DEVICES)
        if down:
            return " and ".join(down) + " down"
        return "" if self.is_open() else "reopens at the next betting"

    def link_down(self, event: EventData) -> None:
        """Callback: a device link was lost; progressive wagers are refused (R15)."""
        device = str(event.kwargs.get("device", ""))
        self.links_down.add(device)
        self._close_this_betting(device)
        self.model.emit(Journal("link:down", {"device": device,
                                              "reason": event.kwargs.get("reason", "")}),
                        OpLog(f"link to {device} lost", "error"))

    def link_up(self, event: EventData) -> None:
        """Callback: a link is back; progressive play resumes once the meters reconcile."""
        device = str(event.kwargs.get("device", ""))
        reconciled = bool(event.kwargs.get("reconciled", False))
        if reconciled:
            if device in self.links_down:  # back, not a board's first link after start-up
                self.links_down.discard(device)
                self._close_this_betting(device)
            line = OpLog(f"link to {device} back")
        else:
            line = OpLog(f"link to {device} back, but the meters do not reconcile", "warning")
        self.model.emit(Journal("link:up", {"device": device, "meters_reconciled": reconciled}),
                        line)

    def _close_this_betting(self, device: str) -> None:
        """Bets placed while the sign was dark (or the sensors deaf) stay out of play."""
        if device in PROGRESSIVE_DEVICES and self.model.state == "betting":
            self.closed_round = self.model.round.number

    def correct_meter(self, event: EventData) -> None:
        """Callback: a keyed meter correction or reset, recorded with who, old and new."""
        amount = int(event.kwargs["amount"])
        self.meters, record = meter_books.correct(self.meters, self.model.key_on, amount,
                                                  str(event.kwargs.get("reason", "")))
        self.model.emit(record, OpLog("progressive meter corrected by supervisor"))

    def file_meter_params(self, event: EventData) -> None:
        """Callback: keyed parameter change, applied after the next 100% hit (R12)."""
        params = event.kwargs["params"]
        self.meters, record = meter_books.change_params(self.meters, self.model.key_on, params)
        self.model.emit(record,
                        OpLog("progressive parameters filed (apply after the next reset)"))

    def contribute(self) -> list[int]:
        """At the lock-out: one meter increment per accepted wager; returns the seats."""
        model = self.model
        seats = model.wagers.accepted_progressive_seats()
        self.meters, records = meter_books.contribute(self.meters, model.round.number, seats)
        model.round.contributions = [dict(r.data) for r in records]
        lock_out: dict[str, Any] = {"round": model.round.number, "accepted_progressive": seats}
        refused = [] if self.is_open() else model.wagers.progressive_chips()
        if refused:
            lock_out |= {"refused_progressive": refused, "closed": self.closed_because()}
        model.emit(*records, Journal("bet:lock_out", lock_out))
        return seats

    def pay(self, seat: int, kind: meter_books.HitKind) -> int:
        """Pay a meter hit and put `WIN`, the seat and the amount on the sign (R13)."""
        self.meters, record, paid = meter_books.hit(self.meters, self.model.round.number, seat,
                                                    kind)
        self.sign_message = f"WIN {seat} {paid // 100}.{paid % 100:02d}"
        self.sign_win = (seat, paid)
        self.model.emit(record, OpLog(f"progressive {kind.value} hit at seat {seat}"))
        return paid

    def hold_hit(self, seat: int, kind: meter_books.HitKind, stake: int) -> None:
        """A linked table's meter hit: recorded, and its settlement waits for the answer."""
        hit = {"round": self.model.round.number, "seat": seat, "kind": kind.value,
               "stake": stake}
        self.waiting.append(hit)
        self.model.emit(Journal("meter:linked_hit", hit),
                        OpLog(f"round {hit['round']} seat {seat}: Blazing 7's {kind.value} "
                              "hit waits for the progressive controller's amount", "warning"))

    def linked_state(self) -> LinkedState:
        """What `settle_linked` changes (to set back while its record is not committed)."""
        return [dict(h) for h in self.waiting], self.sign_message, self.sign_win

    def set_linked_state(self, state: LinkedState) -> None:
        """Return to a `linked_state`."""
        self.waiting, self.sign_message, self.sign_win = state

    def settle_linked(self, round_number: int, seat: int, paid: int,
                      answer: dict[str, Any]) -> Journal | None:
        """The controller's answer to a waiting hit: its `meter:linked_paid` record.

        None when no such hit waits (it was settled already). The sign shows the win.
        """
        hit = next((h for h in self.waiting
                    if (h["round"], h["seat"]) == (round_number, seat)), None)
        if hit is None:
            return None
        self.waiting.remove(hit)
        self.sign_message = f"WIN {seat} {paid // 100}.{paid % 100:02d}"
        self.sign_win = (seat, paid)
        return Journal("meter:linked_paid", {
            **hit, "paid": paid, "net": paid - int(hit["stake"]),
            "boot": answer["boot"], "seq": answer["seq"]})

    def give_back(self, round_number: int, contributions: list[dict[str, Any]]) -> int:
        """A void round's contributions are reversed (R13); returns the cents given back."""
        self.meters, record = meter_books.void(self.meters, round_number, contributions)
        if record is None:
            return 0
        self.model.emit(record)
        return int(record.data["returned"])

    def sign(self) -> tuple[int | None, str]:
        """What the progressive sign shows: the meter, a win, or a fault (R13, R15)."""
        if not self.is_open():
            return self.meters.amount, "FAULT"
        return self.meters.amount, self.sign_message

    def clear_sign(self) -> None:
        """The round is over: the sign shows the amount alone again."""
        self.sign_message = ""
        self.sign_win = (0, 0)
