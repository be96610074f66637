"""What both procedure families share: shoe, wagers, progressive lock-out, holds, views.

Conditions here are thin predicates and callbacks only append effects; game rules come from
`controller.rules`. The public view (lamps, dealer display, sign) is computed from public
information only, so the hole card cannot reach it (R5, R17).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transitions import EventData

from controller.procedure import progressive
from controller.procedure.effects import Journal, Lamp, LampState, OpLog
from controller.procedure.model import HOLD_STATES, ProcedureModel
from controller.procedure.roundstate import Round, ShoeTally
from controller.procedure.tables import IN_PLAY
from controller.rules.cards import Card, CardError, Rank
from controller.rules.hands import Game
from controller.rules.options import GameConfig
from controller.rules.sidebets import SideBet

PROGRESSIVE_DEVICES = frozenset({"sign", "layout"})
"""Links whose loss refuses progressive wagers (the sign and the bet sensors, R15)."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What a procedure needs besides the rules configuration.

    Attributes:
        config: Validated game sections of the table file.
        burn: Burn one card after each shuffle (False for scripted shoes).
    """

    config: GameConfig
    burn: bool = True

    @property
    def game(self) -> Game:
        """The game this table deals."""
        return self.config.table.game

    @property
    def spanish(self) -> bool:
        """True for 48-card Spanish decks."""
        return self.game is Game.SPANISH21


@dataclass(frozen=True, slots=True)
class PublicView:
    """Everything a player, the dealer or an engineer's log can see of the table."""

    lamps: tuple[tuple[str, LampState], ...]
    dealer_text: str
    sign_amount: int | None
    sign_message: str
    sign_win: tuple[int, int] = (0, 0)


class TableModel(ProcedureModel):
    """Shared conditions and callbacks of every game's procedure."""

    def __init__(self, setup: Setup, meters: progressive.Meters) -> None:
        super().__init__()
        self.setup = setup
        self.meters = meters
        self.round = Round()
        self.shoe = ShoeTally()
        self.sensors: dict[str, bool] = {}
        self.pending_wagers: dict[int, dict[str, int]] = {}
        self.links_down: set[str] = set()
        self.key_on = ""
        self.sign_message = ""
        self.sign_win = (0, 0)
        self.camera_down = ""
        self.results: list[dict[str, Any]] = []
        self.voided: list[int] = []

    # ------------------------------------------------------------------ running
    def fire(self, name: str, **kwargs: Any) -> bool:
        """Fire a trigger, then take every `proceed` step the procedure now allows."""
        fired = super().fire(name, **kwargs)
        self.advance()
        return fired

    def advance(self) -> None:
        """Take `proceed` steps while their conditions hold (deal complete, dealer done...).

        Then, if the shoe reported its last card and a card is now wanted, the round is out
        of cards (decisions.md "Shoe"): a shoe that ran out matters only once a card is due.
        """
        for _ in range(64):
            self.consume_held_card()
            if not self.trigger_allowed("proceed"):
                break
            self.trigger("proceed")
        if self.shoe.empty and self.trigger_allowed("out_of_cards"):
            self.trigger("out_of_cards")

    def trigger_allowed(self, name: str) -> bool:
        """True when trigger `name` would change something now (conditions checked)."""
        check = getattr(self, f"may_{name}", None)
        return bool(check()) if check is not None else False

    def consume_held_card(self) -> None:
        """Hook: a family delivers a card drawn in error and kept as the next card."""

    # ------------------------------------------------------------------ shoe
    def burn_needed(self, event: EventData) -> bool:
        """Condition: a burn card follows the shuffle (R7)."""
        return self.setup.burn

    def record_shuffle(self, event: EventData) -> None:
        """Callback: a new, shuffled shoe is in."""
        self.shoe = ShoeTally(shuffles=self.shoe.shuffles + 1)
        self.emit(Journal("shoe:shuffled", {"shuffle": self.shoe.shuffles,
                                            "decks": self.setup.config.table.decks}),
                  OpLog("shoe shuffled"))
        if not self.setup.burn:
            self.open_betting(event)

    def card_is_possible(self, event: EventData) -> bool:
        """Condition: the code names a card this shoe can still hold (R9)."""
        return not self.card_is_impossible(event)

    def card_is_impossible(self, event: EventData) -> bool:
        """Condition: more copies than the shoe's decks, a `T` in a Spanish shoe, or junk."""
        code = str(event.kwargs.get("code", ""))
        try:
            card = Card.parse(code)
        except CardError:
            return True
        if self.setup.spanish and card.rank is Rank.TEN:
            return True
        return self.shoe.seen.get(str(card), 0) >= self.setup.config.table.decks

    def count_card(self, code: str) -> str:
        """Record a card leaving the shoe; return its canonical code."""
        card = str(Card.parse(code))
        self.shoe.seen[card] = self.shoe.seen.get(card, 0) + 1
        self.shoe.cards_out += 1
        return card

    def burn_card(self, event: EventData) -> None:
        """Callback: the burn card after the shuffle (R7); it goes to the discards."""
        card = self.count_card(str(event.kwargs["code"]))
        self.emit(Journal("shoe:burn", {"card": card}), OpLog("burn card discarded"))
        self.open_betting(event)

    def discard_face_up(self, event: EventData) -> None:
        """Callback (irregularity): a card face up in the shoe is not used; discarded."""
        code = event.kwargs.get("code")
        if code:
            self.round.loose.append(self.count_card(str(code)))
        self.emit(Journal("irregularity:face_up_card", {"card": code, "state": self.state}),
                  OpLog("irregularity: card face up in the shoe discarded", "warning"))

    def note_cut_card(self, event: EventData) -> None:
        """Callback: the cut card came out; finish the round, then shuffle (R7)."""
        self.shoe.cut_seen = True
        self.emit(Journal("shoe:cut_card", {"cards_out": self.shoe.cards_out}),
                  OpLog("cut card out: shuffle after this round"))

    def shuffle_due(self, event: EventData) -> bool:
        """Condition: the shoe must be shuffled before the next round (cut card out, or empty)."""
        return self.shoe.cut_seen or self.shoe.empty

    def card_is_wanted(self, event: EventData) -> bool:
        """Condition: a position is waiting for a card from the shoe."""
        return self.card_due_to() is not None

    def note_shoe_empty(self, event: EventData) -> None:
        """Callback: the shoe's last card is out; nothing changes until a card is wanted."""
        self.shoe.empty = True
        self.emit(Journal("shoe:empty", {"cards_out": self.shoe.cards_out, "state": self.state}),
                  OpLog("shoe empty: the round goes on while no card is due"))

    def record_too_few(self, event: EventData) -> None:
        """Callback (irregularity): too few cards left; shuffle the discards, finish the round."""
        self.shoe.empty = True
        self.reshuffle_return = event.transition.source if event.transition else ""
        self.emit(Journal("irregularity:too_few_cards", {"state": self.reshuffle_return}),
                  OpLog("irregularity: too few cards; shuffle the discards", "warning"))

    def record_discards_shuffled(self, event: EventData) -> None:
        """Callback: the discards are shuffled in; the round goes on."""
        self.shoe.seen = {}
        self.shoe.empty = False
        self.emit(Journal("shoe:discards_shuffled", {"resumed": self.state}))
        self.reshuffle_return = ""

    def record_shoe_finished(self, event: EventData) -> None:
        """Callback: the shoe ran out between rounds; load and shuffle a new one."""
        self.emit(Journal("shoe:empty", {"cards_out": self.shoe.cards_out}),
                  OpLog("shoe empty: load a new shoe"))

    def record_new_shoe(self, event: EventData) -> None:
        """Callback: the dealer asked for a new shoe between rounds."""
        self.emit(Journal("shoe:new", {}), OpLog("new shoe requested"))

    def void_and_clear(self, event: EventData) -> None:
        """Callback: the supervisor cleared a hold that cannot resume; the round is void."""
        self.void_current_round(str(event.kwargs.get("who", self.key_on or "supervisor")),
                                "hold cleared without a state to resume")
        self.record_clear(event)

    def void_in_play(self, event: EventData) -> None:
        """Callback: the supervisor voids the round in play (key on, R9)."""
        self.void_current_round(self.key_on, str(event.kwargs.get("reason", "")))

    def round_in_play(self) -> bool:
        """True while a round's wagers are locked in and it is not settled."""
        return self.state in IN_PLAY

    def void_current_round(self, who: str, reason: str) -> None:
        """Void the round: return every wager, reverse its progressive contributions (R13).

        The round is not reported; `round:void` lists what was returned, `meter:void` what
        the meter gave back.
        """
        number = self.round.number
        returned = self.wagers_in_play() if not self.round.settled else []
        self.meters, record = progressive.void(self.meters, number, self.round.contributions)
        self.round.contributions = []
        if record is not None:
            self.emit(record)
        self.voided.append(number)
        self.emit(Journal("round:void", {"round": number, "who": who, "reason": reason,
                                         "returned": returned,
                                         "meter_returned": record.data["returned"]
                                         if record else 0}),
                  OpLog(f"round {number} void: every wager returned", "warning"))
        self.discard_round()

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """What each seat has at stake in the round in play (returned if it is voided)."""
        return [{"seat": seat, "wagers": dict(bets)}
                for seat, bets in sorted(self.pending_wagers.items())]

    def discard_round(self) -> None:
        """Forget the round in play (a family clears its own round as well)."""
        self.round = Round(number=self.round.number)

    # ------------------------------------------------------------------ wagers
    def wager_allowed(self, event: EventData) -> bool:
        """Condition: a known wager on a seat of this table (progressive only while linked)."""
        seat, bet = int(event.kwargs.get("seat", 0)), str(event.kwargs.get("bet", ""))
        cents = int(event.kwargs.get("cents", 0))
        if not 1 <= seat <= self.setup.config.table.seats or cents <= 0:
            return False
        if bet == SideBet.BLAZING7S:
            return self.progressive_open()
        return bet in self.main_bets() or bet in self.setup.config.table.side_bets

    def main_bets(self) -> tuple[str, ...]:
        """The main wagers of this game."""
        return ("main",)

    def place_wager(self, event: EventData) -> None:
        """Callback: record a wager (Blazing 7's stands for a chip on its sensor)."""
        seat, bet = int(event.kwargs["seat"]), str(event.kwargs["bet"])
        cents = int(event.kwargs["cents"])
        if bet == SideBet.BLAZING7S:
            self.sensors[f"seat{seat}.{bet}"] = True
        else:
            self.pending_wagers.setdefault(seat, {})[bet] = cents
        self.emit(Journal("bet:wager", {"round": self.round.number, "seat": seat, "bet": bet,
                                        "cents": cents}))

    def sense_bet(self, event: EventData) -> None:
        """Callback: a bet sensor changed; after the lock-out it is ignored (R10)."""
        sensor, occupied = str(event.kwargs["sensor"]), bool(event.kwargs["occupied"])
        if self.state == "betting":
            self.sensors[sensor] = occupied
        self.emit(Journal("bet:sensor", {"sensor": sensor, "occupied": occupied,
                                         "counted": self.state == "betting"}))

    def has_wagers(self, event: EventData) -> bool:
        """Condition: someone has a main wager."""
        return any(any(b in w for b in self.main_bets()) for w in self.pending_wagers.values())

    def accepted_progressive_seats(self) -> list[int]:
        """Seats whose Blazing 7's sensor is occupied and whose main wager stands."""
        if not self.progressive_open():
            return []
        return sorted(seat for seat in self.pending_wagers
                      if self.sensors.get(f"seat{seat}.{SideBet.BLAZING7S}"))

    # ------------------------------------------------------------------ progressive
    def progressive_open(self) -> bool:
        """Progressive wagers are accepted only while sign and sensors answer (R15)."""
        return not (self.links_down & PROGRESSIVE_DEVICES)

    def progressive_link_down(self, event: EventData) -> None:
        """Callback: a device link was lost; progressive wagers are refused (R15)."""
        device = str(event.kwargs.get("device", ""))
        self.links_down.add(device)
        self.emit(Journal("link:down", {"device": device,
                                        "reason": event.kwargs.get("reason", "")}),
                  OpLog(f"link to {device} lost", "error"))

    def progressive_link_up(self, event: EventData) -> None:
        """Callback: a link is back; progressive play resumes once the meters reconcile."""
        device = str(event.kwargs.get("device", ""))
        reconciled = bool(event.kwargs.get("reconciled", False))
        if reconciled:
            self.links_down.discard(device)
            line = OpLog(f"link to {device} back")
        else:
            line = OpLog(f"link to {device} back, but the meters do not reconcile", "warning")
        self.emit(Journal("link:up", {"device": device, "meters_reconciled": reconciled}), line)

    def supervisor_key_on(self, event: EventData) -> bool:
        """Condition: the supervisor key is turned (R12)."""
        return bool(self.key_on)

    def key_released(self, event: EventData) -> None:
        """Callback: the supervisor key was turned off."""
        self.emit(Journal("supervisor:key_off", {"who": self.key_on}))
        self.key_on = ""

    def correct_meter(self, event: EventData) -> None:
        """Callback: a keyed meter correction or reset, recorded with who, old and new."""
        amount = int(event.kwargs["amount"])
        self.meters, record = progressive.correct(self.meters, self.key_on, amount,
                                                  str(event.kwargs.get("reason", "")))
        self.emit(record, OpLog("progressive meter corrected by supervisor"))

    def file_meter_params(self, event: EventData) -> None:
        """Callback: keyed parameter change, applied after the next 100% hit (R12)."""
        params = event.kwargs["params"]
        self.meters, record = progressive.change_params(self.meters, self.key_on, params)
        self.emit(record, OpLog("progressive parameters filed (apply after the next reset)"))

    def contribute_progressive(self) -> list[int]:
        """At the lock-out: one meter increment per accepted wager; returns the seats."""
        seats = self.accepted_progressive_seats()
        self.meters, records = progressive.contribute(self.meters, self.round.number, seats)
        self.round.contributions = [dict(r.data) for r in records]
        self.emit(*records, Journal("bet:lock_out", {"round": self.round.number,
                                                     "accepted_progressive": seats}))
        return seats

    def pay_progressive(self, seat: int, kind: progressive.HitKind) -> int:
        """Pay a meter hit and put `WIN`, the seat and the amount on the sign (R13)."""
        self.meters, record, paid = progressive.hit(self.meters, self.round.number, seat, kind)
        self.sign_message = f"WIN {seat} {paid // 100}.{paid % 100:02d}"
        self.sign_win = (seat, paid)
        self.emit(record, OpLog(f"progressive {kind.value} hit at seat {seat}"))
        return paid

    # ------------------------------------------------------------------ rounds
    def burn_error_card(self, event: EventData) -> None:
        """Callback: a card drawn in error between rounds is burned."""
        self.error_return = ""
        self.emit(Journal("irregularity:error_card_burned", {"card": self.round.next_card}))
        self.round.next_card = ""

    def close_round(self, event: EventData) -> None:
        """Callback: clear the finished round; the next one is numbered when betting opens."""
        self.discard_round()
        self.pending_wagers = {}
        self.sensors = {}
        self.sign_message = ""
        self.sign_win = (0, 0)

    def open_betting(self, event: EventData) -> None:
        """Callback: a new round, numbered one past the last, opens for wagers."""
        self.close_round(event)
        self.round = Round(number=self.round.number + 1)
        self.emit(Journal("round:open", {"round": self.round.number}))

    # ------------------------------------------------------------------ camera cross-check
    def camera_layout(self) -> tuple[dict[str, list[str | None]], list[str]]:
        """What the camera should see: cards by position (None: face down), and loose cards.

        Loose cards were drawn this round but lie on no position (burned, face up in the
        shoe, held in error): the camera may see them anywhere without a fault.
        """
        loose = [*self.round.loose, *([self.round.next_card] if self.round.next_card else [])]
        return {}, loose

    def note_camera_status(self, event: EventData) -> None:
        """Callback: the camera went down or came back (shown on the dealer display)."""
        down = bool(event.kwargs.get("down"))
        reason = str(event.kwargs.get("reason", ""))
        self.camera_down = (reason or "down") if down else ""
        self.emit(Journal("camera:down" if down else "camera:up", {"reason": reason,
                                                                   "state": self.state}),
                  OpLog(f"camera down: {reason}" if down else "camera back",
                        "error" if down else "info"))

    def with_camera_status(self, text: str) -> str:
        """The dealer display's text, prefixed while the camera is down."""
        return f"CAMERA DOWN - {text}" if self.camera_down else text

    # ------------------------------------------------------------------ views
    def lamps(self) -> dict[str, LampState]:
        """Every lamp's state: these shared ones, and a family adds its own."""
        on, off = LampState.ON, LampState.OFF
        return {
            Lamp.FAULT: LampState.FLASH if self.state in HOLD_STATES else off,
            Lamp.NO_MORE_BETS: off if self.state == "betting" else on,
            Lamp.SHUFFLE: on if self.state in ("shoe_loading", "reshuffle_discards") else off,
        }

    def dealer_text(self) -> str:
        """The dealer display: a hold, open betting, else the family's `round_text`."""
        if self.state in HOLD_STATES:
            return f"{self.state.upper()}: SUPERVISOR KEY REQUIRED"
        if self.state == "betting":
            return "PLACE YOUR BETS"
        return self.round_text()

    def round_text(self) -> str:
        """The dealer display while a round is dealt or settled (a family says more)."""
        return self.state.upper()

    def public_view(self) -> PublicView:
        """Lamps, dealer display and sign, from public information only (R5)."""
        amount, message = self.sign()
        lamps = tuple(sorted((str(name), state) for name, state in self.lamps().items()))
        return PublicView(lamps, self.with_camera_status(self.dealer_text()), amount, message,
                          self.sign_win)

    def card_due_to(self) -> object | None:
        """Public: where the next card goes (None: no card is due)."""
        return None

    def sign(self) -> tuple[int | None, str]:
        """What the progressive sign shows: the meter, a win, or a fault (R13, R15)."""
        if not self.progressive_open():
            return self.meters.amount, "FAULT"
        return self.meters.amount, self.sign_message

    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state."""
        return {
            "state": self.state, "round": self.round.to_json(), "shoe": self.shoe.to_json(),
            "sensors": self.sensors, "pending_wagers": {str(k): v for k, v in
                                                        self.pending_wagers.items()},
            "links_down": sorted(self.links_down), "key_on": self.key_on,
            "sign_message": self.sign_message, "sign_win": list(self.sign_win),
            "resume_state": self.resume_state,
            "hold_reason": self.hold_reason, "error_return": self.error_return,
            "reshuffle_return": self.reshuffle_return,
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot (after a restart); outputs are re-asserted by the runtime."""
        self.machine.set_state(data["state"], model=self)
        self.round = Round.from_json(data["round"])
        self.shoe = ShoeTally(**data["shoe"])
        self.sensors = dict(data["sensors"])
        self.pending_wagers = {int(k): dict(v) for k, v in data["pending_wagers"].items()}
        self.links_down = set(data["links_down"])
        for name in ("key_on", "sign_message", "resume_state", "hold_reason", "error_return",
                     "reshuffle_return"):
            setattr(self, name, data[name])
        self.sign_win = (int(data["sign_win"][0]), int(data["sign_win"][1]))

