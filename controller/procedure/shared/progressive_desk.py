"""The Blazing 7's meter at this table: its books, the lock-out, links, and what the sign shows.

Conditions and callbacks named `progressive.<name>` in the transition tables. The meter moves
only through the pure transforms of `controller.procedure.shared.meter_books`, each returning the
journal record that proves it (R13). Progressive wagers are refused while the sign or the bet
sensors do not answer (R15), and for the rest of a betting period in which either was lost or
came back: progressive play reopens with the next round's betting, once both answer. A round
whose wagers were locked in before the loss settles them normally (the meter is in the
journal, not on the sign).

At a linked table (`linked`) the meter is the link group's: a meter hit is not paid from
this table's books but waits (`waiting`, `meter:linked_hit`) for the progressive
controller's answer, which settles it (`settle_linked`, `meter:linked_paid`). A hit the
controller rejects (`reject_linked`, `meter:linked_rejected`) is no longer waiting: it is
`rejected`, to be settled by hand by the supervisor (`settle_by_hand`, a `meter:linked_paid`
with `"manual": true`), a house payment outside the linked meter.
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.procedure.core.states import TableState
from controller.procedure.shared import meter_books
from controller.rules.limits import SIGN_MAX_CENTS

LAYOUT = "layout"
"""The layout board's device name: its loss also pauses a card table."""
PROGRESSIVE_DEVICES = frozenset({"sign", LAYOUT, "floor"})
"""Links whose loss refuses progressive wagers (the sign, the bet sensors and a linked
table's floor link, R15)."""


MAX_REASON_LENGTH = 200
"""The longest reason text a supervisor's settlement by hand takes."""

LinkedState = tuple[list[dict[str, Any]], list[dict[str, Any]], str, tuple[int, int]]
"""The waiting and the rejected linked hits, the sign's message and its win."""


class DeskHost(Protocol):
    """What the desk reads and does of the model it serves (any family's)."""

    state: str
    round: Round
    key_on: str

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def accepted_progressive_seats(self) -> list[int]:
        """Seats whose Blazing 7's chips are accepted (the wagers' word)."""
        ...

    def progressive_chips(self) -> list[int]:
        """Seats in play with chips on their Blazing 7's spot, accepted or not."""
        ...


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
        waiting: The linked hits not yet answered, oldest first: `round`, `seat`, `kind`,
            `stake` (cents) and `cards` (the seat's first two and the dealer's up card).
        rejected: The linked hits the controller rejected, oldest first, to be settled by
            hand: those of `waiting` plus the controller's `reason`, `boot` and `seq`.
    """

    def __init__(self, model: DeskHost, meters: meter_books.Meters) -> None:
        self.model = model
        self.meters = meters
        self.links_down: set[str] = set()
        self.closed_round = 0
        self.sign_message = ""
        self.sign_win = (0, 0)
        self.linked = False
        self.waiting: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []

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
        if device in PROGRESSIVE_DEVICES and self.model.state == TableState.BETTING:
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
        seats = model.accepted_progressive_seats()
        self.meters, records = meter_books.contribute(self.meters, model.round.number, seats)
        model.round.contributions = [dict(r.data) for r in records]
        lock_out: dict[str, Any] = {"round": model.round.number, "accepted_progressive": seats}
        refused = [] if self.is_open() else model.progressive_chips()
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

    def hold_hit(self, seat: int, kind: meter_books.HitKind, stake: int,
                 cards: list[str]) -> None:
        """A linked table's meter hit: recorded, and its settlement waits for the answer.

        `cards` are the seat's first two cards and the dealer's up card: the hit carries them
        to the controller, which pays it only when they make that line.
        """
        hit = {"round": self.model.round.number, "seat": seat, "kind": kind.value,
               "stake": stake, "cards": cards}
        self.waiting.append(hit)
        self.model.emit(Journal("meter:linked_hit", hit),
                        OpLog(f"round {hit['round']} seat {seat}: Blazing 7's {kind.value} "
                              "hit waits for the progressive controller's amount", "warning"))

    def linked_state(self) -> LinkedState:
        """What `settle_linked` changes (to set back while its record is not committed)."""
        return ([dict(h) for h in self.waiting], [dict(h) for h in self.rejected],
                self.sign_message, self.sign_win)

    def set_linked_state(self, state: LinkedState) -> None:
        """Return to a `linked_state`."""
        self.waiting, self.rejected, self.sign_message, self.sign_win = state

    def _take_waiting(self, round_number: int, seat: int) -> dict[str, Any] | None:
        hit = next((h for h in self.waiting
                    if (h["round"], h["seat"]) == (round_number, seat)), None)
        if hit is not None:
            self.waiting.remove(hit)
        return hit

    def settle_linked(self, round_number: int, seat: int, paid: int,
                      answer: dict[str, Any]) -> Journal | None:
        """The controller's answer to a waiting hit: its `meter:linked_paid` record.

        None when no such hit waits (it was settled already). The sign shows the win.
        """
        hit = self._take_waiting(round_number, seat)
        if hit is None:
            return None
        self.sign_message = f"WIN {seat} {paid // 100}.{paid % 100:02d}"
        self.sign_win = (seat, paid)
        return Journal("meter:linked_paid", {
            **hit, "paid": paid, "net": paid - int(hit["stake"]),
            "boot": answer["boot"], "seq": answer["seq"]})

    def reject_linked(self, round_number: int, seat: int,
                      answer: dict[str, Any]) -> Journal | None:
        """The controller rejected a waiting hit: it is to be settled by hand.

        Returns its `meter:linked_rejected` record; None when no such hit waits.
        """
        hit = self._take_waiting(round_number, seat)
        if hit is None:
            return None
        rejected = {**hit, "reason": str(answer.get("reason", "")), "boot": answer["boot"],
                    "seq": answer["seq"]}
        self.rejected.append(rejected)
        return Journal("meter:linked_rejected", rejected)

    def manual_ceiling(self) -> int:
        """The most a hit settled by hand may pay: the meter's limit, else the sign's most."""
        return self.meters.params.limit or SIGN_MAX_CENTS

    def refuse_by_hand(self, round_number: int, seat: int, cents: int, reason: str) -> str:
        """Why a settlement by hand of this hit is refused, in one line ("" when it is not)."""
        where = f"round {round_number} seat {seat}"
        if any((h["round"], h["seat"]) == (round_number, seat) for h in self.waiting):
            return (f"{where}: the hit still waits for the progressive controller, which may "
                    "pay it; it is settled by hand only once the controller rejects it")
        if not any((h["round"], h["seat"]) == (round_number, seat) for h in self.rejected):
            return f"{where}: no hit rejected by the progressive controller waits to be settled"
        if not 0 <= cents <= self.manual_ceiling():
            return (f"{where}: {cents} cents is not an amount to pay (0..{self.manual_ceiling()}"
                    " cents)")
        if not reason.strip() or len(reason) > MAX_REASON_LENGTH or not reason.isprintable():
            return (f"{where}: the reason must be 1..{MAX_REASON_LENGTH} printable "
                    "characters")
        return ""

    def may_settle_by_hand(self, event: EventData) -> bool:
        """Condition: `refuse_by_hand` finds nothing against the supervisor's settlement."""
        kwargs = event.kwargs
        return not self.refuse_by_hand(int(kwargs["round"]), int(kwargs["seat"]),
                                       int(kwargs["cents"]), str(kwargs["reason"]))

    def settle_by_hand(self, event: EventData) -> None:
        """Callback: the supervisor pays a rejected hit (`refuse_by_hand` found nothing)."""
        round_number, seat = int(event.kwargs["round"]), int(event.kwargs["seat"])
        paid = int(event.kwargs["cents"])
        hit = next(h for h in self.rejected if (h["round"], h["seat"]) == (round_number, seat))
        self.rejected.remove(hit)
        self.sign_message = f"WIN {seat} {paid // 100}.{paid % 100:02d}"
        self.sign_win = (seat, paid)
        record = {key: hit[key] for key in ("round", "seat", "kind", "stake")}
        self.model.emit(
            Journal("meter:linked_paid", {
                **record, "paid": paid, "net": paid - int(hit["stake"]), "manual": True,
                "who": str(event.kwargs["who"]), "reason": str(event.kwargs["reason"]),
                "rejected": {"boot": hit["boot"], "seq": hit["seq"],
                             "reason": hit["reason"]}}),
            OpLog(f"round {round_number} seat {seat}: Blazing 7's {hit['kind']} hit paid "
                  f"{paid // 100}.{paid % 100:02d} by hand by {event.kwargs['who']}"))

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
