"""The Blazing 7's progressive meter service (GLI-12 behaviour, R10-R15).

The meters are a frozen value; every operation returns the new meters together with the
journal records that explain the change, so the caller commits both in one transaction.
`replay` rebuilds the meters from the journal alone: `shoectl journal verify` uses it to
prove the stored meters reconcile with the recorded contributions, hits and corrections.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

from controller.procedure.core.effects import Journal
from controller.rules import meter as arithmetic
from controller.rules.meter import ProgressiveSettings
from controller.rules.money import MeterShare

HISTORY: Final = 25
"""How many past hits the meters keep (R13: "last 25 hits")."""


class HitKind(StrEnum):
    """A meter-paid Blazing 7's award."""

    FULL = "100%"
    TENTH = "10%"


class MeterError(ValueError):
    """A meter operation that is not allowed (bad parameters, no key, negative amount)."""


MeterParams = ProgressiveSettings
"""The filed parameters (cents): reset, increment, reserve per wager, limit (0 = none)."""


def check_params(params: MeterParams) -> None:
    """Raise `MeterError` naming the first bad parameter."""
    for name in ("reset", "increment", "reserve", "limit"):
        if getattr(params, name) < 0:
            raise MeterError(f"[progressive] {name}: must be >= 0 cents")
    if params.limit and params.limit < params.reset:
        raise MeterError("[progressive] limit: must be at least the reset amount")


def params_json(params: MeterParams) -> dict[str, int]:
    """The filed parameters as JSON-ready data."""
    return {"reset": params.reset, "increment": params.increment, "reserve": params.reserve,
            "limit": params.limit}


@dataclass(frozen=True, slots=True)
class Hit:
    """One meter-paid win, as kept in the last-25 history."""

    round: int
    seat: int
    kind: HitKind
    paid: int
    meter_before: int


@dataclass(frozen=True, slots=True)
class Meters:
    """Every progressive meter (R11), cents and counts."""

    amount: int
    params: MeterParams
    progressive_in: int = 0
    hits: int = 0
    cumulative_paid: int = 0
    attendant_paid: int = 0
    reserve: int = 0
    overflow: int = 0
    pending: MeterParams | None = None
    history: tuple[Hit, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """The meters as JSON-ready data (written out, as `Round.to_json`)."""
        return {"amount": self.amount, "params": params_json(self.params),
                "progressive_in": self.progressive_in, "hits": self.hits,
                "cumulative_paid": self.cumulative_paid, "attendant_paid": self.attendant_paid,
                "reserve": self.reserve, "overflow": self.overflow,
                "pending": None if self.pending is None else params_json(self.pending),
                "history": [{"round": h.round, "seat": h.seat, "kind": h.kind, "paid": h.paid,
                             "meter_before": h.meter_before} for h in self.history]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Meters:
        """Rebuild meters from `to_json` output."""
        pending = data.get("pending")
        return cls(
            amount=int(data["amount"]),
            params=MeterParams(**data["params"]),
            progressive_in=int(data["progressive_in"]),
            hits=int(data["hits"]),
            cumulative_paid=int(data["cumulative_paid"]),
            attendant_paid=int(data["attendant_paid"]),
            reserve=int(data["reserve"]),
            overflow=int(data["overflow"]),
            pending=MeterParams(**pending) if pending else None,
            history=tuple(Hit(**{**h, "kind": HitKind(h["kind"])}) for h in data["history"]),
        )

    def summary(self) -> dict[str, Any]:
        """The figures `shoectl meter show --json` prints."""
        return {
            "meter": self.amount, "hits": self.hits, "cumulative_paid": self.cumulative_paid,
            "progressive_in": self.progressive_in, "attendant_paid": self.attendant_paid,
            "reserve": self.reserve, "overflow": self.overflow,
            "reset": self.params.reset, "increment": self.params.increment,
            "limit": self.params.limit,
            "pending_params": asdict(self.pending) if self.pending else None,
        }


def start(params: MeterParams, amount: int | None = None) -> tuple[Meters, Journal]:
    """New meters at `amount` (default: the reset amount), with their opening record."""
    check_params(params)
    meters = Meters(amount=params.reset if amount is None else amount, params=params)
    return meters, Journal("meter:init", {"amount": meters.amount, "params": asdict(params)})


def contribute(meters: Meters, round_no: int, seats: Iterable[int]) -> tuple[Meters, list[Journal]]:
    """Add one accepted wager per seat (R10): the meter rises by the increment up to the limit.

    Returns:
        The new meters and one `meter:contribution` record per accepted wager.
    """
    records = []
    for seat in seats:
        state = arithmetic.accept_wagers(rules_state(meters), 1)
        after = _with_state(replace(meters, progressive_in=meters.progressive_in + 1), state)
        records.append(Journal("meter:contribution", {
            "round": round_no, "seat": seat, "before": meters.amount, "after": after.amount,
            "overflow": after.overflow - meters.overflow,
            "reserve": after.reserve - meters.reserve}))
        meters = after
    return meters, records


def void(meters: Meters, round_no: int, contributions: Iterable[dict[str, Any]]
         ) -> tuple[Meters, Journal | None]:
    """Reverse the contributions of a void round: its Blazing 7's wagers are returned.

    Each contribution is the data of one `meter:contribution` record of the round (what the
    meter, the overflow and the reserve gained). The meter goes down by exactly what the
    round added (never below zero: a correction filed since then may have lowered it), and
    the one `meter:void` record says so, so the meter still changes only by records (R13).

    Returns:
        The new meters and the `meter:void` record (None when the round collected nothing).
    """
    taken = list(contributions)
    if not taken:
        return meters, None
    added = sum(int(c["after"]) - int(c["before"]) for c in taken)
    overflow = sum(int(c.get("overflow", 0)) for c in taken)
    reserve = sum(int(c.get("reserve", 0)) for c in taken)
    after = replace(meters, amount=max(0, meters.amount - added),
                    overflow=meters.overflow - overflow, reserve=meters.reserve - reserve,
                    progressive_in=meters.progressive_in - len(taken))
    record = Journal("meter:void", {
        "round": round_no, "seats": [int(c["seat"]) for c in taken], "before": meters.amount,
        "after": after.amount, "returned": added, "overflow": -overflow, "reserve": -reserve,
        "wagers": len(taken), "contributions": taken})
    return after, record


_SHARES: Final = {HitKind.FULL: MeterShare(100), HitKind.TENTH: MeterShare(10)}


def share(kind: HitKind) -> MeterShare:
    """The meter share a hit of `kind` pays."""
    return _SHARES[kind]


def kind_of(meter_share: MeterShare) -> HitKind:
    """The hit kind of a pay-table meter share (100% or 10%).

    Raises:
        MeterError: the pay table names another share.
    """
    for kind, known in _SHARES.items():
        if known == meter_share:
            return kind
    raise MeterError(f"meter share {meter_share} is not a 100% or 10% hit")


def rules_state(meters: Meters) -> arithmetic.MeterState:
    """The rules' view of the meter (what `rules.settlement.settle` takes)."""
    return arithmetic.MeterState(meters.amount, meters.params, meters.reserve, meters.overflow,
                                 meters.pending)


def _with_state(meters: Meters, state: arithmetic.MeterState) -> Meters:
    return replace(meters, amount=state.amount, params=state.settings, reserve=state.reserve,
                   overflow=state.overflow, pending=state.pending)


def hit(meters: Meters, round_no: int, seat: int, kind: HitKind) -> tuple[Meters, Journal, int]:
    """Pay a meter award (attendant-paid at a live table) and apply it to the meter.

    A 100% hit resets the meter to the reset amount, applying pending parameters first; a
    10% hit lowers the meter by exactly what it paid.

    Returns:
        The new meters, the `meter:hit` record and the amount paid (cents).
    """
    state, paid = arithmetic.pay_share(rules_state(meters), share(kind))
    record = Hit(round_no, seat, kind, paid, meters.amount)
    after = _with_state(replace(meters, hits=meters.hits + 1,
                                cumulative_paid=meters.cumulative_paid + paid,
                                attendant_paid=meters.attendant_paid + paid,
                                history=(record, *meters.history)[:HISTORY]), state)
    params, amount = after.params, after.amount
    journal = Journal("meter:hit", {
        "round": round_no, "seat": seat, "kind": kind.value, "before": meters.amount,
        "paid": paid, "after": amount, "params": asdict(params)})
    return after, journal, paid


def correct(meters: Meters, who: str, amount: int, reason: str) -> tuple[Meters, Journal]:
    """A supervisor's documented correction or reset of the meter amount (R12, R13)."""
    if amount < 0:
        raise MeterError("meter correction: the amount cannot be negative")
    if not who:
        raise MeterError("meter correction: who made it must be recorded")
    record = Journal("meter:correction", {"who": who, "old": meters.amount, "new": amount,
                                          "reason": reason})
    return replace(meters, amount=amount), record


def change_params(meters: Meters, who: str, params: MeterParams) -> tuple[Meters, Journal]:
    """File new parameters: they take effect at the next 100% hit, never on the live jackpot."""
    check_params(params)
    record = Journal("meter:params", {"who": who, "old": asdict(meters.params),
                                      "new": asdict(params)})
    return _with_state(meters, arithmetic.file_settings(rules_state(meters), params)), record


METER_KINDS: Final = ("meter:init", "meter:contribution", "meter:hit", "meter:correction",
                      "meter:params", "meter:void")


def replay(records: Iterable[tuple[str, dict[str, Any]]]) -> tuple[Meters | None, str]:
    """Rebuild the meters from journal records alone.

    Returns:
        The meters (None when no `meter:init` was found) and the first inconsistency found
        ("" when every record follows from the one before).
    """
    meters: Meters | None = None
    for kind, data in records:
        if kind == "meter:init":
            meters = Meters(amount=data["amount"], params=MeterParams(**data["params"]))
            continue
        if meters is None:
            return None, f"{kind} before meter:init"
        meters, problem = _replay_one(meters, kind, data)
        if problem:
            return meters, problem
    return meters, ""


def _replay_one(meters: Meters, kind: str, data: dict[str, Any]) -> tuple[Meters, str]:
    if kind != "meter:params" and data.get("before", data.get("old")) != meters.amount:
        return meters, (f"{kind}: recorded meter before {data.get('before', data.get('old'))} "
                        f"but the replayed meter is {meters.amount}")
    if kind == "meter:contribution":
        after, _ = contribute(meters, data["round"], [data["seat"]])
    elif kind == "meter:hit":
        after, _, _ = hit(meters, data["round"], data["seat"], HitKind(data["kind"]))
    elif kind == "meter:correction":
        after, _ = correct(meters, data["who"], data["new"], data.get("reason", ""))
    elif kind == "meter:void":
        after, _ = void(meters, data["round"], data["contributions"])
    else:
        after, _ = change_params(meters, data["who"], MeterParams(**data["new"]))
    if kind != "meter:params" and after.amount != data.get("after", data.get("new")):
        return after, f"{kind}: recorded meter after differs from the replayed {after.amount}"
    return after, ""


def reconcile(stored: Meters, replayed: Meters | None) -> str:
    """Compare stored meters with the journal's replay; "" when they agree."""
    if replayed is None:
        return "the journal holds no meter:init record"
    for name in ("amount", "progressive_in", "hits", "cumulative_paid", "attendant_paid",
                 "reserve", "overflow"):
        if getattr(stored, name) != getattr(replayed, name):
            return (f"meter {name}: stored {getattr(stored, name)} but the journal's "
                    f"contributions and payouts give {getattr(replayed, name)}")
    return ""
