"""The stations' wagers while bets are open: a main wager on spot 1, 2 or 3 of each station.

Conditions and callbacks of the community transition table, named there `wagers.<name>`.
A `wager` adds chips to a spot (pressing the spot again adds more); `clear_last` takes back
the station's last chips, `clear_all` every chip of the station. Every amount is checked
against the table's limits per spot (`[table] min_wager` / `max_wager`), journalled with its
source (`station`, `bot`, `repeat`, `auto_repeat`), and must fit within the station's credits
(`controller.procedure.community_credits`). `repeat` places the station's wagers of its last
round again; a station with auto repeat on (`auto_repeat`) gets them placed as betting opens.
The dealer's `last_bets` turns the stations' message to LAST BETS PLEASE until no more bets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transitions import EventData

from controller.procedure.community_round import SPOTS
from controller.procedure.effects import Journal
from controller.procedure.wager_book import WagerBook

if TYPE_CHECKING:
    from controller.procedure.community_model import CommunityModel


class StationWagers(WagerBook):
    """Main wagers by station and spot (`spots`), and each station's chips in order."""

    model: CommunityModel

    def __init__(self, model: CommunityModel) -> None:
        super().__init__(model, ("main",))
        self.model = model
        self.spots: dict[int, dict[int, int]] = {}
        self.presses: dict[int, list[tuple[int, int]]] = {}
        self.last: dict[int, dict[int, int]] = {}
        """Each station's wagers of its last round that played (what REPEAT places)."""
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
        total = self.spots.get(station, {}).get(spot, 0) + cents
        if total > table.max_wager:
            return (f"station {station} spot {spot}: {total} cents is over the table "
                    f"maximum of {table.max_wager} cents")
        return self.model.credits.shortfall(station, cents)

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: chips on a spot of a station, within the table maximum."""
        return self.refusal(event.kwargs) == ""

    def place_wager(self, event: EventData) -> None:
        """Callback: the chips are on the spot (journalled with the spot's new total)."""
        station, spot = int(event.kwargs["station"]), int(event.kwargs["spot"])
        cents = int(event.kwargs["cents"])
        spots = self.spots.setdefault(station, {})
        spots[spot] = spots.get(spot, 0) + cents
        self.presses.setdefault(station, []).append((spot, cents))
        self._journal("bet:wager", station, spot, cents, event)

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
        return self.model.credits.shortfall(station, sum(last.values()))

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
        if on and self.model.state == "betting" and not self.repeat_refusal(station):
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
        for spot, cents in sorted(self.last[station].items()):
            spots = self.spots.setdefault(station, {})
            spots[spot] = spots.get(spot, 0) + cents
            self.presses.setdefault(station, []).append((spot, cents))
            self.model.emit(Journal("bet:wager", {
                "round": self.model.round.number, "station": station, "spot": spot,
                "cents": cents, "spot_total": spots[spot],
                "source": source or str(event.kwargs.get("source", ""))}))

    def has_chips(self, event: EventData) -> bool:
        """Condition: the station has chips to take back."""
        return bool(self.presses.get(int(event.kwargs.get("station", 0))))

    def clear_last(self, event: EventData) -> None:
        """Callback: the station's last chips come off their spot."""
        station = int(event.kwargs["station"])
        spot, cents = self.presses[station].pop()
        self._take_back(station, spot, cents)
        self._journal("bet:cleared", station, spot, cents, event)

    def clear_all(self, event: EventData) -> None:
        """Callback: every chip of the station comes off."""
        station = int(event.kwargs["station"])
        for spot, cents in reversed(self.presses.pop(station, [])):
            self._take_back(station, spot, cents)
            self._journal("bet:cleared", station, spot, cents, event)

    def _take_back(self, station: int, spot: int, cents: int) -> None:
        spots = self.spots[station]
        spots[spot] -= cents
        if not spots[spot]:
            del spots[spot]
        if not spots:
            del self.spots[station]

    def _journal(self, kind: str, station: int, spot: int, cents: int,
                 event: EventData) -> None:
        self.model.emit(Journal(kind, {
            "round": self.model.round.number, "station": station, "spot": spot,
            "cents": cents, "spot_total": self.spots.get(station, {}).get(spot, 0),
            "source": str(event.kwargs.get("source", ""))}))

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
        self.last_call = False
        return playing

    def in_play(self) -> list[dict[str, Any]]:
        """What each station has on its spots (returned if the round is voided)."""
        return [{"station": s, "spots": {str(k): v for k, v in sorted(spots.items())}}
                for s, spots in sorted(self.spots.items())]

    def clear(self) -> None:
        """A new round: every spot is empty."""
        super().clear()
        self.spots = {}
        self.presses = {}
        self.last_call = False
