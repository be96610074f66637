"""The blackjack (and Spanish 21) procedure model: conditions and callbacks of BLACKJACK_TABLE.

The round itself is the rules' pure `BlackjackRound`: every card, decision, insurance and
peek goes through `controller.rules.blackjack`, and settlement through
`controller.rules.settlement`. This model adds what a live table needs around it: the
physical dealing order (irregularities reorder it; cards are held until the rules' order
reaches them), the journal, the progressive books and the public view. The round is
snapshotted as the list of steps that built it and rebuilt by replaying them (R14).
"""

from __future__ import annotations

from typing import Any

from transitions import EventData

from controller.procedure import progressive
from controller.procedure.effects import CameraCheck, Journal, Lamp, LampState, OpLog, seat_lamp
from controller.procedure.progressive import Meters
from controller.procedure.table_model import Setup, TableModel
from controller.procedure.tables import build_machine
from controller.rules import blackjack as bj
from controller.rules import settlement
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.hands import DEALER, Position, hand_value, initial_deal_order
from controller.rules.money import MeterShare
from controller.rules.sidebets import SideBet, blazing7s_line

Step = list[Any]


def _key(position: Position) -> list[Any]:
    return [position.seat, position.hand, position.hole]


class BlackjackModel(TableModel):
    """The model the blackjack transition table drives."""

    def __init__(self, setup: Setup, meters: Meters, initial: str = "shoe_loading") -> None:
        super().__init__(setup, meters)
        self.table = bj.BlackjackTable.from_config(setup.config)
        self.game: bj.BlackjackRound | None = None
        self.steps: list[Step] = []
        self.physical: list[list[Any]] = []
        self.held: list[list[Any]] = []
        self.answered: list[int] = []
        self.machine = build_machine(self, "blackjack", initial)

    # ------------------------------------------------------------------ the rules' round
    def step(self, step: Step) -> None:
        """Apply one step to the rules' round and remember it for the snapshot."""
        self.game = self._apply(self.game, step)
        self.steps.append(step)

    def _apply(self, game: bj.BlackjackRound | None, step: Step) -> bj.BlackjackRound:
        kind = step[0]
        if kind == "start":
            bets = [bj.SeatBets(int(s), int(m), dict(side)) for s, m, side in step[1]]
            return bj.start_round(self.table, bets)
        assert game is not None
        if kind == "card":
            return bj.deal(game, Card.parse(step[1]))
        if kind == "insure":
            return bj.insure(game, int(step[1]), int(step[2]))
        if kind == "even_money":
            return bj.take_even_money(game, int(step[1]))
        if kind == "close_insurance":
            return bj.close_insurance(game)
        if kind == "peek":
            return bj.peek(game)
        return bj.act(game, bj.Decision(bj.Action(step[1]), step[2]))

    def rebuild(self, steps: list[Step]) -> None:
        """Replay steps into a fresh round (restart, or a seat removed from the deal)."""
        self.game, self.steps = None, []
        for step in steps:
            self.step(step)

    @property
    def phase(self) -> bj.Phase | None:
        """The rules' phase of the round, if one is in play."""
        return self.game.phase if self.game else None

    # ------------------------------------------------------------------ public queries
    def card_due_to(self) -> Position | None:
        """Public: where the next card from the shoe goes (None: none is due)."""
        if self.state == "dealing":
            return Position(*self.physical[0]) if self.physical else None
        if self.game is None or self.state not in ("players", "dealer"):
            return None
        return bj.next_position(self.game)

    def dealer_public_cards(self) -> list[str]:
        """The dealer's cards anyone can see (the hole card only once turned over)."""
        if self.game is None:
            return []
        shown = self.game.dealer if self.game.hole_revealed else self.game.dealer[:1]
        return [str(c) for c in shown]

    def decision_due(self) -> tuple[int, int] | None:
        """Public: (seat number, hand index) whose decision is awaited."""
        if self.game is None or self.state != "players" or not bj.legal_actions(self.game):
            return None
        turn = bj.current_hand(self.game)
        assert turn is not None
        return self.game.seats[turn[0]].seat, turn[1]

    def insurance_seat(self) -> int | None:
        """Public: the seat being asked about insurance or even money."""
        if self.game is None or self.state != "insurance":
            return None
        return next((s.seat for s in self.game.seats if s.seat not in self.answered), None)

    # ------------------------------------------------------------------ betting
    def lock_out_bets(self, event: EventData) -> None:
        """Callback: no more bets; lock the sensors, light accepted spots, feed the meter."""
        accepted = self.contribute_progressive()
        stake = self.setup.config.paytables.blazing7s.wager
        bets = []
        for seat in sorted(self.pending_wagers):
            wagers = dict(self.pending_wagers[seat])
            main = wagers.pop("main", 0)
            if main:
                if seat in accepted:
                    wagers[SideBet.BLAZING7S] = stake
                bets.append([seat, main, wagers])
        self.rebuild([["start", bets]])
        self.answered = []
        self.held = []
        self.physical = [_key(p) for p in _initial_order(self.game)]
        self.emit(Journal("round:no_more_bets", {"round": self.round.number, "bets": bets}),
                  OpLog(f"no more bets: {len(bets)} seats, {len(accepted)} progressive "
                        "accepted"))

    def accepted_seats(self) -> list[int]:
        """Seats whose Blazing 7's wager was accepted at the lock-out."""
        if self.game is None:
            return []
        return [s.seat for s in self.game.seats if SideBet.BLAZING7S in s.bets.side_bets]

    # ------------------------------------------------------------------ cards
    def card_is_due(self, event: EventData) -> bool:
        """Condition: a position is waiting for a card from the shoe (not the held one)."""
        if self.state == "dealing":
            return bool(self.physical)
        due = self.card_due_to()
        return due is not None and not self._held_card_goes_to(due)

    def _held_card_goes_to(self, due: Position) -> bool:
        # An exposed card refused by a seat is not given to it: a split hand's second card
        # then comes from the shoe (it was due before the refusal).
        if not self.round.next_card:
            return False
        return not (self.round.next_card_exposed and due.seat in self.round.refused)

    def deal_card(self, event: EventData) -> None:
        """Callback: the card goes to the position due (its identity: journal only)."""
        self.place(self.count_card(str(event.kwargs["code"])))

    def place(self, card: str) -> None:
        """Give `card` to the physical position due; feed the rules in their own order.

        A card dealt face up is then confirmed by the camera where it lies (R9); the hole
        card only once it is turned over.
        """
        if self.state == "dealing":
            position = self.physical.pop(0)
            self.held.append([position, card])
            self.emit(Journal("card:dealt", {"round": self.round.number, "to": position,
                                             "card": card}))
            self._check_on_camera(Position(*position), card)
            self._feed_held()
            return
        due = self.card_due_to()
        self.emit(Journal("card:dealt", {"round": self.round.number,
                                         "to": _key(due) if due else None, "card": card}))
        if due is not None:
            self._check_on_camera(due, card)
        self.step(["card", card])

    def _check_on_camera(self, position: Position, card: str) -> None:
        if not position.hole:
            self.emit(CameraCheck(_zone(position.seat), card, f"card {self.shoe.cards_out}"))

    def _feed_held(self) -> None:
        while self.game is not None and self.game.phase is bj.Phase.DEAL:
            want = _key(bj.next_position(self.game) or Position(-1))
            match = next((h for h in self.held if h[0] == want), None)
            if match is None:
                return
            self.held.remove(match)
            self.step(["card", match[1]])

    def consume_held_card(self) -> None:
        """A card drawn in error and kept goes to the next position due."""
        due = self.card_due_to()
        if due is not None and self._held_card_goes_to(due):
            card, self.round.next_card = self.round.next_card, ""
            self.round.next_card_exposed = False
            self.emit(Journal("irregularity:held_card_used", {"card": card}))
            self.place(card)

    # ------------------------------------------------------------------ deal irregularities
    def seat_in_round(self, event: EventData) -> bool:
        """Condition: the seat named has a hand this round and a card still to come."""
        seat = int(event.kwargs.get("seat", 0))
        return any(p[0] == seat for p in self.physical)

    def seat_without_card(self, event: EventData) -> bool:
        """Condition: the seat named is in the round and has not been given a card yet."""
        seat = int(event.kwargs.get("seat", 0))
        dealt = any(p[0] == seat for p, _ in self.held) or (
            self.game is not None and any(s.seat == seat and s.hands[0].cards
                                          for s in self.game.seats))
        return self.seat_in_round(event) and not dealt and len(self._start_bets()) > 1

    def _start_bets(self) -> list[Any]:
        return list(self.steps[0][1]) if self.steps else []

    def dead_hand(self, event: EventData) -> None:
        """Callback (irregularity): a seat got no card: its hand is dead, its wagers returned."""
        seat = int(event.kwargs["seat"])
        start = [[s, m, side] for s, m, side in self._start_bets() if s != seat]
        self.rebuild([["start", start], *self.steps[1:]])
        self.physical = [p for p in self.physical if p[0] != seat]
        self.emit(Journal("irregularity:seat_no_card", {"seat": seat, "returned": True}),
                  OpLog(f"irregularity: seat {seat} got no card; dead hand", "warning"))
        self._feed_held()

    def second_card_last(self, event: EventData) -> None:
        """Callback (irregularity): a seat got one card; its second comes after the others."""
        seat = int(event.kwargs["seat"])
        mine = [p for p in self.physical if p[0] == seat]
        self.physical = [p for p in self.physical if p[0] != seat] + mine
        self.emit(Journal("irregularity:seat_one_card", {"seat": seat}),
                  OpLog(f"irregularity: seat {seat} gets its second card last", "warning"))

    def dealer_card_pending(self, event: EventData) -> bool:
        """Condition: the dealer still has a card of the initial deal to come."""
        return any(p[0] == DEALER for p in self.physical)

    def dealer_card_last(self, event: EventData) -> None:
        """Callback (irregularity): the dealer missed a card; deal it after the players'."""
        mine = [p for p in self.physical if p[0] == DEALER]
        self.physical = [p for p in self.physical if p[0] != DEALER] + mine
        self.emit(Journal("irregularity:dealer_missed_card", {}),
                  OpLog("irregularity: the dealer's card comes after the players'", "warning"))

    # ------------------------------------------------------------------ phases
    def phase_is_insurance(self, event: EventData) -> bool:
        """Condition: the rules opened insurance (ace up)."""
        return self.phase is bj.Phase.INSURANCE

    def phase_is_peek(self, event: EventData) -> bool:
        """Condition: the rules want the hole-card check."""
        return self.phase is bj.Phase.PEEK

    def phase_after_peek(self, event: EventData) -> bool:
        """Condition: the deal is over and no insurance or peek is due."""
        return self.phase in (bj.Phase.PLAYERS, bj.Phase.DEALER, bj.Phase.COMPLETE)

    def phase_is_dealer(self, event: EventData) -> bool:
        """Condition: the dealer plays."""
        return self.phase is bj.Phase.DEALER

    def phase_is_complete(self, event: EventData) -> bool:
        """Condition: the round is ready to settle."""
        return self.phase is bj.Phase.COMPLETE

    # ------------------------------------------------------------------ insurance and peek
    def open_insurance(self, event: EventData) -> None:
        """Callback: insurance and even money are offered seat by seat (ace up, R4)."""
        self.answered = []
        self.emit(Journal("round:insurance_open", {"round": self.round.number}))

    def insurance_due(self, event: EventData) -> bool:
        """Condition: a seat is being asked."""
        return self.insurance_seat() is not None

    def insurance_allowed(self, event: EventData) -> bool:
        """Condition: the rules accept this insurance from the seat asked."""
        return self._try_step(self._insurance_step(event))

    def _insurance_step(self, event: EventData) -> Step:
        seat = self.insurance_seat() or 0
        amount = event.kwargs.get("cents")
        if amount is None and self.game is not None and seat:
            state = self.game.seat_state(seat)
            amount = bj.max_insurance(state.bets.wager, self.table.rules.insurance_chip)
        return ["insure", seat, int(amount or 0)]

    def _try_step(self, step: Step) -> bool:
        if self.game is None or step[1] == 0:
            return False
        try:
            self._apply(self.game, step)
        except RulesError:
            return False
        return True

    def even_money_allowed(self, event: EventData) -> bool:
        """Condition: the seat asked has an uninsured blackjack and even money is offered."""
        return self._try_step(["even_money", self.insurance_seat() or 0])

    def take_insurance(self, event: EventData) -> None:
        """Callback: the seat insures (up to half the wager; pays 2:1 on a dealer blackjack)."""
        step = self._insurance_step(event)
        self.step(step)
        self.answered.append(step[1])
        self.emit(Journal("decision:insurance", {"seat": step[1], "cents": step[2]}))

    def take_even_money(self, event: EventData) -> None:
        """Callback: even money: the blackjack is paid 1:1 at once; the hand is over."""
        seat = self.insurance_seat() or 0
        self.step(["even_money", seat])
        self.answered.append(seat)
        self.emit(Journal("decision:even_money", {"seat": seat}))

    def decline_insurance(self, event: EventData) -> None:
        """Callback: the seat declines."""
        seat = self.insurance_seat() or 0
        self.answered.append(seat)
        self.emit(Journal("decision:no_insurance", {"seat": seat}))

    def insurance_closed(self, event: EventData) -> bool:
        """Condition: every seat has answered."""
        return self.insurance_seat() is None

    def close_insurance(self, event: EventData) -> None:
        """Callback: insurance closes before the peek (R4)."""
        self.step(["close_insurance"])
        self.emit(Journal("round:insurance_closed", {"round": self.round.number}))

    def dealer_has_blackjack(self, event: EventData) -> bool:
        """Condition: the one bit of the peek (the hole card itself never leaves the rules)."""
        return self.game is not None and self.game.dealer_blackjack

    def reveal_blackjack(self, event: EventData) -> None:
        """Callback: dealer blackjack: the lamp lights, the hole card is turned over (R6)."""
        self.step(["peek"])
        self.emit(Journal("peek", {"round": self.round.number, "blackjack": True}),
                  OpLog("peek: dealer blackjack"))
        self._journal_hole()

    def peek_clear(self, event: EventData) -> None:
        """Callback: no blackjack; play goes on and nothing else is shown (R5)."""
        self.step(["peek"])
        self.emit(Journal("peek", {"round": self.round.number, "blackjack": False}),
                  OpLog("peek: no dealer blackjack"))
        self.start_players(event)

    def _journal_hole(self) -> None:
        assert self.game is not None
        hole = str(self.game.dealer[1])
        self.emit(Journal("card:hole_revealed", {"round": self.round.number, "card": hole}),
                  CameraCheck(_zone(DEALER), hole, "hole card"))

    # ------------------------------------------------------------------ players
    def start_players(self, event: EventData) -> None:
        """Callback: decisions begin with the first live hand from the dealer's left."""
        self.emit(Journal("round:players", {"round": self.round.number}))

    def _can(self, action: bj.Action) -> bool:
        if self.game is None or action not in bj.legal_actions(self.game):
            return False
        if action in _TAKES_CARDS:
            turn = self.decision_due()
            return turn is None or turn[0] not in self.round.refused
        return True

    def exposed_card_offered(self) -> bool:
        """Public: an exposed card drawn in error is offered to the hand in turn (R8)."""
        return bool(self.round.next_card and self.round.next_card_exposed
                    and self.decision_due() is not None)

    def can_hit(self, event: EventData) -> bool:
        """Condition: the rules allow a hit on the hand in turn."""
        return self._can(bj.Action.HIT)

    def can_stand(self, event: EventData) -> bool:
        """Condition: a hand is in turn."""
        return self._can(bj.Action.STAND)

    def can_double(self, event: EventData) -> bool:
        """Condition: the rules allow this double (amount checked by the rules too)."""
        return self._can(bj.Action.DOUBLE) and self._try_decision(event, bj.Action.DOUBLE)

    def can_split(self, event: EventData) -> bool:
        """Condition: the rules allow a split."""
        return self._can(bj.Action.SPLIT)

    def can_surrender(self, event: EventData) -> bool:
        """Condition: the rules allow late surrender."""
        return self._can(bj.Action.SURRENDER)

    def can_rescue(self, event: EventData) -> bool:
        """Condition: the rules allow double-down rescue."""
        return self._can(bj.Action.RESCUE)

    def _try_decision(self, event: EventData, action: bj.Action) -> bool:
        amount = event.kwargs.get("cents")
        return self._try_step(["act", action.value, None if amount is None else int(amount)])

    def decide(self, event: EventData) -> None:
        """Callback: apply the player's decision through the rules.

        With an exposed card drawn in error on offer (RULES.md irregularities, regulation
        §1.7), hit, double or split take it; standing or surrendering while a hit was open
        refuses it, and that player gets no more cards this round.
        """
        action = bj.Action(event.event.name if event.event else "")
        amount = event.kwargs.get("cents")
        turn = self.decision_due()
        refusing = (self.exposed_card_offered() and action not in _TAKES_CARDS
                    and self._can(bj.Action.HIT))
        self.step(["act", action.value, None if amount is None else int(amount)])
        self.emit(Journal("decision:" + action.value, {"turn": list(turn or ()),
                                                       "cents": amount}))
        if refusing and turn is not None:
            self.round.refused.append(turn[0])
            self.emit(Journal("irregularity:exposed_card_refused", {"seat": turn[0]}),
                      OpLog(f"irregularity: seat {turn[0]} refused the exposed card; no more "
                            "cards for that seat this round", "warning"))

    def reveal_hole(self, event: EventData) -> None:
        """Callback: the dealer turns the hole card over."""
        self._journal_hole()

    # ------------------------------------------------------------------ settlement
    def settle_round(self, event: EventData) -> None:
        """Callback: settle every wager through the rules; meter hits counter-clockwise."""
        assert self.game is not None
        hits = self._meter_hits()
        before = progressive.rules_state(self.meters)
        result = settlement.settle(self.game, before if self.accepted_seats() else None)
        for seat, kind in hits:
            self.pay_progressive(seat, kind)
        if result.meter is not None and result.meter.amount != self.meters.amount:
            raise RulesError("the meter books disagree with the rules' settlement")
        record = self._round_record(result)
        self.round.settled = True
        self.round.result = record
        self.results.append(record)
        self.emit(Journal("round:settled", record),
                  OpLog(f"round {self.round.number} settled"))

    def _meter_hits(self) -> list[tuple[int, progressive.HitKind]]:
        assert self.game is not None
        pays = self.setup.config.paytables.blazing7s
        hits = []
        for seat in sorted(self.game.seats, key=lambda s: s.seat, reverse=True):
            if SideBet.BLAZING7S not in seat.bets.side_bets:
                continue
            line = blazing7s_line(seat.first_cards[0], seat.first_cards[1], self.game.dealer[0])
            pay = pays.pay(line) if line else None
            if isinstance(pay, MeterShare):
                hits.append((seat.seat, progressive.kind_of(pay)))
        return hits

    def _round_record(self, result: settlement.Settlement) -> dict[str, Any]:
        assert self.game is not None
        seats = [{"seat": s.seat,
                  "hands": [{"cards": [str(c) for c in h.cards], "net": h.net} for h in s.hands],
                  "side_bets": {str(k): v for k, v in s.side_bets.items()}}
                 for s in result.seats]
        return {"round": self.round.number, "dealer": [str(c) for c in self.game.dealer],
                "peeked": self.game.peeked, "dealer_blackjack": self.game.dealer_blackjack,
                "seats": seats, "meter": self.meters.amount}

    def dealer_stood_17_21(self, event: EventData) -> bool:
        """Condition: the dealer stood on 17-21 and drew anyway (that card is burned)."""
        if self.game is None or not self.game.hole_revealed:
            return False
        return 17 <= hand_value(self.game.dealer).total <= 21

    def burn_overdraw(self, event: EventData) -> None:
        """Callback (irregularity): the dealer drew on 17-21; the card is burned."""
        card = self.count_card(str(event.kwargs["code"]))
        self.round.loose.append(card)
        self.emit(Journal("irregularity:dealer_overdraw", {"card": card}),
                  OpLog("irregularity: dealer drew on 17-21; card burned", "warning"))

    # ------------------------------------------------------------------ card drawn in error
    def hold_card_in_error(self, event: EventData) -> None:
        """Callback (irregularity): a card no one was due; the dealer says if it was exposed."""
        card = self.count_card(str(event.kwargs["code"]))
        self.error_return = event.transition.source if event.transition else ""
        self.round.next_card = card
        self.emit(Journal("irregularity:card_drawn_in_error", {"card": card,
                                                               "state": self.error_return}),
                  OpLog("irregularity: card drawn in error; exposed or not?", "warning"))

    def keep_as_next_card(self, event: EventData) -> None:
        """Callback: not exposed: it is used as the next card (RULES.md)."""
        self.error_return = ""
        self.emit(Journal("irregularity:unexposed_is_next", {}))

    def offer_exposed_card(self, event: EventData) -> None:
        """Callback: exposed after the deal: offered in order to the next hand due a card.

        If no one takes it before the round ends, it is burned.
        """
        self.error_return = ""
        self.round.next_card_exposed = True
        self.emit(Journal("irregularity:exposed_offered", {}))

    def close_round(self, event: EventData) -> None:
        """Callback: an unused held card is burned; the round is cleared."""
        if self.round.next_card:
            self.emit(Journal("irregularity:error_card_burned", {"card": self.round.next_card}))
        super().close_round(event)

    def discard_round(self) -> None:
        """Forget the round in play: the rules' round, the physical order, held cards."""
        super().discard_round()
        self.game, self.steps, self.physical, self.held, self.answered = None, [], [], [], []

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """Each seat's wagers at stake: main and side wagers, doubles and insurance."""
        if self.game is None:
            return super().wagers_in_play()
        return [{"seat": s.seat, "wagers": {"main": s.bets.wager, **s.bets.side_bets},
                 "doubled": sum(h.doubled for h in s.hands), "insurance": s.insurance}
                for s in self.game.seats]

    # ------------------------------------------------------------------ camera cross-check
    def camera_layout(self) -> tuple[dict[str, list[str | None]], list[str]]:
        """Cards by position (every hand of a seat together); the hole card until turned over."""
        zones, loose = super().camera_layout()
        game = self.game
        if game is not None:
            for seat in game.seats:
                zones[_zone(seat.seat)] = [str(c) for hand in seat.hands for c in hand.cards]
            dealer: list[str | None] = [str(c) for c in game.dealer]
            if len(dealer) > 1 and not game.hole_revealed:
                dealer[1] = None
            zones[_zone(DEALER)] = dealer
        for (seat, _hand, hole), card in self.held:
            zones.setdefault(_zone(seat), []).append(None if hole else card)
        return zones, loose

    # ------------------------------------------------------------------ public view
    def lamps(self) -> dict[str, LampState]:
        """The shared lamps, the dealer's and each seat's (the peek shows one bit, R5)."""
        on, off = LampState.ON, LampState.OFF
        lamps = super().lamps()
        game = self.game
        shown_bj = bool(game and game.hole_revealed and game.peeked and game.dealer_blackjack)
        lamps[Lamp.BLACKJACK] = on if shown_bj else off
        lamps[Lamp.INSURANCE] = on if self.state == "insurance" else off
        lamps[Lamp.DRAW] = on if self.state == "dealer" else off
        lamps[Lamp.STAND] = on if self.state == "round_over" and game else off
        accepted = set(self.accepted_seats())
        due = self.card_due_to()
        turn = self.decision_due() or (self.insurance_seat(), 0)
        for number in range(1, self.setup.config.table.seats + 1):
            lamps[seat_lamp(number, "blazing7s")] = on if number in accepted else off
            lit = number == turn[0] or (due is not None and due.seat == number)
            lamps[seat_lamp(number, "turn")] = on if lit else off
        return lamps

    def round_text(self) -> str:
        """Whose card or decision is due, else the state, the round and the accepted count."""
        due = self.card_due_to()
        if due is not None:
            return "DEAL DEALER" if due.is_dealer else f"DEAL SEAT {due.seat}"
        decision = self.decision_due()
        if decision and self.exposed_card_offered():
            return f"SEAT {decision[0]} HAND {decision[1] + 1}: EXPOSED CARD - TAKE OR REFUSE"
        if decision:
            return f"SEAT {decision[0]} HAND {decision[1] + 1}: DECIDE"
        asked = self.insurance_seat()
        if asked:
            return f"SEAT {asked}: INSURANCE?"
        return (f"{self.state.upper()} ROUND {self.round.number} "
                f"ACCEPTED {len(self.accepted_seats())}")

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state (the round as its steps)."""
        return {**super().snapshot(), "steps": self.steps, "physical": self.physical,
                "held": self.held, "answered": self.answered}

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot by replaying the round's steps through the rules."""
        super().restore(data)
        self.rebuild(list(data["steps"]))
        self.physical, self.held = list(data["physical"]), list(data["held"])
        self.answered = list(data["answered"])


def _zone(seat: int) -> str:
    """The camera's name for a layout position: "dealer" or "seat<n>"."""
    return "dealer" if seat == DEALER else f"seat{seat}"


_TAKES_CARDS = frozenset({bj.Action.HIT, bj.Action.DOUBLE, bj.Action.SPLIT})
"""Decisions that give the hand another card (refused to a seat that refused an exposed card)."""


def _initial_order(game: bj.BlackjackRound | None) -> list[Position]:
    assert game is not None
    return list(initial_deal_order([s.seat for s in game.seats]))
