"""A table's shift in figures, from its journal alone: pace, time lost, play and money.

Pure: `shift_figures` reads records (`Row`: when, kind, data) in journal order and never
changes the game. The definitions, which `docs/reference/metrics.md` gives to the pit:

- **A round** is one that was settled (`round:settled`; at roulette a spin) within the
  window; a voided one (`round:void`, `spin:void`) is counted apart. Its **seconds** run
  from betting opening for it (`round:open`) to its settlement.
- **Rounds per hour** are the window's rounds over the hours the table was open in it: the
  time from its first record to its last, less the time it was shuffling or in a fault.
- **Shuffle time** is the time in the states `shoe_loading`, `burn`, `reshuffle_discards`
  and (hold'em) `shuffling`; **fault time** the time in `fault`, `shoe_error`,
  `card_in_error` and `card_hold`, each from the `procedure:state` record entering the
  state to the next one (or the window's end).
- **Hands per seat** count the hands settled at each seat (a split makes two).
- **Decisions per minute** are the players' decisions (`decision:*`, station decisions)
  over the minutes the table waited on players (`players`, `decisions`, `insurance`).
- **Drop** of a wager kind is every amount wagered on it (as betting closed, plus doubles
  and splits on the main wager); **win** is the house's (the negated sum of the players'
  nets); **hold** is win over drop.
- **A station** (the community game) counts the rounds it played and its win (the house's,
  over its spots and their side wagers).
- **A dealer** is who gave the console's commands (`console:command` `by`: `dealer:D17`,
  or `kiosk` for the table's own screen); a round is the dealer's who gave the last
  command before it was settled. Per dealer: rounds, median seconds a round, and rounds an
  hour of the time their own rounds took (betting to settlement).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Protocol

from controller.procedure.blackjack import BJ
from controller.procedure.community import CC
from controller.procedure.core.states import TableState
from controller.procedure.holdem import HE

SHUFFLE_STATES: Final = frozenset({TableState.SHOE_LOADING, TableState.BURN,
                                   TableState.RESHUFFLE_DISCARDS, HE.SHUFFLING})
FAULT_STATES: Final = frozenset({TableState.FAULT, TableState.SHOE_ERROR,
                                 TableState.CARD_IN_ERROR, TableState.CARD_HOLD})
PLAYER_STATES: Final = frozenset({BJ.PLAYERS, BJ.INSURANCE, CC.DECISIONS, CC.INSURANCE,
                                  HE.DECISIONS})
SETTLED: Final = frozenset({"round:settled"})
VOIDED: Final = frozenset({"round:void", "spin:void"})
OPENED: Final = frozenset({"round:open"})
NO_DEALER: Final = "kiosk"


@dataclass(frozen=True, slots=True)
class Row:
    """One journal record: when it was written, its kind and its data."""

    wall: datetime
    kind: str
    data: Mapping[str, Any]


@dataclass(slots=True)
class Money:
    """One wager kind's drop and win, cents."""

    drop: int = 0
    win: int = 0

    def as_record(self) -> dict[str, object]:
        """Drop, win and hold (None with no drop)."""
        return {"drop": self.drop, "win": self.win,
                "hold": round(self.win / self.drop, 4) if self.drop else None}


@dataclass(slots=True)
class ShiftFigures:
    """The figures of one window of one table's journal."""

    start: datetime | None = None
    end: datetime | None = None
    rounds: int = 0
    voids: int = 0
    round_seconds: list[float] = field(default_factory=list)
    shuffle_seconds: float = 0.0
    fault_seconds: float = 0.0
    player_seconds: float = 0.0
    decisions: int = 0
    hands_per_seat: Counter[int] = field(default_factory=Counter)
    money: dict[str, Money] = field(default_factory=lambda: defaultdict(Money))
    dealers: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """Each dealer's rounds: their seconds (None where the round's opening was not seen)."""
    stations: dict[int, Money] = field(default_factory=lambda: defaultdict(Money))
    station_rounds: Counter[int] = field(default_factory=Counter)
    rounds_by_hour: Counter[str] = field(default_factory=Counter)

    @property
    def open_seconds(self) -> float:
        """Seconds the table was open for play in the window."""
        if self.start is None or self.end is None:
            return 0.0
        return max((self.end - self.start).total_seconds() - self.shuffle_seconds
                   - self.fault_seconds, 0.0)

    def as_record(self) -> dict[str, object]:
        """The figures as JSON (`shoectl report shift --json`)."""
        hours = self.open_seconds / 3600
        minutes = self.player_seconds / 60
        ordered = sorted(self.round_seconds)
        return {
            "from": self.start.isoformat() if self.start else None,
            "to": self.end.isoformat() if self.end else None,
            "rounds": self.rounds, "voids": self.voids,
            "rounds_per_hour": round(self.rounds / hours, 1) if hours else None,
            "seconds_per_round": {
                "median": round(statistics.median(ordered), 1) if ordered else None,
                "p90": round(ordered[math.ceil(0.9 * len(ordered)) - 1], 1) if ordered else None},
            "shuffle_seconds": round(self.shuffle_seconds, 1),
            "fault_seconds": round(self.fault_seconds, 1),
            "hands_per_seat": {str(seat): n for seat, n in sorted(self.hands_per_seat.items())},
            "decisions": self.decisions,
            "decisions_per_minute": round(self.decisions / minutes, 1) if minutes else None,
            "wagers": {kind: money.as_record() for kind, money in sorted(self.money.items())},
            "dealers": {name: _pace(seconds) for name, seconds in sorted(self.dealers.items())},
            "stations": {str(station): {"rounds": self.station_rounds[station],
                                        "win": money.win}
                         for station, money in sorted(self.stations.items())},
            "rounds_by_hour": dict(sorted(self.rounds_by_hour.items())),
        }


class ShiftReader:
    """Reads one table's records in order and keeps the figures of one window."""

    def __init__(self, start: datetime | None = None, end: datetime | None = None) -> None:
        self.window = (start, end)
        self.figures = ShiftFigures()
        self.state = ""
        self.state_since: datetime | None = None
        self.round_opened: datetime | None = None
        self.dealer = NO_DEALER
        self.main_stakes: dict[int, int] = {}
        self.first_seen: datetime | None = None
        self.last_seen: datetime | None = None

    def inside(self, when: datetime) -> bool:
        """True for a time within the window."""
        start, end = self.window
        return (start is None or when >= start) and (end is None or when < end)

    def take(self, row: Row) -> None:
        """One record (records outside the window only keep the state and the dealer)."""
        kind, data = row.kind, row.data
        self.first_seen = self.first_seen or row.wall
        self.last_seen = row.wall
        if kind == "procedure:state":
            self._leave_state(row.wall)
            self.state, self.state_since = str(data.get("to", "")), row.wall
        elif kind == "console:command" and str(data.get("by", "")).startswith("dealer:"):
            self.dealer = str(data["by"])
        elif kind in OPENED and kind not in SETTLED:
            self.round_opened = row.wall
        if not self.inside(row.wall):
            if kind in SETTLED:
                self.round_opened = row.wall if kind == "spin:winners_paid" else None
            return
        figures = self.figures
        if kind == "round:no_more_bets":
            self._wagered(data)
        elif kind.startswith("decision:") and kind != "decision:no_insurance":
            figures.decisions += 1
            self._doubled_or_split(kind, data)
        elif kind in VOIDED:
            figures.voids += 1
        elif kind in SETTLED:
            self._settled(row)

    def so_far(self) -> dict[str, object]:
        """The figures of what was read so far, as JSON; the reader reads on."""
        figures = self.figures
        kept = (figures.start, figures.end, figures.shuffle_seconds, figures.fault_seconds,
                figures.player_seconds, self.state_since)
        record = self.finish().as_record()
        (figures.start, figures.end, figures.shuffle_seconds, figures.fault_seconds,
         figures.player_seconds, self.state_since) = kept
        return record

    def finish(self) -> ShiftFigures:
        """The figures, the window clipped to the journal, the state in force up to its end."""
        start, end = self.window
        if self.first_seen is None or self.last_seen is None:
            return self.figures
        self.figures.start = max(start, self.first_seen) if start else self.first_seen
        self.figures.end = min(end, self.last_seen) if end else self.last_seen
        if self.figures.end > self.figures.start:
            self._leave_state(self.figures.end)
        else:
            self.figures.start = self.figures.end = None
        return self.figures

    def _leave_state(self, until: datetime) -> None:
        if self.state_since is None:
            return
        start, end = self.window
        since = max(self.state_since, start) if start else self.state_since
        stop = min(until, end) if end else until
        seconds = max((stop - since).total_seconds(), 0.0)
        if self.state in SHUFFLE_STATES:
            self.figures.shuffle_seconds += seconds
        elif self.state in FAULT_STATES:
            self.figures.fault_seconds += seconds
        elif self.state in PLAYER_STATES:
            self.figures.player_seconds += seconds
        self.state_since = until

    def _wagered(self, data: Mapping[str, Any]) -> None:
        bets = data.get("bets", ())
        self.main_stakes = {}
        if isinstance(bets, Mapping):  # baccarat: {seat: {wager: cents}}
            for wagers in bets.values():
                for kind, cents in wagers.items():
                    self.figures.money[kind].drop += int(cents)
            return
        for seat, main, sides, *_ in bets:  # blackjack family: [seat, main, {side: cents}]
            self.main_stakes[int(seat)] = int(main)
            self.figures.money["main"].drop += int(main)
            for kind, cents in dict(sides).items():
                self.figures.money[kind].drop += int(cents)

    def _doubled_or_split(self, kind: str, data: Mapping[str, Any]) -> None:
        if kind not in {"decision:double", "decision:split"}:
            return
        turn = data.get("turn") or ()
        seat = int(turn[0]) if turn else 0
        cents = data.get("cents")
        self.figures.money["main"].drop += int(cents) if cents else self.main_stakes.get(seat, 0)

    def _settled(self, row: Row) -> None:
        figures = self.figures
        figures.rounds += 1
        seconds = ((row.wall - self.round_opened).total_seconds()
                   if self.round_opened is not None else None)
        figures.dealers[self.dealer].append(seconds if seconds is not None else float("nan"))
        figures.rounds_by_hour[row.wall.strftime("%Y-%m-%dT%H:00")] += 1
        if seconds is not None:
            figures.round_seconds.append(seconds)
        self.round_opened = None
        seats = row.data.get("seats", ())
        if isinstance(seats, Mapping):  # hold'em: {seat: {...}}
            seats = [{"seat": seat, **dict(held)} for seat, held in seats.items()
                     if isinstance(held, Mapping)]
        for seat in seats:
            if isinstance(seat, Mapping):
                self._seat_settled(seat)
        for station in row.data.get("stations", ()):  # the community game
            if isinstance(station, Mapping):
                self._station_settled(station)

    def _station_settled(self, station: Mapping[str, Any]) -> None:
        """A station's spots: the main wager's and each side wager's nets, by station."""
        number = int(station["station"])
        self.figures.station_rounds[number] += 1
        for spot in station.get("spots", ()):
            sides = {kind: _cents(net) for kind, net in dict(spot.get("side_bets", {})).items()}
            net = _cents(spot.get("net"))  # the spot's whole net, its side wagers' included
            self.figures.money["main"].win -= net - sum(sides.values())
            for kind, side in sides.items():
                self.figures.money[kind].win -= side
            self.figures.stations[number].win -= net

    def _seat_settled(self, seat: Mapping[str, Any]) -> None:
        """One seat's nets, in each game's shape of `round:settled`.

        A net still pending (a linked hit's, before the controller answers) counts nothing.
        """
        money = self.figures.money
        if "hands" in seat:  # the blackjack family: its drop came with no more bets
            self.figures.hands_per_seat[int(seat["seat"])] += len(seat["hands"])
            money["main"].win -= sum(_cents(hand.get("net")) for hand in seat["hands"])
            money["insurance"].win -= _cents(seat.get("insurance"))
        for kind, net in dict(seat.get("side_bets", {})).items():
            money[kind].win -= _cents(net)
        for kind, net in dict(seat.get("bets", {})).items():  # baccarat
            money[kind].win -= _cents(net)
        for wager in seat.get("wagers", ()) if isinstance(seat.get("wagers"), list) else ():
            money[str(wager["bet"])].drop += _cents(wager.get("cents"))  # roulette
            money[str(wager["bet"])].win -= _cents(wager.get("net"))
        if isinstance(seat.get("nets"), Mapping):  # hold'em: wagers and nets by kind
            for kind, cents in dict(seat.get("wagers", {})).items():
                money[kind].drop += _cents(cents)
            for kind, net in dict(seat["nets"]).items():
                money[kind].win -= _cents(net)


def _pace(seconds: list[float]) -> dict[str, object]:
    """A dealer's rounds, their median seconds and rounds an hour of their own rounds' time."""
    timed = sorted(s for s in seconds if not math.isnan(s))
    total = sum(timed)
    return {"rounds": len(seconds),
            "seconds_per_round": round(statistics.median(timed), 1) if timed else None,
            "rounds_per_hour": round(len(timed) / (total / 3600), 1) if total else None}


def _cents(value: object) -> int:
    """An amount of a record, or 0 for none (a pending net, a flag)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def shift_figures(rows: Iterable[Row], start: datetime | None = None,
                  end: datetime | None = None) -> ShiftFigures:
    """The figures of the records within [start, end) (either open)."""
    reader = ShiftReader(start, end)
    for row in rows:
        reader.take(row)
    return reader.finish()


class StoredRow(Protocol):
    """A journal row as the store gives it (`controller.journal.chain.Entry`)."""

    @property
    def seq(self) -> int:
        """Its place in the journal."""
        ...

    @property
    def wall(self) -> str:
        """When it was written, ISO 8601."""
        ...

    @property
    def kind(self) -> str:
        """Its kind."""
        ...

    @property
    def data(self) -> dict[str, Any]:
        """Its data."""
        ...


class DayFigures:
    """A table's figures of the UTC day of its newest row, read on as rows come.

    `read` takes rows in journal order (a new day starts the figures again); `figures` gives
    the day's figures so far, the wagers' money reduced to each kind's hold (what the pit
    and floor views show: no drop or win in cents on a public page).
    """

    def __init__(self) -> None:
        self.day = ""
        self.reader: ShiftReader | None = None
        self.last_seq = 0

    def read(self, rows: Iterable[StoredRow]) -> None:
        """Rows in order."""
        for row in rows:
            self.last_seq = row.seq
            if not row.wall:
                continue
            when = datetime.fromisoformat(row.wall).astimezone(UTC)
            day = when.date().isoformat()
            if day != self.day or self.reader is None:
                start = datetime.fromisoformat(day).replace(tzinfo=UTC)
                self.day, self.reader = day, ShiftReader(start, start + timedelta(days=1))
            self.reader.take(Row(when, row.kind, row.data))

    def figures(self) -> dict[str, Any] | None:
        """The day's figures so far (None before any row)."""
        if self.reader is None:
            return None
        record = self.reader.so_far()
        wagers: dict[str, dict[str, Any]] = record.pop("wagers")  # type: ignore[assignment]
        record["hold"] = {kind: money["hold"] for kind, money in wagers.items()}
        return {"day": self.day, **record}
