"""Texas Hold'em Bonus at the table: the wagers, the seats' decisions and the camera's cards.

The transition table names these `wagers.<name>` and `play.<name>`. The round itself is a
`controller.procedure.holdem.round.HoldemRound` (pure state); these parts journal each step:

* `holdem:antes` at no more bets (every seat's ante and bonus, and which sensed wagers took
  the table's fixed amount), `holdem:dealt` once the hole cards are down,
  `holdem:decision` per seat (bet, fold or check, with the stage);
* `card:read` for every card the round takes: `by` is `camera`, or `keyed` (the dealer keyed
  it, or confirmed the camera's unsure reading: `confirmed` says which); `card:asked` when the
  console asks for a card; `camera:not_read` for a reading the round did not take;
* `procedure:hold` when a card is seen twice (the round stops in `card_hold`), and
  `round:settled` with every seat's cards and each wager's net.

The round holds only cards turned up and read (burns and face-down hole cards are never
read), so whatever is public here is public at the table.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from transitions import EventData

from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.procedure.holdem.round import Area, HoldemRound, HoldemStage
from controller.procedure.holdem.states import HE
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.wager_book import ProgressiveGate, WagerBook, WagerHost
from controller.rules.cards import Card, CardError
from controller.rules.errors import RulesError

HOLDEM_BETS: Final = ("ante", "bonus")
"""The wagers placed before the deal; the flop, turn and river bets are decisions."""
_DECISION_STAGES: Final = frozenset({HoldemStage.PLAY_OR_FOLD, HoldemStage.TURN_BET,
                                     HoldemStage.RIVER_BET})
_CARD_STAGES: Final = frozenset({HoldemStage.FLOP, HoldemStage.TURN, HoldemStage.RIVER,
                                 HoldemStage.DEALER, HoldemStage.SHOWDOWN})


_AREAS: Final = {HoldemStage.FLOP: Area.FLOP, HoldemStage.TURN: Area.TURN,
                 HoldemStage.RIVER: Area.RIVER, HoldemStage.DEALER: Area.DEALER,
                 HoldemStage.SHOWDOWN: Area.SEAT}


def due_area(game: HoldemRound) -> tuple[Area, int | None] | None:
    """The area (and seat) whose card the round waits for, or None (asked, held, none due)."""
    if game.asked is not None or game.held is not None or game.stage not in _AREAS:
        return None
    area = _AREAS[game.stage]
    return area, game.showdown_seat if area is Area.SEAT else None


SEAT_SPOTS: Final = ("ante", "bonus")
"""The bet spots with a sensor a hold'em table reads, each seat's (`seat<n>.ante`, ...)."""


class HoldemWagerBook(WagerBook):
    """Ante and bonus by seat: amounts entered (`pending`) and the bet sensors.

    The sensors are `seat<n>.ante` and `seat<n>.bonus`. A seat plays when it has an ante:
    one entered at the console, or chips on its ante sensor. A sensed wager's amount is the
    one entered for it this round, else the table's fixed amount for that sensor (`[table]
    sensor_cents`); with neither it is unknown, and no more bets waits for it
    (`unknown_amounts`), as it waits for a bonus with no ante (`lone_bonuses`).
    """

    def __init__(self, model: WagerHost, progressive: ProgressiveGate) -> None:
        super().__init__(model, progressive, ("ante",))
        self.fixed = dict(model.setup.config.table.sensor_cents)
        self.present: dict[str, bool] = {}
        """Where chips lie now, by sensor, whatever the state (the next betting starts so)."""

    def sense_bet(self, event: EventData) -> None:
        """Callback: a bet sensor changed; counted while betting, remembered always."""
        self.present[str(event.kwargs["sensor"])] = bool(event.kwargs["occupied"])
        super().sense_bet(event)

    def clear(self) -> None:
        """A new round: nothing entered carries over; chips lying on a spot are sensed.

        Chips put on a spot while the deck is shuffled (or left there from the round before)
        are the next round's: its betting opens with them, as if they had just landed.
        """
        super().clear()
        self.sensors = {sensor: True for sensor, occupied in self.present.items() if occupied}

    def refusal(self, kwargs: dict[str, Any]) -> str:
        """Why a `wager` cannot be placed ("" when it can)."""
        table = self.model.setup.config.table
        seat, bet, cents = kwargs.get("seat"), kwargs.get("bet"), kwargs.get("cents")
        if not isinstance(seat, int) or not 1 <= seat <= table.seats:
            return f"seat must be a seat number from 1 to {table.seats}"
        if bet not in HOLDEM_BETS:
            return f"bet must be ante or bonus, not {bet!r}"
        if not isinstance(cents, int) or not table.min_wager <= cents <= table.max_wager:
            return (f"seat {seat}: {bet} of {cents} cents is outside the table limits "
                    f"{table.min_wager}..{table.max_wager} cents")
        if bet == "bonus" and self.amount(seat, "ante") is None:
            return f"seat {seat}: the bonus goes with an ante: place the ante first"
        return ""

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: an ante (or a bonus beside one) within the table's limits."""
        return self.refusal(event.kwargs) == ""

    def amount(self, seat: int, bet: str) -> int | None:
        """The seat's `bet` in cents: entered, else sensed at its fixed amount (None: none)."""
        entered = self.pending.get(seat, {}).get(bet)
        if entered is not None:
            return entered
        sensor = f"seat{seat}.{bet}"
        return self.fixed.get(sensor) if self.sensors.get(sensor) else None

    def unknown_amounts(self) -> list[str]:
        """Sensors with chips whose amount is neither entered nor fixed ("seat2.ante"...)."""
        return [f"seat{seat}.{bet}" for seat in range(1, self.model.setup.config.table.seats + 1)
                for bet in HOLDEM_BETS
                if self.sensors.get(f"seat{seat}.{bet}") and self.amount(seat, bet) is None]

    def lone_bonuses(self) -> list[int]:
        """Seats with a bonus (entered or sensed) and no ante at all."""
        return [seat for seat in range(1, self.model.setup.config.table.seats + 1)
                if not self.sensors.get(f"seat{seat}.ante") and self.amount(seat, "ante") is None
                and (self.sensors.get(f"seat{seat}.bonus") or self.amount(seat, "bonus"))]

    def amounts_known(self, event: EventData) -> bool:
        """Condition: every sensed wager has its amount, and every bonus its ante."""
        return not self.unknown_amounts() and not self.lone_bonuses()

    def seats_in_play(self) -> dict[int, int | None]:
        """Each seat with an ante and its amount (None: chips sensed, amount not known)."""
        seats: dict[int, int | None] = {}
        for seat in range(1, self.model.setup.config.table.seats + 1):
            ante = self.amount(seat, "ante")
            if ante is not None or self.sensors.get(f"seat{seat}.ante"):
                seats[seat] = ante
        return seats

    def antes(self) -> dict[int, tuple[int, int]]:
        """Every seat's (ante, bonus) in cents, for the seats whose ante is known."""
        return {seat: (ante, self.amount(seat, "bonus") or 0)
                for seat, ante in self.seats_in_play().items() if ante is not None}

    def fixed_amounts(self) -> list[str]:
        """The sensors whose wager this round is the table's fixed amount (none entered)."""
        return [f"seat{seat}.{bet}" for seat in sorted(self.antes()) for bet in HOLDEM_BETS
                if self.sensors.get(f"seat{seat}.{bet}") and f"seat{seat}.{bet}" in self.fixed
                and bet not in self.pending.get(seat, {})]

    def betting(self) -> dict[str, dict[str, int | bool | None]]:
        """Each seat with a wager while betting: amounts (None unknown) and what is sensed."""
        shown: dict[str, dict[str, int | bool | None]] = {}
        for seat in range(1, self.model.setup.config.table.seats + 1):
            sensed = {bet: bool(self.sensors.get(f"seat{seat}.{bet}")) for bet in HOLDEM_BETS}
            amounts = {bet: self.amount(seat, bet) for bet in HOLDEM_BETS}
            if any(sensed.values()) or any(a is not None for a in amounts.values()):
                shown[str(seat)] = {"ante": amounts["ante"], "bonus": amounts["bonus"],
                                    "ante_sensed": sensed["ante"],
                                    "bonus_sensed": sensed["bonus"]}
        return shown


class HoldemPlayHost(Protocol):
    """What the hold'em play reads and changes of the model."""

    setup: Setup
    state: str
    round: Round
    game: HoldemRound | None
    results: list[dict[str, Any]]
    resume_state: str
    hold_reason: str
    hold_kind: str

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def antes(self) -> dict[int, tuple[int, int]]:
        """Every seat's (ante, bonus) in cents, whose ante is known (the wagers')."""
        ...

    def fixed_amounts(self) -> list[str]:
        """The sensors whose wager is the table's fixed amount (the wagers')."""
        ...


class HoldemPlay:
    """The round's steps: start, the hole cards, decisions, the camera's cards, settlement."""

    def __init__(self, model: HoldemPlayHost) -> None:
        self.model = model

    @property
    def game(self) -> HoldemRound:
        """The round in play (only while one is)."""
        game = self.model.game
        if game is None:
            raise RulesError("hold'em: no round is in play")
        return game

    def _note(self, kind: str, data: dict[str, Any], *extra: OpLog) -> None:
        self.model.emit(Journal(kind, {"round": self.model.round.number, **data}), *extra)

    # ------------------------------------------------------------------ the deal
    def start_round(self, event: EventData) -> None:
        """Callback: no more bets; the round starts with the seats' antes and bonuses."""
        model = self.model
        antes = model.antes()
        model.game = HoldemRound.start(antes, model.setup.config.paytables.holdem_bonus)
        self._note("holdem:antes", {"seats": {str(s): {"ante": a, "bonus": b}
                                              for s, (a, b) in antes.items()},
                                    "fixed": model.fixed_amounts(),
                                    "source": event.kwargs.get("source", "")},
                   OpLog(f"no more bets: {len(antes)} seats"))

    def dealt(self, event: EventData) -> None:
        """Callback: every hole card is down; the seats decide."""
        self.game.dealt()
        self._note("holdem:dealt", {"source": event.kwargs.get("source", "")})

    # ------------------------------------------------------------------ decisions
    def decision_refusal(self, name: str, seat: object) -> str:
        """Why `bet`, `fold` or `check` for `seat` cannot be taken now ("" when it can)."""
        game = self.model.game
        if game is None or game.stage not in _DECISION_STAGES:
            return "no seat has a decision to make now"
        if name == "fold" and game.stage is not HoldemStage.PLAY_OR_FOLD:
            return "a fold is before the flop only: after it a seat bets or checks"
        if name == "check" and game.stage is HoldemStage.PLAY_OR_FOLD:
            return "before the flop a seat bets or folds"
        if seat not in game.pending_decisions:
            return (f"seat {seat} has no decision to make now (seats to decide: "
                    f"{', '.join(map(str, game.pending_decisions)) or 'none'})")
        return ""

    def decision_allowed(self, event: EventData) -> bool:
        """Condition: the seat owes this decision now."""
        name = event.event.name if event.event else ""
        return self.decision_refusal(name, event.kwargs.get("seat")) == ""

    def decide(self, event: EventData) -> None:
        """Callback: the seat bets the ante's amount, folds or checks."""
        name = event.event.name if event.event else ""
        seat = int(event.kwargs["seat"])
        stage = self.game.stage.value
        self.game.decide(seat, bet=name == "bet")
        cents = self.game.seats[seat].wagers.ante if name == "bet" else 0
        self._note("holdem:decision", {"seat": seat, "decision": name, "stage": stage,
                                       "cents": cents,
                                       "source": event.kwargs.get("source", "")})

    def stage_is_complete(self, event: EventData) -> bool:
        """Condition: every seat is settled (or folded)."""
        return self.game.stage is HoldemStage.COMPLETE

    def stage_is_cards(self, event: EventData) -> bool:
        """Condition: the round waits for cards turned up."""
        return self.game.stage in _CARD_STAGES

    def stage_is_decision(self, event: EventData) -> bool:
        """Condition: the round waits for the seats' decisions."""
        return self.game.stage in _DECISION_STAGES

    # ------------------------------------------------------------------ the camera's cards
    def take_reading(self, event: EventData) -> None:
        """Callback: the camera's reading of a card in an area (`card` None: unreadable)."""
        game, kwargs = self.game, event.kwargs
        area, seat = Area(str(kwargs["area"])), kwargs.get("seat")
        code, confirmed = kwargs.get("card"), bool(kwargs.get("confirmed", False))
        try:
            card = None if code is None else Card.parse(str(code))
        except CardError:
            card, confirmed = None, False
        before = len(game.seen_cards())
        refused = game.seen(area, card, confirmed=confirmed, seat=seat)
        if refused is not None:
            self._note("camera:not_read", {"area": area.value, "seat": seat,
                                           "reason": refused.reason})
            return
        if game.asked is not None:
            self._note("card:asked", {"area": area.value, "seat": seat,
                                      "guess": None if card is None else str(card)},
                       OpLog(f"card asked for at the console ({area.value})", "warning"))
        elif len(game.seen_cards()) > before:
            self._note("card:read", {"area": area.value, "seat": seat, "card": str(card),
                                     "by": "camera"})

    def note_unread(self, event: EventData) -> None:
        """Callback: a reading while no card is read (between rounds, a hold...)."""
        self.model.emit(Journal("camera:not_read", {
            "round": self.model.round.number, "area": str(event.kwargs.get("area", "")),
            "seat": event.kwargs.get("seat"),
            "reason": f"no card is read in state {self.model.state}"}))

    def guess_waits(self, event: EventData) -> bool:
        """Condition: the asked card has a camera reading to confirm."""
        game = self.model.game
        return game is not None and game.asked is not None and game.asked.guess is not None

    def key_refusal(self, code: object) -> str:
        """Why `key_card` with `code` cannot be taken ("" when it can)."""
        game = self.model.game
        if game is None or (game.asked is None and due_area(game) is None):
            return "no card is due: the round waits for " + (
                "a round" if game is None else game.stage.value)
        try:
            Card.parse(str(code))
        except CardError as exc:
            return f"key_card: {exc}"
        return ""

    def key_allowed(self, event: EventData) -> bool:
        """Condition: a card is asked for (or due) and the code keyed is a card."""
        return self.key_refusal(event.kwargs.get("card")) == ""

    def confirm_card(self, event: EventData) -> None:
        """Callback: the dealer confirms the camera's unsure reading (journalled keyed)."""
        self._enter(event, confirmed=True)

    def key_card(self, event: EventData) -> None:
        """Callback: the dealer keys the card asked for, or the card due.

        The card due may be keyed before the camera reads it (a camera that does not see
        it); a bad code is refused by the condition, nothing taken.
        """
        self._enter(event, confirmed=False)

    def _enter(self, event: EventData, *, confirmed: bool) -> None:
        game = self.game
        due = due_area(game)
        if game.asked is None and due is not None:  # keyed before the camera read it
            game.seen(due[0], None, confirmed=False, seat=due[1])
        asked = game.asked
        assert asked is not None  # the table's condition
        before = len(game.seen_cards())
        if confirmed:
            game.confirm()
        else:
            game.key(str(event.kwargs.get("card", "")))
        card = game.keyed[-1]
        if len(game.seen_cards()) > before:
            self._note("card:read", {"area": asked.area.value, "seat": asked.seat,
                                     "card": str(card), "by": "keyed", "confirmed": confirmed,
                                     "source": event.kwargs.get("source", "")})

    # ------------------------------------------------------------------ holds
    def round_is_held(self, event: EventData) -> bool:
        """Condition: a card seen twice (or one the deck cannot hold) stopped the round."""
        return self.game.held is not None

    def record_hold(self, event: EventData) -> None:
        """Callback: the round stops in `card_hold` until the supervisor's key clears it."""
        model = self.model
        model.resume_state = str(HE.CARDS)
        model.hold_reason = str(self.game.held)
        model.hold_kind = "card_seen_twice"
        model.emit(Journal("procedure:hold", {"hold": model.state, "reason": model.hold_reason,
                                              "resume": model.resume_state}),
                   OpLog("table stopped (card_hold): a card seen twice", "error"))

    def clear_hold(self, event: EventData) -> None:
        """Callback: the supervisor's key clears the hold; the card is to be read again."""
        self.game.clear()

    # ------------------------------------------------------------------ settlement
    def settle_round(self, event: EventData) -> None:
        """Callback: the round's record: board, dealer's cards, each seat's cards and nets."""
        model, game = self.model, self.game
        record = round_record(model.round.number, game)
        model.round.settled = True
        model.round.result = record
        model.results.append(record)
        total = sum(int(s["net"]) for s in record["seats"].values())
        model.emit(Journal("round:settled", record),
                   OpLog(f"round {model.round.number} settled: players net {total} cents"))


def round_record(number: int, game: HoldemRound) -> dict[str, Any]:
    """A settled round as `round:settled` journals it (and `shoectl simulate` prints it)."""
    seats: dict[str, Any] = {}
    for seat, held in game.seats.items():
        nets = held.nets
        assert nets is not None  # a complete round settled every seat
        wagers = held.wagers
        seats[str(seat)] = {
            "cards": [str(c) for c in held.cards], "folded": wagers.folded,
            "wagers": {"ante": wagers.ante, "bonus": wagers.bonus, "flop": wagers.flop,
                       "turn": wagers.turn, "river": wagers.river},
            "nets": {"ante": nets.ante, "bonus": nets.bonus, "flop": nets.flop,
                     "turn": nets.turn, "river": nets.river},
            "net": nets.total}
    return {"round": number, "board": [str(c) for c in game.board],
            "dealer": [str(c) for c in game.dealer], "seats": seats,
            "keyed": [str(c) for c in game.keyed]}
