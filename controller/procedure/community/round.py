"""One round of community-card multi-hand blackjack, built from the rules' own round.

Every station plays up to three spots; the starting two cards of spot 1, 2 and 3 and the
dealer's two are dealt once and are the same at every station (seed 004). Each wagered spot
of each station is then a one-seat `controller.rules.blackjack.BlackjackRound` of its own,
dealt the shared starting cards and the shared dealer hand, so every rule (6:5, one split,
double after split except aces, split aces one card, insurance 2:1, ten-card Charlie,
pushes) and every settlement is the rules package's, in integer cents.

What this module adds is the seed's community routing, as pure state (no clock, no I/O):

* A station is `deciding` while some hand of its own can act and none waits for a card,
  `waiting` once a hit, split or double (or a stand on the first of two split hands) asks for
  a card, and `finished` once every hand stood, busted or is otherwise done.
* A community card is due only when no station is deciding and some station waits; it goes
  to the one hand each waiting station asked for; for a finished station it is a burn.
* A timer expiry (`expire`) stands every hand of the station that can stand.
* The dealer's hand is drawn once every station is finished, by the dealer's rules.

The round is rebuilt from its wagers and its steps (`steps`), the way the blackjack
procedure snapshots its round (R14).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from controller.rules import blackjack as bj
from controller.rules import settlement
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.hands import initial_deal_order

SPOTS: Final = (1, 2, 3)
"""The betting spots of every station."""
INITIAL_ORDER: Final = initial_deal_order(list(SPOTS))
"""The initial deal: spot 1, 2, 3, dealer up; spot 1, 2, 3, dealer hole."""

SpotKey = tuple[int, int]
"""(station, spot)."""
RoundStep = list[Any]
"""["card", code], ["insure", station, spot, cents], ["no_insurance", station, spot],
["act", station, spot, action], ["expire", station]."""


class Stage(StrEnum):
    """Where the whole community round stands."""

    DEAL = "deal"
    INSURANCE = "insurance"
    PEEK = "peek"
    DECISIONS = "decisions"
    DEALER = "dealer"
    COMPLETE = "complete"


class StationPhase(StrEnum):
    """Where one station stands in the decision phase."""

    DECIDING = "deciding"
    WAITING = "waiting"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class CardRoute:
    """Where a community card went: the hand each waiting station chose; burns elsewhere.

    Attributes:
        card: The card.
        to: (station, spot, hand index from 0) for every station that asked for it.
        burned_for: The stations for which it is a burn card.
        dealer: It went to the dealer's hand.
    """

    card: str
    to: tuple[tuple[int, int, int], ...] = ()
    burned_for: tuple[int, ...] = ()
    dealer: bool = False


@dataclass
class CommunityRound:
    """The round in play: the wagers, the shared cards, every spot's rules round, the steps.

    Build it with `CommunityRound.start`; apply steps with `apply`.
    """

    table: bj.BlackjackTable
    wagers: dict[int, dict[int, int]]
    sides: dict[int, dict[int, dict[str, int]]] = field(default_factory=dict)
    """Side wagers: station -> spot -> wager name -> cents (on wagered spots only)."""
    initial: list[Card] = field(default_factory=list)
    dealer: list[Card] = field(default_factory=list)
    spots: dict[SpotKey, bj.BlackjackRound] = field(default_factory=dict)
    dealt: dict[SpotKey, list[str]] = field(default_factory=dict)
    answered: set[SpotKey] = field(default_factory=set)
    steps: list[RoundStep] = field(default_factory=list)
    _stage: Stage | None = field(default=None, repr=False, compare=False)
    """The stage, kept until a spot's round changes (`_put`): read for every view."""
    _stage_was: Stage | None = field(default=None, repr=False, compare=False)
    _phases: dict[int, StationPhase] = field(default_factory=dict, repr=False, compare=False)
    """Each station's phase, kept until one of its spots changes or the stage does."""
    _legal: dict[SpotKey, frozenset[bj.Action]] = field(default_factory=dict, repr=False,
                                                        compare=False)
    """Each spot's open actions (the rules' `legal_actions`), kept until the spot changes."""
    _counts: Counter[bj.Phase] | None = field(default=None, repr=False, compare=False)
    """Spot rounds in each rules phase, kept by `_put` (recounting per step: K^2 a round)."""

    @classmethod
    def start(cls, table: bj.BlackjackTable, wagers: Mapping[int, Mapping[int, int]],
              sides: Mapping[int, Mapping[int, Mapping[str, int]]] | None = None
              ) -> CommunityRound:
        """A new round: main wagers (station -> spot -> cents), side wagers (-> name -> cents).

        Raises:
            RulesError: no wager, a spot not 1-3, an amount not above 0, a lone side wager.
        """
        return cls(table, *_checked(wagers, sides or {}))

    # ------------------------------------------------------------------ queries
    @property
    def stage(self) -> Stage:
        """The round's stage, from its spot rounds."""
        if self._stage is None:
            now = self._stage_now()
            if now is not self._stage_was:
                self._phases.clear()  # a station's phase also depends on the stage
            self._stage = self._stage_was = now
        return self._stage

    def _stage_now(self) -> Stage:
        if len(self.initial) < len(INITIAL_ORDER):
            return Stage.DEAL
        if self._counts is None:
            self._counts = Counter(r.phase for r in self.spots.values())
        for phase, stage in ((bj.Phase.INSURANCE, Stage.INSURANCE), (bj.Phase.PEEK, Stage.PEEK),
                             (bj.Phase.PLAYERS, Stage.DECISIONS),
                             (bj.Phase.DEALER, Stage.DEALER)):
            if self._counts[phase] > 0:
                return stage
        return Stage.COMPLETE

    @property
    def stations(self) -> tuple[int, ...]:
        """The stations with a wager this round."""
        return tuple(self.wagers)

    @property
    def hole_revealed(self) -> bool:
        """The hole card is turned over (dealer's turn, or a dealer blackjack at the peek)."""
        return self.stage in (Stage.DEALER, Stage.COMPLETE)

    def shared(self) -> list[str]:
        """The starting cards of spot 1, 2 and 3 in dealing order (public)."""
        return [str(c) for c, p in zip(self.initial, INITIAL_ORDER, strict=False)
                if not p.is_dealer]

    def dealer_public(self) -> list[str]:
        """The dealer's cards anyone may see: the up card until the hole card is turned."""
        shown = self.dealer if self.hole_revealed else self.dealer[:1]
        return [str(c) for c in shown]

    def spot_keys(self, station: int) -> list[SpotKey]:
        """The wagered spots of `station`."""
        return [(station, spot) for spot in self.wagers.get(station, {})]

    def station_phase(self, station: int) -> StationPhase:
        """Deciding, waiting for a community card, or finished (decision stage only)."""
        if self.stage is not Stage.DECISIONS:
            return StationPhase.FINISHED
        phase = self._phases.get(station)
        if phase is None:
            phase = self._phases[station] = self._phase_now(station)
        return phase

    def _phase_now(self, station: int) -> StationPhase:
        keys = self.spot_keys(station)
        if any(self.spots[k].phase is bj.Phase.PLAYERS and bj.next_position(self.spots[k])
               is not None for k in keys):
            return StationPhase.WAITING
        if any(self._actions(k) for k in keys):
            return StationPhase.DECIDING
        return StationPhase.FINISHED

    def _actions(self, key: SpotKey) -> frozenset[bj.Action]:
        actions = self._legal.get(key)
        if actions is None:
            actions = self._legal[key] = bj.legal_actions(self.spots[key])
        return actions

    def legal(self, station: int, spot: int) -> frozenset[bj.Action]:
        """The actions open on the spot's hand due to act (empty when none)."""
        if ((station, spot) not in self.spots
                or self.station_phase(station) is not StationPhase.DECIDING):
            return frozenset()
        return self._actions((station, spot))

    def acting_hand(self, station: int, spot: int) -> int | None:
        """The index of the spot's hand that acts next (split hands in order)."""
        game = self.spots.get((station, spot))
        turn = bj.current_hand(game) if game is not None else None
        return None if turn is None else turn[1]

    def insurance_pending(self, key: SpotKey) -> bool:
        """True when the wagered spot `key` is still to answer insurance."""
        return self.stage is Stage.INSURANCE and key in self.spots and key not in self.answered

    def insurance_due(self) -> list[SpotKey]:
        """The wagered spots still to answer insurance."""
        if self.stage is not Stage.INSURANCE:
            return []
        return [key for key in self.spots if key not in self.answered]

    def card_due(self) -> bool:
        """True when the next card from the shoe has somewhere to go."""
        stage = self.stage
        if stage in (Stage.DEAL, Stage.DEALER):
            return True
        if stage is not Stage.DECISIONS:
            return False
        phases = [self.station_phase(s) for s in self.stations]
        return StationPhase.DECIDING not in phases and StationPhase.WAITING in phases

    # ------------------------------------------------------------------ steps
    def apply(self, step: RoundStep) -> CardRoute | None:
        """Apply one step and remember it; a card's route is returned.

        Raises:
            RulesError: the step is not open now (nothing is changed).
        """
        kind = step[0]
        route = None
        if kind == "card":
            route = self._card(Card.parse(str(step[1])))
        elif kind == "insure":
            self._insure((int(step[1]), int(step[2])), int(step[3]))
        elif kind == "no_insurance":
            self._insure((int(step[1]), int(step[2])), 0)
        elif kind == "act":
            self._act(int(step[1]), int(step[2]), bj.Action(str(step[3])))
        elif kind == "expire":
            self._expire(int(step[1]))
        else:
            raise RulesError(f"no such step {kind!r}")
        self.steps.append(list(step))
        self._after_step()
        return route

    @classmethod
    def rebuild(cls, table: bj.BlackjackTable, wagers: Mapping[int, Mapping[int, int]],
                steps: list[RoundStep],
                sides: Mapping[int, Mapping[int, Mapping[str, int]]] | None = None
                ) -> CommunityRound:
        """The round again from its wagers and steps (a restart)."""
        round_ = cls.start(table, wagers, sides)
        for step in steps:
            round_.apply(step)
        return round_

    def _card(self, card: Card) -> CardRoute:
        if not self.card_due():
            raise RulesError(f"no card is due in stage {self.stage}")
        stage = self.stage
        if stage is Stage.DEAL:
            return self._initial_card(card)
        if stage is Stage.DEALER:
            self.dealer.append(card)
            for key, game in self.spots.items():
                if game.phase is bj.Phase.DEALER:
                    self._put(key, bj.deal(game, card))
            return CardRoute(str(card), dealer=True)
        return self._community_card(card)

    def _initial_card(self, card: Card) -> CardRoute:
        position = INITIAL_ORDER[len(self.initial)]
        self.initial.append(card)
        if position.is_dealer:
            self.dealer.append(card)
        if len(self.initial) == len(INITIAL_ORDER):
            self._deal_spot_rounds()
        if position.is_dealer:
            return CardRoute(str(card), dealer=True)
        to = tuple((station, position.seat, 0) for station in self.stations
                   if position.seat in self.wagers[station])
        return CardRoute(str(card), to=to)

    def _deal_spot_rounds(self) -> None:
        built: dict[tuple[object, ...], bj.BlackjackRound] = {}  # same wagers: one round
        for station, spots in self.wagers.items():
            for spot, cents in spots.items():
                cards = (self.initial[spot - 1], self.dealer[0],
                         self.initial[spot - 1 + len(SPOTS) + 1], self.dealer[1])
                side = self.sides.get(station, {}).get(spot, {})
                same = (spot, cents, tuple(sorted(side.items())))
                if same not in built:
                    built[same] = _started(self.table, cents, side, cards)
                self._put((station, spot), built[same])
                self.dealt[(station, spot)] = [str(cards[0]), str(cards[2])]

    def _community_card(self, card: Card) -> CardRoute:
        to: list[tuple[int, int, int]] = []
        burned: list[int] = []
        waiting = {s for s in self.stations if self.station_phase(s) is StationPhase.WAITING}
        for station in self.stations:
            if station not in waiting:
                burned.append(station)
                continue
            for key in self.spot_keys(station):
                game = self.spots[key]
                position = bj.next_position(game) if game.phase is bj.Phase.PLAYERS else None
                if position is not None:
                    self._put(key, bj.deal(game, card))
                    self.dealt[key].append(str(card))
                    to.append((station, key[1], position.hand))
                    break
        return CardRoute(str(card), to=tuple(to), burned_for=tuple(burned))

    def _insure(self, key: SpotKey, cents: int) -> None:
        if not self.insurance_pending(key):
            raise RulesError(f"station {key[0]} spot {key[1]} is not asked about insurance")
        if cents:
            self._put(key, bj.insure(self.spots[key], 1, cents))
        self.answered.add(key)

    def _act(self, station: int, spot: int, action: bj.Action) -> None:
        if action not in self.legal(station, spot):
            raise RulesError(f"station {station} spot {spot}: {action} is not open now")
        key = (station, spot)
        self._put(key, bj.act(self.spots[key], bj.Decision(action)))

    def _expire(self, station: int) -> None:
        if self.station_phase(station) is not StationPhase.DECIDING:
            raise RulesError(f"station {station} is not deciding: no timer runs")
        for key in self.spot_keys(station):
            while (self.station_phase(station) is StationPhase.DECIDING
                   and bj.Action.STAND in bj.legal_actions(self.spots[key])):
                self._put(key, bj.act(self.spots[key], bj.Decision(bj.Action.STAND)))

    def _after_step(self) -> None:
        """Close insurance once every spot answered; then the peek, one bit (R4-R6)."""
        if self.stage is Stage.INSURANCE and len(self.answered) == len(self.spots):
            self.spots = {k: bj.close_insurance(g) for k, g in self.spots.items()}
            self._forget()
        if self.stage is Stage.PEEK:
            self.spots = {k: bj.peek(g) for k, g in self.spots.items()}
            self._forget()

    def _forget(self) -> None:
        """Every spot changed: nothing kept holds."""
        self._counts = None
        self._stage = self._stage_was = None
        self._phases.clear()
        self._legal.clear()

    def _put(self, key: SpotKey, game: bj.BlackjackRound) -> None:
        """A spot's round after a step (the stage is worked out again when next read)."""
        counts, before = self._counts, self.spots.get(key)
        if counts is not None:
            if before is not None:
                counts[before.phase] -= 1
            counts[game.phase] += 1
        self.spots[key] = game
        self._stage = None
        self._phases.pop(key[0], None)
        self._legal.pop(key, None)

    # ------------------------------------------------------------------ settlement
    def settle(self) -> dict[SpotKey, settlement.SeatResult]:
        """Every wagered spot's result through the rules' settlement (integer cents).

        Raises:
            RulesError: the round is not complete.
        """
        if self.stage is not Stage.COMPLETE:
            raise RulesError(f"the round is not complete (stage {self.stage})")
        return {key: settlement.settle(game).seats[0] for key, game in self.spots.items()}

    def record(self) -> dict[str, Any]:
        """The settled round in `simulate --game community --json`'s shape (`settled_record`)."""
        return settled_record(self)


def _started(table: bj.BlackjackTable, cents: int, side: Mapping[str, int],
             cards: tuple[Card, ...]) -> bj.BlackjackRound:
    """A spot's rules round, dealt its two starting cards and the dealer's two.

    It is immutable: every station's spot with the same wagers on that spot shares it.
    """
    game = bj.start_round(table, [bj.SeatBets(1, cents, side)])
    for card in cards:
        game = bj.deal(game, card)
    return game


def _checked(wagers: Mapping[int, Mapping[int, int]],
             sides: Mapping[int, Mapping[int, Mapping[str, int]]]
             ) -> tuple[dict[int, dict[int, int]], dict[int, dict[int, dict[str, int]]]]:
    """`CommunityRound.start`'s wagers and side wagers, checked, as plain sorted dicts."""
    clean: dict[int, dict[int, int]] = {}
    for station, spots in sorted(wagers.items()):
        for spot, cents in sorted(spots.items()):
            if spot not in SPOTS or cents <= 0 or station < 1:
                raise RulesError(f"station {station} spot {spot}: a station from 1, a "
                                 f"spot 1-3 and a wager above 0 are needed, got {cents}")
            clean.setdefault(station, {})[spot] = cents
    if not clean:
        raise RulesError("a community round needs at least one wager")
    kept: dict[int, dict[int, dict[str, int]]] = {}
    for station, on_spots in sorted(sides.items()):
        for spot, bets in sorted(on_spots.items()):
            if spot not in clean.get(station, {}) or any(c <= 0 for c in bets.values()):
                raise RulesError(f"station {station} spot {spot}: a side wager needs the "
                                 "spot's main wager and an amount above 0")
            if bets:
                kept.setdefault(station, {})[spot] = dict(sorted(bets.items()))
    return clean, kept


def settled_record(round_: CommunityRound) -> dict[str, Any]:
    """The settled round as one object: shared and dealer cards, each spot's cards and net.

    The shape is `shoectl simulate --game community --json`'s (docs/community.md).

    Raises:
        RulesError: the round is not complete.
    """
    results = round_.settle()
    stations = []
    for station in round_.stations:
        spots = []
        for key in round_.spot_keys(station):
            entry: dict[str, Any] = {"spot": key[1], "cards": list(round_.dealt[key]),
                                     "net": results[key].net}
            side = round_.sides.get(station, {}).get(key[1])
            if side:  # each side wager's own net (`net` counts them too)
                entry["side_bets"] = {name: results[key].side_bets[name] for name in side}
            hands = round_.spots[key].seats[0].hands
            if len(hands) > 1:
                entry["hands"] = [[str(c) for c in h.cards] for h in hands]
            spots.append(entry)
        stations.append({"station": station, "spots": spots})
    return {"shared": round_.shared(), "dealer": [str(c) for c in round_.dealer],
            "stations": stations}
