"""The blackjack (and Spanish 21) procedure model: what the blackjack transition table drives.

The round itself is the rules' pure `BlackjackRound`: every card, decision, insurance and
peek goes through `controller.rules.blackjack`, and settlement through
`controller.rules.settlement`. This model holds that round, snapshotted as the list of steps
that built it and rebuilt by replaying them (R14), and the phase conditions of the table.
What a live table needs around it are parts the table names `part.method`: the physical
deal (`deal`), insurance and the peek (`insurer`), decisions (`decisions`), settlement
(`settlement`), besides the shared shoe, wagers and progressive; the public outputs
(`outputs`) and the camera's view (`camera`) read it.
"""

from __future__ import annotations

from typing import Any

from transitions import EventData

from controller.procedure.blackjack.deal import DealTracker
from controller.procedure.blackjack.decisions import Decisions
from controller.procedure.blackjack.host import Step
from controller.procedure.blackjack.insurance import InsuranceAndPeek
from controller.procedure.blackjack.outputs import BlackjackCamera, BlackjackOutputs
from controller.procedure.blackjack.rows import ROWS
from controller.procedure.blackjack.settlement import BlackjackSettlement
from controller.procedure.blackjack.states import BJ, IN_PLAY
from controller.procedure.core.effects import Journal, OpLog
from controller.procedure.core.machine import build_machine
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.hands import Position
from controller.rules.sidebets import SideBet


class BlackjackModel(TableModel):
    """The model the blackjack transition table drives.

    Attributes:
        rules_table: The table's rules (options and pay tables) as the rules package holds
            them.
        game: The rules' round in play (None between rounds).
        steps: The steps that built `game`, in order (its snapshot).
        ratio_seats: Seats in play this round whose main wager is not known (settled by
            ratio: results announced, nets not reported).
    """

    outputs: BlackjackOutputs
    in_play_states = IN_PLAY

    def __init__(self, setup: Setup, meters: meter_books.Meters,
                 initial: str = str(BJ.SHOE_LOADING)) -> None:
        super().__init__(setup, meters)
        self.rules_table = bj.BlackjackTable.from_config(setup.config)
        self.game: bj.BlackjackRound | None = None
        self.steps: list[Step] = []
        self.ratio_seats: list[int] = []
        self.deal = DealTracker(self, self.shoe)
        self.insurer = InsuranceAndPeek(self)
        self.decisions = Decisions(self)
        self.settlement = BlackjackSettlement(self, self.progressive)
        self.outputs = BlackjackOutputs(self, self.progressive)
        self.camera = BlackjackCamera(self, self.shoe)
        self.machine = build_machine(self, BJ, ROWS, initial)

    # ------------------------------------------------------------------ the rules' round
    def step(self, step: Step) -> None:
        """Apply one step to the rules' round and remember it for the snapshot."""
        self.game = self.apply(self.game, step)
        self.steps.append(step)

    def apply(self, game: bj.BlackjackRound | None, step: Step) -> bj.BlackjackRound:
        """The rules' round after `step` (pure: `game` itself is not changed)."""
        kind = step[0]
        if kind == "start":
            bets = [bj.SeatBets(int(s), int(m), dict(side)) for s, m, side in step[1]]
            return bj.start_round(self.rules_table, bets)
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

    def try_step(self, step: Step) -> bool:
        """True when the rules would accept `step` now (nothing is applied)."""
        if self.game is None or step[1] == 0:
            return False
        try:
            self.apply(self.game, step)
        except RulesError:
            return False
        return True

    def rebuild(self, steps: list[Step]) -> None:
        """Replay steps into a fresh round (restart, or a seat removed from the deal)."""
        self.game, self.steps = None, []
        for step in steps:
            self.step(step)

    def start_bets(self) -> list[Any]:
        """The round's starting bets: [seat, main cents, side wagers] each."""
        return list(self.steps[0][1]) if self.steps else []

    @property
    def phase(self) -> bj.Phase | None:
        """The rules' phase of the round, if one is in play."""
        return self.game.phase if self.game else None

    # ------------------------------------------------------------------ public queries
    def card_due_to(self) -> Position | None:
        """Public: where the next card from the shoe goes (None: none is due)."""
        if self.state == BJ.DEALING:
            return self.deal.due()
        if self.game is None or self.state not in (BJ.PLAYERS, BJ.DEALER):
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
        if self.game is None or self.state != BJ.PLAYERS or not bj.legal_actions(self.game):
            return None
        turn = bj.current_hand(self.game)
        assert turn is not None
        return self.game.seats[turn[0]].seat, turn[1]

    def accepted_seats(self) -> list[int]:
        """Seats whose Blazing 7's wager was accepted at the lock-out."""
        if self.game is None:
            return []
        return [s.seat for s in self.game.seats if SideBet.BLAZING7S in s.bets.side_bets]

    # ------------------------------------------------------------------ between the parts
    def deal_card(self, event: EventData) -> None:
        """The card drawn goes to the position due (the deal's callback, for a hit)."""
        self.deal.deal_card(event)

    def start_players(self, event: EventData) -> None:
        """Decisions begin (the decisions' callback, after a peek that found no blackjack)."""
        self.decisions.start_players(event)

    def exposed_card_offered(self) -> bool:
        """Public: an exposed card drawn in error is offered to the hand in turn (R8)."""
        return self.decisions.exposed_card_offered()

    def seat_asked(self) -> int | None:
        """Public: the next seat to answer insurance (None: none)."""
        return self.insurer.seat_asked()

    def held_cards(self) -> list[list[Any]]:
        """[position, card] dealt physically but not yet fed to the rules."""
        return self.deal.held

    def camera_check(self, position: Position, card: str) -> None:
        """Ask the camera to confirm a card dealt face up where it lies (R9)."""
        self.camera.check(position, card)

    def camera_zone(self, seat: int) -> str:
        """The camera's name for a layout position: "dealer" or "seat<n>"."""
        return self.camera.zone(seat)

    # ------------------------------------------------------------------ betting
    def lock_out_bets(self, event: EventData) -> None:
        """Callback: no more bets; lock the sensors, light accepted spots, feed the meter.

        A seat in play whose main wager is not known is dealt on the table minimum and
        settled by ratio: its results are announced, its nets are not reported.
        """
        self.collecting = {}
        accepted = self.progressive.contribute()
        stake = self.setup.config.paytables.blazing7s.wager
        nominal = self.setup.config.table.min_wager
        bets = []
        for seat, main in self.wagers.seats_in_play().items():
            wagers = {k: v for k, v in self.wagers.pending.get(seat, {}).items() if k != "main"}
            if seat in accepted:
                wagers[SideBet.BLAZING7S] = stake
            bets.append([seat, main or nominal, wagers])
        self.ratio_seats = sorted(s for s, main in self.wagers.seats_in_play().items()
                                  if main is None)
        self.rebuild([["start", bets]])
        self.insurer.answered = []
        assert self.game is not None
        self.deal.start(self.game)
        self.emit(Journal("round:no_more_bets", {"round": self.round.number, "bets": bets,
                                                 "ratio_seats": self.ratio_seats}),
                  OpLog(f"no more bets: {len(bets)} seats, {len(accepted)} progressive "
                        "accepted"))

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

    # ------------------------------------------------------------------ family hooks
    def consume_held_card(self) -> None:
        """A card drawn in error and kept goes to the next position due."""
        self.deal.consume_held_card()

    def camera_layout(self) -> tuple[dict[str, list[str | None]], list[str]]:
        """Cards by position as the camera should see them, and the loose cards."""
        zones, loose = super().camera_layout()
        return self.camera.layout(zones), loose

    def close_round(self, event: EventData) -> None:
        """Callback: an unused held card is burned; the round is cleared."""
        if self.round.next_card:
            self.emit(Journal("irregularity:error_card_burned", {"card": self.round.next_card}))
        super().close_round(event)

    def discard_round(self) -> None:
        """Forget the round in play: the rules' round, the physical order, held cards."""
        super().discard_round()
        self.game, self.steps, self.ratio_seats = None, [], []
        self.deal.clear()
        self.insurer.answered = []

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """Each seat's wagers at stake: main and side wagers, doubles and insurance."""
        if self.game is None:
            return super().wagers_in_play()
        return [{"seat": s.seat, "wagers": {"main": s.bets.wager, **s.bets.side_bets},
                 "doubled": sum(h.doubled for h in s.hands), "insurance": s.insurance}
                for s in self.game.seats]

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state (the round as its steps)."""
        return {**super().snapshot(), "steps": self.steps, "physical": self.deal.physical,
                "held": self.deal.held, "answered": self.insurer.answered,
                "ratio_seats": self.ratio_seats}

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot by replaying the round's steps through the rules."""
        super().restore(data)
        self.rebuild(list(data["steps"]))
        self.deal.physical, self.deal.held = list(data["physical"]), list(data["held"])
        self.insurer.answered = list(data["answered"])
        self.ratio_seats = list(data.get("ratio_seats", []))
