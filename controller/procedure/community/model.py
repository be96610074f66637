"""The community-card multi-hand blackjack procedure model (seed 004).

What the community transition table drives. A live dealer deals from the reading shoe; the
players sit at stations, each with up to three spots. The round itself is a
`CommunityRound` (shared starting cards, one rules round per wagered spot of each station,
the seed's card routing); the model adds the table around it: the shoe, the stations'
wagers (`wagers`), the cards and decisions (`play`), the decision timers (`timers`, on the
loop's clock), settlement and the public view. Each part reads the model through a
protocol of its own module; one part reaches another only through the model
(`credit_shortfall`, `chips_on`, `timer_current`, `timer_ran_out`). Per station the round of
decisions is `deciding` (its timer runs), `waiting` (it asked for a card) or `finished`; each
change is journalled (`station:phase`).

Public outputs (the dealer display, lamps, `public_view`, the operational log) come from
public information only: the dealer's up card until the hole card is turned over when every
station is finished, or the peek's one bit on a dealer blackjack (R5).
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from transitions import EventData

from controller.procedure.community.credits import StationCredits
from controller.procedure.community.play import CommunityPlay
from controller.procedure.community.round import CommunityRound, Stage
from controller.procedure.community.rows import ROWS
from controller.procedure.community.states import CC, IN_PLAY
from controller.procedure.community.timers import StationTimers
from controller.procedure.community.wagers import MAIN, StationWagers, side_json
from controller.procedure.core.effects import Journal, OpLog
from controller.procedure.core.machine import build_machine
from controller.procedure.core.timing import Fire, FireTogether, TimerScheduler
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import OutputsHost, SignDesk, TableOutputs
from controller.rules import blackjack as bj


class CommunityOutputsHost(OutputsHost, Protocol):
    """What the community outputs read of the model besides the shared outputs' facts."""

    def stations_deciding(self) -> list[int]:
        """The stations the dealer waits for."""
        ...


class CommunityOutputs(TableOutputs):
    """The shared lamps; the dealer display says whom the dealer waits for, or to draw."""

    model: CommunityOutputsHost

    def __init__(self, model: CommunityOutputsHost, progressive: SignDesk) -> None:
        super().__init__(model, progressive)
        self.model = model

    def round_text(self) -> str:
        """DRAW A CARD, WAITING FOR STATIONS 1 3, INSURANCE..., from public facts only."""
        model = self.model
        if model.state == CC.DECISIONS:
            deciding = model.stations_deciding()
            if deciding:
                return "WAITING FOR STATIONS " + " ".join(map(str, deciding))
            return "DRAW A CARD"
        if model.state == CC.INSURANCE:
            return "INSURANCE - WAITING FOR STATIONS " + " ".join(
                map(str, model.stations_deciding()))
        return _ROUND_TEXT.get(model.state, model.state.upper())


_ROUND_TEXT: Final[dict[str, str]] = {CC.DEALING: "DEALING", CC.DEALER: "DEALER DRAWS",
                                      CC.SETTLEMENT: "SETTLEMENT", CC.ROUND_OVER: "ROUND OVER"}
"""The dealer display in the states that say no more than their name."""


class CommunityModel(TableModel):
    """The model the community transition table drives.

    Attributes:
        rules_table: The community rules and pay tables as the rules package holds them.
        game: The round in play (None between rounds).
        station_count: How many stations the table has (`[rules.community] stations`
            unless given).
        timers: The stations' decision timers.
        phases: Each station's last journalled decision phase (this round).
        credits: Each station's credits and meters.
    """

    wagers: StationWagers
    outputs: CommunityOutputs
    in_play_states = IN_PLAY

    def __init__(self, setup: Setup, meters: meter_books.Meters,
                 initial: str = str(CC.SHOE_LOADING), *, stations: int | None = None,
                 decision_seconds: float | None = None) -> None:
        super().__init__(setup, meters)
        rules = setup.config.community
        self.rules_table = bj.BlackjackTable.from_config(setup.config)
        self.station_count = rules.stations if stations is None else stations
        if decision_seconds is None:
            decision_seconds = float(rules.decision_seconds)
        self.game: CommunityRound | None = None
        self.phases: dict[int, str] = {}
        self.wagers = StationWagers(self, self.progressive)
        self.credits = StationCredits(self)
        self.play = CommunityPlay(self, self.shoe)
        self.timers = StationTimers(self, decision_seconds)
        self.outputs = CommunityOutputs(self, self.progressive)
        self.machine = build_machine(self, CC, ROWS, initial)

    # ------------------------------------------------------------------ running
    def run_timers_on(self, scheduler: TimerScheduler, fire: Fire,
                      fire_together: FireTogether) -> bool:
        """Run the stations' decision timers on the table's loop.

        What runs out is fired and committed by the runtime (`fire`, `fire_together`).
        """
        self.timers.attach(scheduler, fire, fire_together)
        return True

    def fire(self, name: str, **kwargs: Any) -> bool:
        """Fire a trigger; then journal each station's new phase and start or stop timers."""
        fired = super().fire(name, **kwargs)
        self._note_phases()
        self.timers.sync()
        return fired

    def fire_all(self, calls: list[tuple[str, dict[str, Any]]]) -> bool:
        """Fire triggers due at the same moment (timers); phases and timers after the last."""
        fired = False
        for name, kwargs in calls:
            fired |= TableModel.fire(self, name, **kwargs)
        self._note_phases()
        self.timers.sync()
        return fired

    def consume_held_card(self) -> None:
        """A card kept after an error goes to the round once a card is due."""
        self.play.consume_held_card()

    def stations_deciding(self) -> list[int]:
        """Public: the stations the dealer waits for (insurance, or a round of decisions)."""
        game = self.game
        if game is None:
            return []
        if self.state == CC.INSURANCE:
            return sorted({station for station, _ in game.insurance_due()})
        if self.state != CC.DECISIONS:
            return []
        return [s for s in game.stations if game.station_phase(s).value == "deciding"]

    def card_due_to(self) -> object | None:
        """Public: "community" or "dealer" when a card is due from the shoe, else None."""
        game = self.game
        if game is None or self.state not in (CC.DEALING, CC.DECISIONS, CC.DEALER):
            return None
        if not game.card_due():
            return None
        return "dealer" if game.stage is Stage.DEALER else "community"

    def _note_phases(self) -> None:
        game = self.game
        if game is None or self.state not in (CC.DECISIONS, CC.DEALER, CC.SETTLEMENT):
            return
        for station in game.stations:
            phase = game.station_phase(station).value
            if self.phases.get(station) != phase:
                self.phases[station] = phase
                self.emit(Journal("station:phase", {"round": self.round.number,
                                                    "station": station, "phase": phase}))

    # ------------------------------------------------------------------ between the parts
    def credit_shortfall(self, station: int, cents: int) -> str:
        """Why `cents` more cannot be put up by the station ("" when it can)."""
        return self.credits.shortfall(station, cents)

    def chips_on(self, station: int) -> int:
        """The station's chips on its spots while bets are open (cents)."""
        return self.wagers.chips_on(station)

    def timer_current(self, station: int, number: int) -> bool:
        """True when timer `number` is the one running for `station` (not a stale expiry)."""
        return self.timers.is_current(station, number)

    def timer_ran_out(self, station: int) -> None:
        """The station's timer ran out: it is no longer running (the table acts on it)."""
        self.timers.expired(station)

    # ------------------------------------------------------------------ betting
    def open_betting(self, event: EventData) -> None:
        """Callback: a new round opens; stations with AUTO REPEAT get their last wagers."""
        super().open_betting(event)
        self.wagers.auto_repeat_all(event)

    def lock_out_bets(self, event: EventData) -> None:
        """Callback: no more bets; stations under the minimum are returned; the round starts."""
        self.collecting = {}
        short = self.wagers.under_minimum()
        sides = self.wagers.locked_sides()
        wagers = self.wagers.locked()
        self.game = CommunityRound.start(self.rules_table, wagers, sides)
        self.phases = {}
        self.emit(Journal("round:no_more_bets", {
            "round": self.round.number,
            "wagers": [{"station": s, "spots": {str(k): v for k, v in spots.items()},
                        **({"side_bets": side_json(sides[s])} if s in sides else {})}
                       for s, spots in wagers.items()],
            "returned_under_minimum": short}),
                  OpLog(f"no more bets: {len(wagers)} stations"))

    # ------------------------------------------------------------------ stages
    def stage_is(self, stage: str) -> bool:
        """True when the round in play is at `stage`."""
        return self.game is not None and self.game.stage.value == stage

    def stage_is_insurance(self, event: EventData) -> bool:
        """Condition: insurance is open (ace up)."""
        return self.stage_is("insurance")

    def stage_is_decisions(self, event: EventData) -> bool:
        """Condition: the stations decide."""
        return self.stage_is("decisions")

    def stage_is_dealer(self, event: EventData) -> bool:
        """Condition: every station is finished and the dealer draws."""
        return self.stage_is("dealer")

    def stage_is_complete(self, event: EventData) -> bool:
        """Condition: the round is ready to settle."""
        return self.stage_is("complete")

    def reveal_hole(self, event: EventData) -> None:
        """Callback: every station is finished (or the peek found a blackjack): hole card up."""
        assert self.game is not None
        self.timers.stop_all()
        self.emit(Journal("dealer:hole_revealed", {"round": self.round.number,
                                                   "dealer": self.game.dealer_public()}),
                  OpLog("hole card turned over"))

    # ------------------------------------------------------------------ settlement
    def settle_round(self, event: EventData) -> None:
        """Callback: settle every wagered spot through the rules (integer cents)."""
        assert self.game is not None
        record = {"round": self.round.number, **self.game.record()}
        self.round.settled = True
        self.round.result = record
        self.results.append(record)
        self.emit(Journal("round:settled", record),
                  OpLog(f"round {self.round.number} settled"))
        self.credits.settle(record)

    # ------------------------------------------------------------------ round
    def discard_round(self) -> None:
        """Forget the round in play (timers stopped)."""
        super().discard_round()
        self.timers.stop_all()
        self.game = None
        self.phases = {}

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """Each station's wagers at stake, with doubles, splits and insurance."""
        if self.game is None:
            return self.wagers.in_play()
        out = []
        for station in self.game.stations:
            spots = {}
            for key in self.game.spot_keys(station):
                seat = self.game.spots[key].seats[0] if key in self.game.spots else None
                spots[str(key[1])] = {
                    "main": self.game.wagers[station][key[1]],
                    **self.game.sides.get(station, {}).get(key[1], {}),
                    "doubled": sum(h.doubled for h in seat.hands) if seat else 0,
                    "split": max(0, len(seat.hands) - 1) * seat.bets.wager if seat else 0,
                    "insurance": seat.insurance if seat else 0}
            out.append({"station": station, "spots": spots})
        return out

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state: the wagers and the round's steps."""
        game = self.game
        return {**super().snapshot(), "community": {
            "spots": {str(s): {str(k): v for k, v in spots.items()}
                      for s, spots in self.wagers.spots.items()},
            "sides": {str(s): side_json(spots) for s, spots in self.wagers.sides.items()},
            "presses": {str(s): [list(p) for p in ps] for s, ps in self.wagers.presses.items()},
            "last": {str(s): {str(k): v for k, v in spots.items()}
                     for s, spots in self.wagers.last.items()},
            "last_sides": {str(s): side_json(spots)
                           for s, spots in self.wagers.last_sides.items()},
            "auto_repeat": sorted(self.wagers.auto), "last_call": self.wagers.last_call,
            "credits": self.credits.snapshot(),
            "round": None if game is None else {
                "wagers": {str(s): {str(k): v for k, v in spots.items()}
                           for s, spots in game.wagers.items()},
                "sides": {str(s): side_json(spots) for s, spots in game.sides.items()},
                "steps": game.steps}}}

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot by replaying the round's steps (timers start afresh)."""
        super().restore(data)
        saved = data["community"]
        self.wagers.spots = {int(s): {int(k): int(v) for k, v in spots.items()}
                             for s, spots in saved["spots"].items()}
        self.wagers.sides = sides_from_json(saved.get("sides", {}))
        self.wagers.presses = {int(s): [(int(p[0]), int(p[1]), str(p[2]) if len(p) > 2
                                         else MAIN) for p in ps]
                               for s, ps in saved["presses"].items()}
        self.wagers.last = {int(s): {int(k): int(v) for k, v in spots.items()}
                            for s, spots in saved.get("last", {}).items()}
        self.wagers.last_sides = sides_from_json(saved.get("last_sides", {}))
        self.wagers.auto = {int(s) for s in saved.get("auto_repeat", [])}
        self.wagers.last_call = bool(saved.get("last_call", False))
        self.credits.restore(saved.get("credits"))
        kept = saved["round"]
        self.game = None if kept is None else CommunityRound.rebuild(
            self.rules_table, {int(s): {int(k): int(v) for k, v in spots.items()}
                               for s, spots in kept["wagers"].items()}, list(kept["steps"]),
            sides_from_json(kept.get("sides", {})))
        self.timers.sync()


def sides_from_json(saved: dict[str, Any]) -> dict[int, dict[int, dict[str, int]]]:
    """Side wagers back from their JSON (station -> spot -> name -> cents, keys as text)."""
    return {int(s): {int(spot): {str(b): int(c) for b, c in bets.items()}
                     for spot, bets in spots.items()} for s, spots in saved.items()}
