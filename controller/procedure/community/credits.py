"""The stations' credits and meters, as an electronic table keeps them (GLI-24 style).

Conditions and callbacks of the community transition table, named there `credits.<name>`.
An attendant adds credits to a station (`credits_in`) and cashes a station out
(`credits_out`, the whole balance) from the pit view with the supervisor's credential; each is
journalled with who did it. A station wagers only what its credits cover: every chip on a
spot, and then every double, split and insurance, must fit within its balance less what it
already has at stake (`available`). Nothing is taken from the balance while a round is in
play; at settlement each station's balance moves by the round's net, and its meters by what
it staked and was paid back.

Per station the meters are `credits_in`, `credits_out`, `wagered` (main and side wagers,
doubles, splits and insurance of settled rounds), `won` (what those rounds paid back: stakes
returned plus winnings) and `games_played` (settled rounds with a wager), in integer cents (games a
count). Between rounds `balance == credits_in - credits_out - wagered + won`, exactly. Both
live in the procedure's snapshot, so in the journal's critical state: a power cut restores
them to the last commit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Protocol

from transitions import EventData

from controller.procedure.community.round import CommunityRound
from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round

METER_NAMES: Final = ("credits_in", "credits_out", "wagered", "won", "games_played")
"""The per-station meters, in the order `shoectl meter show --station N` prints them."""
MAX_CREDITS_IN: Final = 10_000_000
"""The most one `credits_in` may add (cents): larger is a typing error, refused."""


class CreditsHost(Protocol):
    """What the stations' credits read and ask of the community model."""

    round: Round
    game: CommunityRound | None
    station_count: int

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def chips_on(self, station: int) -> int:
        """The station's chips on its spots while bets are open (the wagers')."""
        ...


class StationCredits:
    """Each station's balance (`balance`, cents) and meters (`meters`)."""

    def __init__(self, model: CreditsHost) -> None:
        self.model = model
        self.balance: dict[int, int] = {}
        self.meters: dict[int, dict[str, int]] = {}

    # ------------------------------------------------------------------ queries
    def meters_of(self, station: int) -> dict[str, int]:
        """The station's meters (all zero for a station never used)."""
        return {name: self.meters.get(station, {}).get(name, 0) for name in METER_NAMES}

    def at_stake(self, station: int) -> int:
        """Cents the station has on the table now: chips placed, or the round's stakes."""
        game = self.model.game
        if game is None:
            return self.model.chips_on(station)
        if station not in game.wagers:
            return 0  # no wager this round (chips under the minimum were returned)
        total = 0
        for key in game.spot_keys(station):
            seat = game.spots[key].seats[0] if key in game.spots else None
            if seat is None:
                total += game.wagers[station][key[1]]
                total += sum(game.sides.get(station, {}).get(key[1], {}).values())
            else:
                total += (sum(h.stake + h.doubled for h in seat.hands) + seat.insurance
                          + sum(seat.bets.side_bets.values()))
        return total

    def available(self, station: int) -> int:
        """Credits the station may still put up."""
        return self.balance.get(station, 0) - self.at_stake(station)

    def shortfall(self, station: int, cents: int) -> str:
        """Why `cents` more cannot be put up by the station ("" when it can)."""
        left = self.available(station)
        if cents > left:
            return (f"station {station}: {cents} cents more is over its credits "
                    f"({left} cents available)")
        return ""

    # ------------------------------------------------------------------ attendant
    def refusal(self, kwargs: dict[str, Any], out: bool) -> str:
        """Why an attendant's credits in (or cash out) cannot be done now ("" when it can)."""
        station, cents = kwargs.get("station"), kwargs.get("cents")
        stations = self.model.station_count
        if not isinstance(station, int) or not 1 <= station <= stations:
            return f"station must be a station number from 1 to {stations}"
        if out:
            if self.at_stake(station):
                return f"station {station} has wagers on the table: cash out after the round"
            if not self.balance.get(station, 0):
                return f"station {station} has no credits to cash out"
            return ""
        if not isinstance(cents, int) or not 1 <= cents <= MAX_CREDITS_IN:
            return f"station {station}: credits in must be 1..{MAX_CREDITS_IN} cents"
        return ""

    def in_allowed(self, event: EventData) -> bool:
        """Condition: a credits-in the attendant may make."""
        return self.refusal(event.kwargs, out=False) == ""

    def out_allowed(self, event: EventData) -> bool:
        """Condition: a cash-out the attendant may make (nothing at stake)."""
        return self.refusal(event.kwargs, out=True) == ""

    def add(self, event: EventData) -> None:
        """Callback: credits added to the station (journalled with who)."""
        station, cents = int(event.kwargs["station"]), int(event.kwargs["cents"])
        self.balance[station] = self.balance.get(station, 0) + cents
        self._count(station, "credits_in", cents)
        self._journal("station:credits_in", station, cents, event)

    def cash_out(self, event: EventData) -> None:
        """Callback: the station's whole balance is paid out (journalled with who)."""
        station = int(event.kwargs["station"])
        cents = self.balance.pop(station)
        self._count(station, "credits_out", cents)
        self._journal("station:credits_out", station, cents, event)

    # ------------------------------------------------------------------ settlement
    def settle(self, record: dict[str, Any]) -> None:
        """Each station's balance by the round's net; its meters by its stakes and returns."""
        model = self.model
        assert model.game is not None
        nets = {s["station"]: {p["spot"]: p["net"] for p in s["spots"]}
                for s in record["stations"]}
        for station in model.game.stations:
            staked = self.at_stake(station)
            net = sum(nets.get(station, {}).values())
            self.balance[station] = self.balance.get(station, 0) + net
            self._count(station, "wagered", staked)
            self._count(station, "won", staked + net)
            self._count(station, "games_played", 1)
            model.emit(Journal("station:settled", {
                "round": model.round.number, "station": station, "wagered": staked,
                "won": staked + net, "balance": self.balance[station]}))

    def _count(self, station: int, meter: str, amount: int) -> None:
        meters = self.meters.setdefault(station, dict.fromkeys(METER_NAMES, 0))
        meters[meter] += amount

    def _journal(self, kind: str, station: int, cents: int, event: EventData) -> None:
        who = str(event.kwargs.get("who", ""))
        self.model.emit(Journal(kind, {"station": station, "cents": cents,
                                       "balance": self.balance.get(station, 0), "who": who,
                                       "meters": self.meters_of(station)}),
                        OpLog(f"station {station}: {kind.partition(':')[2]} {cents} cents"))

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> dict[str, Any]:
        """Balances and meters, JSON-ready (the journal's critical state)."""
        return {"balance": {str(s): c for s, c in sorted(self.balance.items())},
                "meters": {str(s): dict(m) for s, m in sorted(self.meters.items())}}

    def restore(self, data: dict[str, Any] | None) -> None:
        """Back to a snapshot (a journal from before credits has none: all zero)."""
        data = data or {}
        self.balance = {int(s): int(c) for s, c in data.get("balance", {}).items()}
        self.meters = {int(s): {k: int(m.get(k, 0)) for k in METER_NAMES}
                       for s, m in data.get("meters", {}).items()}


STATION_KINDS: Final = ("station:credits_in", "station:credits_out", "station:settled")
"""The journal records that move a station's credits and meters."""


def replay_credits(records: Iterable[tuple[str, dict[str, Any]]]) -> dict[int, dict[str, int]]:
    """Each station's balance and meters as its journal records add them up.

    `records` are (kind, data) of `STATION_KINDS` in journal order. The result (station ->
    `credits` and every meter) must equal the critical state's: `reconcile_credits` says where not.
    """
    out: dict[int, dict[str, int]] = {}
    for kind, data in records:
        station = int(data["station"])
        row = out.setdefault(station, {"credits": 0, **dict.fromkeys(METER_NAMES, 0)})
        if kind == "station:credits_in":
            row["credits"] += int(data["cents"])
            row["credits_in"] += int(data["cents"])
        elif kind == "station:credits_out":
            row["credits"] -= int(data["cents"])
            row["credits_out"] += int(data["cents"])
        elif kind == "station:settled":
            row["credits"] += int(data["won"]) - int(data["wagered"])
            row["wagered"] += int(data["wagered"])
            row["won"] += int(data["won"])
            row["games_played"] += 1
    return out


def stored_credits(critical: dict[str, Any] | None) -> dict[int, dict[str, int]]:
    """Each station's balance and meters in a critical state (empty: none kept)."""
    procedure = (critical or {}).get("procedure") or {}
    saved = (procedure.get("community") or {}).get("credits") or {}
    stations = {int(s) for s in saved.get("balance", {})} | {int(s) for s in
                                                             saved.get("meters", {})}
    return {s: {"credits": int(saved.get("balance", {}).get(str(s), 0)),
                **{k: int(saved.get("meters", {}).get(str(s), {}).get(k, 0))
                   for k in METER_NAMES}} for s in sorted(stations)}


def reconcile_credits(kept: dict[int, dict[str, int]],
                      replayed: dict[int, dict[str, int]]) -> list[str]:
    """Where the kept balances and meters differ from the journal's records (empty: none)."""
    problems: list[str] = []
    for station in sorted(set(kept) | set(replayed)):
        a, b = kept.get(station, {}), replayed.get(station, {})
        problems.extend(f"station {station} {name}: kept {a.get(name, 0)}, the journal's "
                        f"records add up to {b.get(name, 0)}"
                        for name in ("credits", *METER_NAMES) if a.get(name, 0) != b.get(name, 0))
    return problems
