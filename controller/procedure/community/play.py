"""The community round as the table plays it: cards, insurance, the stations' decisions.

Conditions and callbacks of the community transition table, named there `play.<name>`. They
apply steps to the model's `CommunityRound` (which checks every rule) and journal each card
with where it went (the hand each waiting station chose, burns for the finished stations),
each insurance answer, each decision and each timer expiry.
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.community.round import CardRoute, CommunityRound, RoundStep, Stage
from controller.procedure.community.states import CC
from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.rules.errors import RulesError

DECISIONS = ("hit", "stand", "double", "split")
"""The station decisions (surrender is not offered at this game)."""


class CommunityPlayHost(Protocol):
    """What the community play reads and asks of the model."""

    state: str
    round: Round
    game: CommunityRound | None
    error_return: str

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def credit_shortfall(self, station: int, cents: int) -> str:
        """Why `cents` more cannot be put up by the station ("" when it can; the credits')."""
        ...

    def timer_current(self, station: int, number: int) -> bool:
        """Timer `number` is the one running for `station` (the timers')."""
        ...

    def timer_ran_out(self, station: int) -> None:
        """The station's timer ran out: it no longer runs (the timers')."""
        ...


class CommunityShoe(Protocol):
    """What the play asks the shoe: whether it can hold a card, and to count one drawn."""

    def card_is_possible(self, event: EventData) -> bool:
        """The code names a card this shoe can still hold (R9)."""
        ...

    def count_card(self, code: str) -> str:
        """Record a card leaving the shoe; return its canonical code."""
        ...


class CommunityPlay:
    """The round's cards and decisions through `CommunityRound`.

    Args:
        model: The community model, as the play sees it.
        shoe: The shoe (what it can hold, and the count of cards drawn).
    """

    def __init__(self, model: CommunityPlayHost, shoe: CommunityShoe) -> None:
        self.model = model
        self.shoe = shoe

    # ------------------------------------------------------------------ cards
    def card_is_due(self, event: EventData) -> bool:
        """Condition: the round has a place for the next card (and the shoe can hold it)."""
        game = self.model.game
        return game is not None and game.card_due() and self.shoe.card_is_possible(event)

    def deal_card(self, event: EventData) -> None:
        """Callback: the card goes where the round routes it (journalled with its route)."""
        self.deliver(self.shoe.count_card(str(event.kwargs["code"])))

    def deliver(self, card: str) -> None:
        """Apply one card from the shoe (or a held one) to the round and journal its route."""
        model = self.model
        assert model.game is not None
        stage = model.game.stage
        route = model.game.apply(["card", card])
        assert route is not None
        model.emit(Journal("card:dealt", _route_record(model.round.number, stage, route)))

    def hold_card_in_error(self, event: EventData) -> None:
        """Callback (irregularity): a card drawn while no card is due (a station decides)."""
        model = self.model
        card = self.shoe.count_card(str(event.kwargs["code"]))
        model.error_return = event.transition.source if event.transition else ""
        model.round.next_card = card
        model.emit(Journal("irregularity:card_drawn_in_error", {"card": card,
                                                                "state": model.error_return}),
                   OpLog("irregularity: card drawn while stations decide", "warning"))

    def keep_as_next_card(self, event: EventData) -> None:
        """Callback: the card was not exposed; it is the next community card."""
        self.model.error_return = ""
        self.model.emit(Journal("irregularity:error_card_kept", {"card":
                                                                 self.model.round.next_card}))

    def consume_held_card(self) -> None:
        """A kept card goes to the round as soon as a card is due."""
        model = self.model
        if (model.round.next_card and model.state in (CC.DECISIONS, CC.DEALER)
                and model.game is not None and model.game.card_due()):
            card, model.round.next_card = model.round.next_card, ""
            self.deliver(card)

    # ------------------------------------------------------------------ insurance
    def insurance_refusal(self, kwargs: dict[str, Any]) -> str:
        """Why an insurance answer cannot be taken ("" when it can)."""
        game = self.model.game
        station, spot = kwargs.get("station"), kwargs.get("spot")
        if game is None or game.stage is not Stage.INSURANCE:
            return "insurance is not open"
        if (station, spot) not in game.insurance_due():
            return f"station {station} spot {spot} is not asked about insurance"
        cents = kwargs.get("cents", 0)
        short = (self.model.credit_shortfall(station, cents)
                 if isinstance(station, int) and isinstance(cents, int) and cents > 0 else "")
        if short:
            return short
        return self._refused(["insure", station, spot, cents] if cents else
                             ["no_insurance", station, spot])

    def insurance_allowed(self, event: EventData) -> bool:
        """Condition: the spot is asked and the amount is at most half its wager."""
        return self.insurance_refusal(event.kwargs) == ""

    def answer_insurance(self, event: EventData) -> None:
        """Callback: insurance taken (`cents`) or declined (no `cents`) on a spot."""
        kwargs = event.kwargs
        cents = int(kwargs.get("cents", 0))
        station, spot = int(kwargs["station"]), int(kwargs["spot"])
        self._step(["insure", station, spot, cents] if cents else
                   ["no_insurance", station, spot])
        self.model.emit(Journal("insurance:answer", {
            "round": self.model.round.number, "station": station, "spot": spot,
            "cents": cents, "source": str(kwargs.get("source", ""))}))

    # ------------------------------------------------------------------ decisions
    def decision_refusal(self, action: str, kwargs: dict[str, Any]) -> str:
        """Why a station's decision cannot be taken ("" when it can)."""
        game = self.model.game
        station, spot = kwargs.get("station"), kwargs.get("spot")
        if game is None or game.stage is not Stage.DECISIONS:
            return "no decisions are open"
        if not isinstance(station, int) or station not in game.wagers:
            return f"station {station} has no wager this round"
        if not isinstance(spot, int) or (station, spot) not in game.spots:
            return f"station {station} has no wager on spot {spot}"
        phase = game.station_phase(station)
        if phase.value != "deciding":
            return f"station {station} is {phase.value}: no decision is open"
        legal = sorted(str(a) for a in game.legal(station, spot))
        if action not in legal:
            return (f"station {station} spot {spot}: {action} is not open "
                    f"(open: {', '.join(legal) or 'nothing'})")
        if action in ("double", "split"):
            return self.model.credit_shortfall(station, game.wagers[station][spot])
        return ""

    def decision_allowed(self, event: EventData) -> bool:
        """Condition: the decision (the trigger's name) is open on that spot now."""
        name = event.event.name if event.event else ""
        return self.decision_refusal(name, event.kwargs) == ""

    def decide(self, event: EventData) -> None:
        """Callback: the station's decision on the spot's hand due to act."""
        model = self.model
        assert model.game is not None
        assert event.event is not None
        station, spot = int(event.kwargs["station"]), int(event.kwargs["spot"])
        hand = model.game.acting_hand(station, spot)
        self._step(["act", station, spot, event.event.name])
        model.emit(Journal("decision", {
            "round": model.round.number, "station": station, "spot": spot,
            "hand": None if hand is None else hand + 1, "action": event.event.name,
            "station_now": model.game.station_phase(station).value,
            "source": str(event.kwargs.get("source", ""))}))

    def timer_is_current(self, event: EventData) -> bool:
        """Condition: the expiry is that of the station's running timer (not a stale one)."""
        station, number = event.kwargs.get("station"), event.kwargs.get("timer")
        return (isinstance(station, int) and isinstance(number, int)
                and self.model.timer_current(station, number))

    def expire(self, event: EventData) -> None:
        """Callback: the station's time ran out: insurance declined, or every hand stands."""
        model = self.model
        assert model.game is not None
        station = int(event.kwargs["station"])
        model.timer_ran_out(station)
        if model.game.stage is Stage.INSURANCE:
            for key in [k for k in model.game.spot_keys(station)
                        if model.game.insurance_pending(k)]:
                self._step(["no_insurance", *key])
        else:
            self._step(["expire", station])
        model.emit(Journal("station:timer_expired", {
            "round": model.round.number, "station": station,
            "timer": int(event.kwargs["timer"]), "stage": model.state}),
                   OpLog(f"station {station}: time ran out"))

    # ------------------------------------------------------------------ helpers
    def _refused(self, step: RoundStep) -> str:
        game = self.model.game
        assert game is not None
        trial = type(game).rebuild(game.table, game.wagers, [*game.steps], game.sides)
        try:
            trial.apply(step)
        except RulesError as exc:
            return str(exc)
        return ""

    def _step(self, step: RoundStep) -> None:
        assert self.model.game is not None
        self.model.game.apply(step)


def _route_record(number: int, stage: Stage, route: CardRoute) -> dict[str, Any]:
    return {"round": number, "stage": stage.value, "card": route.card,
            "dealer": route.dealer,
            "to": [{"station": s, "spot": p, "hand": h + 1} for s, p, h in route.to],
            "burned_for": list(route.burned_for)}
