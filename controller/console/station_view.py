"""What one player station shows: `GET /api/station/N` and its event stream (STATIONS.md).

Built on the loop thread after every commit, from public information and the station's own:
its credits, its chips on each spot, its hands; the shared starting cards; the dealer's up
card only, until the hole card is turned over when every station is finished (R5). The timer
is sent as the seconds left when the view was built; the page counts down from there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from controller.console.views import NO_STATIONS, station_model
from controller.procedure.community import (
    CC,
    INITIAL_ORDER,
    SPOTS,
    CommunityModel,
    CommunityRound,
    side_json,
)
from controller.rules import blackjack as bj
from controller.rules.cards import Card
from controller.rules.hands import hand_value
from controller.service.runtime import TableRuntime

CHIPS: Final = (100, 500, 2500, 10000, 50000)
"""The chip values a station offers (cents); DENOM shows the one chosen."""

_MESSAGES: Final[dict[str, str]] = {
    CC.DEALING: "NO MORE BETS", CC.DEALER: "DEALER DRAWS", CC.SETTLEMENT: "SETTLING",
    CC.ROUND_OVER: "ROUND OVER", CC.SHOE_LOADING: "SHUFFLING",
    CC.RESHUFFLE_DISCARDS: "SHUFFLING", CC.BURN: "SHUFFLING"}


def station_now(runtime: TableRuntime, station: int) -> dict[str, Any]:
    """The station's view of the running table (loop thread only)."""
    model = station_model(runtime.model)
    if model is None:
        return {"station": station, "error": NO_STATIONS}
    return station_view(model, station)


def station_view(model: CommunityModel, station: int) -> dict[str, Any]:
    """Station `station`'s whole screen, JSON-ready."""
    table = model.setup.config.table
    game = model.game
    view: dict[str, Any] = {
        "station": station, "table": table.name, "round": model.round.number,
        "state": model.state, "message": message(model, station),
        "limits": {"min": table.min_wager, "max": table.max_wager},
        "chips": list(CHIPS), **side_offer(model),
        "credits": model.credits.balance.get(station, 0),
        "available": model.credits.available(station),
        "wagers": {str(k): v for k, v in sorted(model.wagers.spots.get(station, {}).items())},
        "side_wagers": side_json(model.wagers.sides.get(station, {})),
        "repeat": {str(k): v for k, v in sorted(model.wagers.last.get(station, {}).items())},
        "auto_repeat": station in model.wagers.auto,
        "phase": None, "timer": None, "shared": [], "dealer": _dealer([]), "spots": [],
        "last_round": _last_round(model, station)}
    if game is None:
        return view
    seconds = model.timers.remaining(station)
    common = _common(game)
    view.update(
        shared=common["shared"], dealer=common["dealer"],
        phase=game.station_phase(station).value if station in game.wagers else None,
        timer=None if seconds is None else {"limit": model.timers.seconds,
                                            "left": round(seconds, 2)},
        spots=[_spot(game, station, spot) for spot in SPOTS])
    return view


def side_offer(model: CommunityModel) -> dict[str, Any]:
    """The side wagers each spot offers and their limits (the same at every station)."""
    rules = model.setup.config.community
    return {"side_bets": list(rules.side_bets),
            "side_limits": {"min": rules.side_min_wager, "max": rules.side_max_wager}}


def message(model: CommunityModel, station: int) -> str:
    """The station's message: BETS PLEASE, LAST BETS PLEASE, MAKE YOUR DECISION, ..."""
    if model.state == CC.BETTING:
        if not model.layout_answers():
            return "TABLE PAUSED"
        return "LAST BETS PLEASE" if model.wagers.last_call else "BETS PLEASE"
    game = model.game
    if game is not None and model.state == CC.INSURANCE:
        due = any(game.insurance_pending((station, spot)) for spot in SPOTS)
        return "INSURANCE?" if due else "WAIT FOR THE OTHER STATIONS"
    if game is not None and model.state == CC.DECISIONS:
        if station not in game.wagers:
            return "NEXT ROUND"
        return {"deciding": "MAKE YOUR DECISION", "waiting": "WAIT FOR THE CARD",
                "finished": "ALL HANDS STAND"}[game.station_phase(station).value]
    return _MESSAGES.get(model.state, model.state.upper().replace("_", " "))


def _dealer(cards: list[str]) -> dict[str, Any]:
    total = hand_value([Card.parse(c) for c in cards]).total if cards else None
    return {"cards": list(cards), "total": total}


def _spot(game: CommunityRound, station: int, spot: int) -> dict[str, Any]:
    """One of the station's three spots: its wager, its hands (or the shared two cards)."""
    key = (station, spot)
    rules_round = game.spots.get(key)
    wager = game.wagers.get(station, {}).get(spot, 0)
    entry: dict[str, Any] = {"spot": spot, "wager": wager,
                             "side_bets": dict(game.sides.get(station, {}).get(spot, {})),
                             "hands": [], "open": [],
                             "acting_hand": None, "insurance_due": game.insurance_pending(key)}
    if rules_round is None:
        entry["hands"] = _common(game)["spots"][spot]
        return entry
    entry["hands"] = _hands_of(key, rules_round)
    entry["open"] = sorted(str(a) for a in game.legal(station, spot))
    acting = game.acting_hand(station, spot)
    entry["acting_hand"] = None if acting is None else acting + 1
    return entry


def _hand(cards: Sequence[Card], stake: int) -> dict[str, Any]:
    value = hand_value(cards)
    return {"cards": [str(c) for c in cards], "total": value.total, "soft": value.soft,
            "stake": stake, "busted": value.total > 21}


# Every station object is built after every commit: what is the same for all of them (the
# shared cards, the dealer's, the spots nobody at a station wagered on) is built once a step,
# and a spot's hands once each time its rules round changes (the rounds are immutable).
_COMMON: dict[str, Any] = {"game": None, "steps": -1, "value": None}
_HANDS: dict[tuple[int, int], tuple[object, list[dict[str, Any]]]] = {}


def _common(game: CommunityRound) -> dict[str, Any]:
    if _COMMON["game"] is not game or _COMMON["steps"] != len(game.steps):
        initial = [c for c, p in zip(game.initial, INITIAL_ORDER, strict=False)
                   if not p.is_dealer]
        _COMMON.update(game=game, steps=len(game.steps), value={
            "shared": [str(c) for c in initial],
            "dealer": _dealer(game.dealer_public()),
            "spots": {spot: [_hand(initial[spot - 1::len(SPOTS)], 0)] if len(initial) >= spot
                      else [] for spot in SPOTS}})
    value: dict[str, Any] = _COMMON["value"]
    return value


def _hands_of(key: tuple[int, int], rules_round: object) -> list[dict[str, Any]]:
    kept = _HANDS.get(key)
    if kept is not None and kept[0] is rules_round:
        return kept[1]
    assert isinstance(rules_round, bj.BlackjackRound)
    hands = [_hand(h.cards, h.stake + h.doubled) for h in rules_round.seats[0].hands]
    _HANDS[key] = (rules_round, hands)
    return hands


def _last_round(model: CommunityModel, station: int) -> dict[str, Any] | None:
    """The station's part of the last settled round: the dealer's cards, each spot's net."""
    if not model.results:
        return None
    record = model.results[-1]
    index = _by_station(record)
    if station not in index["views"]:
        mine = index["stations"].get(station)
        index["views"][station] = {
            "round": record["round"], "dealer": _dealer(list(record["dealer"])),
            "spots": [] if mine is None else [
                {"spot": p["spot"], "cards": p["cards"], "net": p["net"],
                 "side_bets": dict(p.get("side_bets", {})),
                 "hands": [_hand([Card.parse(c) for c in h], 0)
                           for h in p.get("hands", [p["cards"]])]}
                for p in mine["spots"]],
            "net": None if mine is None else sum(p["net"] for p in mine["spots"])}
    view: dict[str, Any] = index["views"][station]
    return view


_INDEX: dict[str, Any] = {"record": None, "stations": {}, "views": {}}
"""The last settled record's stations by number and their `last_round` objects, built once."""


def _by_station(record: dict[str, Any]) -> dict[str, Any]:
    if _INDEX["record"] is not record:
        _INDEX.update(record=record, views={},
                      stations={s["station"]: s for s in record["stations"]})
    return _INDEX
