"""The stations' wagers while bets are open: main wagers on spots 1-3, side wagers beside.

Each station has a main wager on spot 1, 2 or 3, and on each wagered spot the side wagers
the table offers (`[rules.community] side_bets`). Conditions and callbacks of the community
transition table, named there `wagers.<name>`.
A `wager` adds chips to a spot (pressing the spot again adds more); `clear_last` takes back
the station's last chips, `clear_all` every chip of the station. Every amount is checked
against the table's limits per spot (`[table] min_wager` / `max_wager`), journalled with its
source (`station`, `bot`, `repeat`, `auto_repeat`), and must fit within the station's credits
(`controller.procedure.community.credits`). A side wager (`bet` naming it) goes on a spot
that has a main wager, between `[rules.community] side_min_wager` and `side_max_wager`
(every press keeps the side wager's total within them); `clear_last` takes back presses in
the reverse order, so a side wager is never left on a spot without its main wager.
`repeat` places the station's wagers of its last round (main and side) again; a station with
auto repeat on (`auto_repeat`) gets them placed as betting opens.
The dealer's `last_bets` turns the stations' message to LAST BETS PLEASE until no more bets.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from transitions import EventData

from controller.procedure.community.round import SPOTS
from controller.procedure.community.states import CC
from controller.procedure.core.effects import Journal
from controller.procedure.shared.wager_book import ProgressiveGate, WagerBook, WagerHost

MAIN: Final = "main"
"""A press's wager name for the spot's main wager (a side wager is named as offered)."""


class StationWagersHost(WagerHost, Protocol):
    """What the stations' wagers read and ask of the model besides the shared book's host."""

    station_count: int

    def credit_shortfall(self, station: int, cents: int) -> str:
        """Why `cents` more cannot be put up by the station ("" when it can; the credits')."""
        ...


class StationWagers(WagerBook):
    """The stations' chips on the layout.

    Main wagers by station and spot (`spots`), side wagers by station, spot and name
    (`sides`), and each station's chips in order (`presses`: spot, cents, wager name).
    """

    model: StationWagersHost

    def __init__(self, model: StationWagersHost, progressive: ProgressiveGate) -> None:
        super().__init__(model, progressive, ("main",))
        self.model = model
        self.spots: dict[int, dict[int, int]] = {}
        self.sides: dict[int, dict[int, dict[str, int]]] = {}
        self.presses: dict[int, list[tuple[int, int, str]]] = {}
        self.last: dict[int, dict[int, int]] = {}
        """Each station's wagers of its last round that played (what REPEAT places)."""
        self.last_sides: dict[int, dict[int, dict[str, int]]] = {}
        """And its side wagers of that round."""
        self.auto: set[int] = set()
        """Stations with AUTO REPEAT on."""
        self.last_call = False
        """The dealer called last bets (the stations say LAST BETS PLEASE)."""

    def refusal(self, kwargs: dict[str, Any]) -> str:
        """Why a `wager` cannot be placed ("" when it can)."""
        table = self.model.setup.config.table
        station, spot, cents = kwargs.get("station"), kwargs.get("spot"), kwargs.get("cents")
        stations = self.model.station_count
        if not isinstance(station, int) or not 1 <= station <= stations:
            return f"station must be a station number from 1 to {stations}"
        if not isinstance(spot, int) or spot not in SPOTS:
            return f"station {station}: spot must be 1, 2 or 3"
        if not isinstance(cents, int) or cents <= 0:
            return f"station {station} spot {spot}: chips must be a positive number of cents"
        bet = kwargs.get("bet", MAIN)
        if bet != MAIN:
            return self._side_refusal(station, spot, str(bet), cents)
        total = self.spots.get(station, {}).get(spot, 0) + cents
        if total > table.max_wager:
            return (f"station {station} spot {spot}: {total} cents is over the table "
                    f"maximum of {table.max_wager} cents")
        return self.model.credit_shortfall(station, cents)

    def _side_refusal(self, station: int, spot: int, bet: str, cents: int) -> str:
        rules = self.model.setup.config.community
        where = f"station {station} spot {spot}"
        if bet not in rules.side_bets:
            offered = ", ".join(rules.side_bets) or "none"
            return f"{where}: {bet!r} is not offered here (side wagers: {offered})"
        if not self.spots.get(station, {}).get(spot):
            return f"{where}: place the main wager first (a side wager goes with it)"
        total = self.sides.get(station, {}).get(spot, {}).get(bet, 0) + cents
        if not rules.side_min_wager <= total <= rules.side_max_wager:
            return (f"{where}: {bet} of {total} cents is outside the side wager limits "
                    f"{rules.side_min_wager}..{rules.side_max_wager} cents")
        return self.model.credit_shortfall(station, cents)

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: chips on a spot of a station, within the table maximum."""
        return self.refusal(event.kwargs) == ""

    def place_wager(self, event: EventData) -> None:
        """Callback: the chips are on the spot (journalled with the spot's new total)."""
        station, spot = int(event.kwargs["station"]), int(event.kwargs["spot"])
        cents, bet = int(event.kwargs["cents"]), str(event.kwargs.get("bet", MAIN))
        self._add(station, spot, cents, bet)
        self._journal("bet:wager", station, spot, cents, event, bet)

    def _add(self, station: int, spot: int, cents: int, bet: str) -> None:
        if bet == MAIN:
            spots = self.spots.setdefault(station, {})
            spots[spot] = spots.get(spot, 0) + cents
        else:
            bets = self.sides.setdefault(station, {}).setdefault(spot, {})
            bets[bet] = bets.get(bet, 0) + cents
        self.presses.setdefault(station, []).append((spot, cents, bet))

    def chips_on(self, station: int) -> int:
        """The station's chips on its spots, main and side wagers (cents)."""
        return (sum(self.spots.get(station, {}).values())
                + sum(sum(b.values()) for b in self.sides.get(station, {}).values()))

    def total(self, station: int, spot: int, bet: str) -> int:
        """The station's chips on one wager of a spot (cents)."""
        if bet == MAIN:
            return self.spots.get(station, {}).get(spot, 0)
        return self.sides.get(station, {}).get(spot, {}).get(bet, 0)

    def repeat_refusal(self, station: int) -> str:
        """Why the station's last wagers cannot be placed again now ("" when they can)."""
        last = self.last.get(station)
        if not last:
            return f"station {station} has no last wager to repeat"
        if self.spots.get(station):
            return f"station {station} has chips on its spots: clear them to repeat"
        table = self.model.setup.config.table
        over = [spot for spot, cents in last.items() if cents > table.max_wager]
        if over:
            return f"station {station} spot {over[0]}: over the table maximum"
        offered = self.model.setup.config.community.side_bets
        sides = sum(c for bets in self.last_sides.get(station, {}).values()
                    for bet, c in bets.items() if bet in offered)
        return self.model.credit_shortfall(station, sum(last.values()) + sides)

    def can_repeat(self, event: EventData) -> bool:
        """Condition: the station's last wagers fit (no chips down, within limits, credits)."""
        station = event.kwargs.get("station")
        return isinstance(station, int) and self.repeat_refusal(station) == ""

    def repeat(self, event: EventData) -> None:
        """Callback: the station's last wagers are on its spots again."""
        self._place_again(int(event.kwargs["station"]), event)

    def set_auto_repeat(self, event: EventData) -> None:
        """Callback: AUTO REPEAT on or off for the station (journalled).

        Turned on while bets are open with the station's spots empty, it repeats the last
        wagers at once (when they fit), as a REPEAT would.
        """
        station, on = int(event.kwargs["station"]), bool(event.kwargs["on"])
        if on:
            self.auto.add(station)
        else:
            self.auto.discard(station)
        self.model.emit(Journal("station:auto_repeat", {
            "round": self.model.round.number, "station": station, "on": on,
            "source": str(event.kwargs.get("source", ""))}))
        if on and self.model.state == CC.BETTING and not self.repeat_refusal(station):
            self._place_again(station, event, "auto_repeat")

    def station_is_known(self, event: EventData) -> bool:
        """Condition: the command names a station of this table."""
        station = event.kwargs.get("station")
        return isinstance(station, int) and 1 <= station <= self.model.station_count

    def call_last_bets(self, event: EventData) -> None:
        """Callback: the dealer calls last bets (once a round)."""
        self.last_call = True
        self.model.emit(Journal("bet:last_call", {"round": self.model.round.number}))

    def auto_repeat_all(self, event: EventData) -> None:
        """Betting opens: each station with AUTO REPEAT on gets its last wagers, if they fit.

        A station whose last wagers no longer fit (credits) has AUTO REPEAT turned off.
        """
        for station in sorted(self.auto):
            if self.repeat_refusal(station):
                self.auto.discard(station)
                self.model.emit(Journal("station:auto_repeat", {
                    "round": self.model.round.number, "station": station, "on": False,
                    "source": "credits"}))
                continue
            self._place_again(station, event, "auto_repeat")

    def _place_again(self, station: int, event: EventData, source: str = "") -> None:
        """The last round's main wagers, then its side wagers still offered, press by press."""
        offered = self.model.setup.config.community.side_bets
        again = [(spot, cents, MAIN) for spot, cents in sorted(self.last[station].items())]
        again += [(spot, cents, bet)
                  for spot, bets in sorted(self.last_sides.get(station, {}).items())
                  for bet, cents in sorted(bets.items()) if bet in offered]
        for spot, cents, bet in again:
            self._add(station, spot, cents, bet)
            self._journal("bet:wager", station, spot, cents, event, bet, source)

    def has_chips(self, event: EventData) -> bool:
        """Condition: the station has chips to take back."""
        return bool(self.presses.get(int(event.kwargs.get("station", 0))))

    def clear_last(self, event: EventData) -> None:
        """Callback: the station's last chips come off their spot."""
        station = int(event.kwargs["station"])
        spot, cents, bet = self.presses[station].pop()
        self._take_back(station, spot, cents, bet)
        self._journal("bet:cleared", station, spot, cents, event, bet)

    def clear_all(self, event: EventData) -> None:
        """Callback: every chip of the station comes off."""
        station = int(event.kwargs["station"])
        for spot, cents, bet in reversed(self.presses.pop(station, [])):
            self._take_back(station, spot, cents, bet)
            self._journal("bet:cleared", station, spot, cents, event, bet)

    def _take_back(self, station: int, spot: int, cents: int, bet: str) -> None:
        if bet != MAIN:
            bets = self.sides[station][spot]
            bets[bet] -= cents
            _prune(self.sides, station, spot, bet)
            return
        spots = self.spots[station]
        spots[spot] -= cents
        if not spots[spot]:
            del spots[spot]
        if not spots:
            del self.spots[station]

    def _journal(self, kind: str, station: int, spot: int, cents: int, event: EventData,
                 bet: str = MAIN, source: str = "") -> None:
        """`bet:wager` / `bet:cleared`; `spot_total` is the wager's (main or side) new total."""
        self.model.emit(Journal(kind, {
            "round": self.model.round.number, "station": station, "spot": spot,
            "bet": bet, "cents": cents, "spot_total": self.total(station, spot, bet),
            "source": source or str(event.kwargs.get("source", ""))}))

    def under_minimum(self) -> list[int]:
        """Stations whose wagers together are under the table minimum (met across spots)."""
        least = self.model.setup.config.table.min_wager
        return [s for s, spots in sorted(self.spots.items()) if sum(spots.values()) < least]

    def has_wagers(self, event: EventData) -> bool:
        """Condition: some station has wagers that meet the table minimum."""
        return any(s not in self.under_minimum() for s in self.spots)

    def seats_in_play(self) -> dict[int, int | None]:
        """Each station in play and its total wagered."""
        return {s: sum(spots.values()) for s, spots in sorted(self.spots.items())}

    def locked(self) -> dict[int, dict[int, int]]:
        """The wagers that play (stations under the minimum are returned at the lock-out).

        They become each station's last wagers (REPEAT); last bets are no longer called.
        """
        short = self.under_minimum()
        playing = {s: dict(spots) for s, spots in sorted(self.spots.items()) if s not in short}
        self.last.update(playing)
        sides = self.locked_sides()
        for station in playing:
            self.last_sides[station] = sides.get(station, {})
        self.last_call = False
        return playing

    def locked_sides(self) -> dict[int, dict[int, dict[str, int]]]:
        """The side wagers that play: those of the stations whose main wagers play."""
        short = set(self.under_minimum())
        return {s: {spot: dict(bets) for spot, bets in sorted(spots.items())}
                for s, spots in sorted(self.sides.items()) if s not in short}

    def in_play(self) -> list[dict[str, Any]]:
        """What each station has on its spots (returned if the round is voided)."""
        return [{"station": s, "spots": {str(k): v for k, v in sorted(spots.items())},
                 **({"side_bets": side_json(self.sides[s])} if s in self.sides else {})}
                for s, spots in sorted(self.spots.items())]

    def clear(self) -> None:
        """A new round: every spot is empty."""
        super().clear()
        self.spots = {}
        self.sides = {}
        self.presses = {}
        self.last_call = False


def side_json(sides: dict[int, dict[str, int]]) -> dict[str, dict[str, int]]:
    """A station's side wagers as JSON: spot (as text) -> wager name -> cents."""
    return {str(spot): dict(sorted(bets.items())) for spot, bets in sorted(sides.items())}


def _prune(sides: dict[int, dict[int, dict[str, int]]], station: int, spot: int,
           bet: str) -> None:
    """Drop a side wager that came to 0, and the spot and station left with none."""
    if not sides[station][spot][bet]:
        del sides[station][spot][bet]
    if not sides[station][spot]:
        del sides[station][spot]
    if not sides[station]:
        del sides[station]
