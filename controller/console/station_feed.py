"""Every station's object after every commit, the part the stations share built once.

At a community table each commit changes what every station shows (a card reaches every
station's hands). Building each station's object as a dict and encoding it apart costs a
tenth of a millisecond a station, K times a commit on the loop thread. The feed is one
runtime watcher for all the stations: per commit it encodes what every station shows the same
(the table, round and state, the limits and chips, the shared cards, the dealer's cards, the
spots nobody at a station wagered on) once, each spot's hands once each time its rules round
changes, and each station's last round once a settlement; a station's own fields (its
message, credits, wagers, phase, timer, spots) are then joined to them as text. Each
station's hub publishes the text only when it differs from the last (`ConsoleHub.publish`).

The object is the one `station_view` builds (STATIONS.md), key for key; only the encoding
is shared. `tests/console/test_station_feed.py` holds the two to each other.
"""

from __future__ import annotations

from typing import Any

from controller.console.hub import ConsoleHub, compact_json
from controller.console.station_view import (
    CHIPS,
    _common,
    _hands_of,
    _last_round,
    message,
    side_offer,
)
from controller.console.views import NO_STATIONS, station_model
from controller.procedure.community import SPOTS, CommunityModel, CommunityRound, side_json
from controller.service.runtime import TableRuntime

_dumps = compact_json


class StationFeed:
    """Publishes station 1..N's object to `hubs[0..N-1]` after every commit (loop thread)."""

    def __init__(self, hubs: list[ConsoleHub]) -> None:
        self.hubs = hubs
        self._spots: dict[tuple[int, int], tuple[tuple[object, ...], str]] = {}
        self._last: dict[int, tuple[object, str]] = {}

    def attach(self, runtime: TableRuntime) -> None:
        """Publish after every commit of `runtime`, starting now (loop thread)."""
        runtime.watchers.append(self.watch)
        self.watch(runtime)

    def watch(self, runtime: TableRuntime) -> None:
        """Runtime watcher: each station's object, published where it changed."""
        model = station_model(runtime.model)
        if model is None:
            for number, hub in enumerate(self.hubs, start=1):
                hub.publish({"station": number, "error": NO_STATIONS})
            return
        for number, text in enumerate(self.texts(model, len(self.hubs)), start=1):
            self.hubs[number - 1].publish_text(text)

    def texts(self, model: CommunityModel, count: int) -> list[str]:
        """Station 1..`count`'s objects as JSON text (`station_view`'s, encoded)."""
        table = model.setup.config.table
        game = model.game
        head = _fields(table=table.name, round=model.round.number, state=model.state)
        middle = _fields(limits={"min": table.min_wager, "max": table.max_wager},
                         chips=list(CHIPS), **side_offer(model))
        common: dict[str, Any] = (
            {"shared": [], "dealer": {"cards": [], "total": None}, "spots": {}}
            if game is None else _common(game))
        shared = _fields(shared=common["shared"], dealer=common["dealer"])
        bare = {spot: _dumps({"spot": spot, "wager": 0, "side_bets": {}, "hands": hands,
                              "open": [], "acting_hand": None, "insurance_due": False})
                for spot, hands in common["spots"].items()}
        return [self._text(model, game, station, head, middle, shared, bare)
                for station in range(1, count + 1)]

    def _text(self, model: CommunityModel, game: CommunityRound | None, station: int,
              head: str, middle: str, shared: str, bare: dict[int, str]) -> str:
        wagers = model.wagers
        own = _fields(
            credits=model.credits.balance.get(station, 0),
            available=model.credits.available(station),
            wagers={str(k): v for k, v in sorted(wagers.spots.get(station, {}).items())},
            side_wagers=side_json(wagers.sides.get(station, {})),
            repeat={str(k): v for k, v in sorted(wagers.last.get(station, {}).items())},
            auto_repeat=station in wagers.auto)
        if game is None:
            play = '"phase":null,"timer":null'
            spots = "[]"
        else:
            seconds = model.timers.remaining(station)
            playing = station in game.wagers  # a dict: no tuple of K built per station
            play = _fields(
                phase=game.station_phase(station).value if playing else None,
                timer=None if seconds is None else {"limit": model.timers.seconds,
                                                    "left": round(seconds, 2)})
            spots = "[" + ",".join(
                self._spot(game, station, spot) if playing and spot in game.wagers[station]
                else bare[spot] for spot in SPOTS) + "]"
        return (f'{{"station":{station},{head},"message":{_dumps(message(model, station))},'
                f'{middle},{own},{play},{shared},"spots":{spots},'
                f'"last_round":{self._last_round(model, station)}}}')

    def _spot(self, game: CommunityRound, station: int, spot: int) -> str:
        """A wagered spot, encoded again only when its round, phase or insurance changed."""
        key = (station, spot)
        rules_round = game.spots.get(key)
        wager = game.wagers[station][spot]
        sides = game.sides.get(station, {}).get(spot, {})  # fixed for the round
        if rules_round is None:  # still being dealt: the shared cards, as they come
            return _dumps({"spot": spot, "wager": wager, "side_bets": sides,
                           "hands": _common(game)["spots"][spot],
                           "open": [], "acting_hand": None, "insurance_due": False})
        stamp = (rules_round, game.station_phase(station), game.insurance_pending(key), wager)
        kept = self._spots.get(key)
        if kept is not None and _same(kept[0], stamp):
            return kept[1]
        acting = game.acting_hand(station, spot)
        text = _dumps({"spot": spot, "wager": wager, "side_bets": sides,
                       "hands": _hands_of(key, rules_round),
                       "open": sorted(str(a) for a in game.legal(station, spot)),
                       "acting_hand": None if acting is None else acting + 1,
                       "insurance_due": stamp[2]})
        self._spots[key] = (stamp, text)
        return text

    def _last_round(self, model: CommunityModel, station: int) -> str:
        """The station's `last_round`, encoded once a settlement."""
        record = model.results[-1] if model.results else None
        kept = self._last.get(station)
        if kept is not None and kept[0] is record:
            return kept[1]
        text = _dumps(_last_round(model, station))
        self._last[station] = (record, text)
        return text


def _same(kept: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """The same rules round (the rounds are immutable: identity) and the same other parts."""
    return kept[0] is now[0] and kept[1:] == now[1:]


def _fields(**values: Any) -> str:
    """`"key": value, ...` (an object's members, without the braces)."""
    return _dumps(values)[1:-1]
