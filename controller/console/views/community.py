"""The community game as the dealer's console shows it: who still decides, when to draw.

`community_table` is the console API's `community` object (API.md): every station with a
wager, its spots' and side wagers, its phase (`in_play` until the decisions begin, then
`deciding`, `waiting`, `finished`), the seconds left on its timer and, for each waiting
station, the hand the next community card goes to (spot and hand, from 1);
`card_due` says whether a card is due now (`community`, `dealer`) and `burn_for` the stations
for which the next community card is a burn. `community_prompt` says the same in words.
Public information only: the hole card never appears before it is turned over (R5).
"""

from __future__ import annotations

from typing import Any

from controller.procedure.community import CC, CommunityModel, Stage, StationPhase, side_json
from controller.procedure.families import model_as
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj


def stations(table: TableModel) -> list[dict[str, Any]]:
    """The pit view's `stations`: each station's credits and meters."""
    model = model_as(table, CommunityModel)
    return [{"station": n, "credits": model.credits.balance.get(n, 0),
             "at_stake": model.credits.at_stake(n), "meters": model.credits.meters_of(n)}
            for n in range(1, model.station_count + 1)]


def community_table(table: TableModel) -> dict[str, Any]:
    """The console's `community` object."""
    model = model_as(table, CommunityModel)
    game = model.game
    base: dict[str, Any] = {
        "stations": model.station_count, "last_call": model.wagers.last_call,
        "card_due": model.card_due_to(), "deciding": model.stations_deciding(),
        "playing": [], "burn_for": [],
        "shared": [] if game is None else game.shared(),
        "dealer": [] if game is None else game.dealer_public(),
        "betting": [_wagers_of(model, s) for s in sorted(model.wagers.spots)]}
    if game is None:
        return base
    deciding = model.stations_deciding()
    before_decisions = game.stage in _BEFORE_DECISIONS
    for station in game.stations:
        phase = game.station_phase(station)
        left = model.timers.remaining(station)
        shown = phase.value if not before_decisions else (
            StationPhase.DECIDING.value if station in deciding else "in_play")
        base["playing"].append({
            **_wagers_of(model, station), "phase": shown,
            "seconds_left": None if left is None else round(left, 1),
            "next_card": next_card_of(model, station)})
        if model.state == CC.DECISIONS and phase is StationPhase.FINISHED:
            base["burn_for"].append(station)
    return base


_BEFORE_DECISIONS = frozenset({Stage.DEAL, Stage.INSURANCE, Stage.PEEK})
"""The stages in which no station has a hand to decide yet (insurance is asked apart)."""


def _wagers_of(model: CommunityModel, station: int) -> dict[str, Any]:
    """A station's wagers: `spots` (spot -> cents) and `side_bets` (spot -> name -> cents)."""
    spots = model.wagers.spots.get(station, {})
    return {"station": station, "spots": {str(k): v for k, v in sorted(spots.items())},
            "side_bets": side_json(model.wagers.sides.get(station, {}))}


def next_card_of(model: CommunityModel, station: int) -> dict[str, int] | None:
    """The spot and hand (from 1) a waiting station's next community card goes to."""
    game = model.game
    if game is None or model.state != CC.DECISIONS:
        return None
    if game.station_phase(station) is not StationPhase.WAITING:
        return None
    for key in game.spot_keys(station):
        rules_round = game.spots[key]
        position = (bj.next_position(rules_round)
                    if rules_round.phase is bj.Phase.PLAYERS else None)
        if position is not None:
            return {"spot": key[1], "hand": position.hand + 1}
    return None


LISTED = 8
"""Stations named one by one in a prompt; beyond, the rest are counted."""


def stations_words(stations: list[int]) -> str:
    """`stations 1, 3`, or `stations 1, 2, ... and 40 more` past `LISTED` of them."""
    named = ", ".join(map(str, stations[:LISTED]))
    more = f" and {len(stations) - LISTED} more" if len(stations) > LISTED else ""
    return f"station{'s' if len(stations) != 1 else ''} {named}{more}"


def community_prompt(table: TableModel) -> str:
    """What the dealer does next at a community table, in words."""
    model = model_as(table, CommunityModel)
    state = model.state
    if state == CC.BETTING:
        playing = sorted(model.wagers.spots)
        if not playing:
            return "bets open at the stations: waiting for wagers"
        call = "LAST BETS called; " if model.wagers.last_call else "call LAST BETS, then "
        return (f"bets at {stations_words(playing)}: {call}NO MORE BETS, or "
                "deal the first card")
    due = model.card_due_to()
    if state == CC.DEALING:
        return "deal the starting cards: spot 1, 2, 3, dealer up; spot 1, 2, 3, hole"
    if state == CC.INSURANCE:
        return "insurance: waiting for " + stations_words(model.stations_deciding())
    if state == CC.DECISIONS:
        deciding = model.stations_deciding()
        if deciding:
            return stations_words(deciding) + " deciding (do not draw)"
        if due is not None:
            assert model.game is not None
            to = [f"station {s} spot {n['spot']} hand {n['hand']}"
                  for s in model.game.stations
                  if (n := next_card_of(model, s)) is not None]
            shown = to if len(to) <= LISTED else [*to[:LISTED], f"and {len(to) - LISTED} more"]
            return "draw a community card: " + "; ".join(shown)
    if state == CC.DEALER:
        return "draw for the dealer"
    return state.replace("_", " ")
