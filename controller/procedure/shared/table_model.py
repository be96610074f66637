"""What every game family's procedure shares: the round, voids, the supervisor key, snapshots.

A family's model is what its transition table drives. Its concerns are parts that the table
names `part.method` (`ProcedureModel.__getattr__` resolves them): the shoe (`shoe`, a
`ShoeTracker`), the wagers and bet sensors (`wagers`, a `WagerBook`), the progressive meter and
its links (`progressive`, a `ProgressiveDesk`) and the public outputs (`outputs`, the family's
`TableOutputs`). Conditions are thin predicates and callbacks only append effects; game rules
come from `controller.rules`.

A part is handed what it uses, never the model's class: its host (the model as a `Protocol`
of the part's own module, listing what the part reads and calls) and, where it reads them,
the parts built first and never replaced (the shoe, the progressive desk). Any other part it
reaches through a method of the host (`accepted_progressive_seats`, a family's `deal_card`),
so a part imports neither the model nor another part (decision 084).
"""

from __future__ import annotations

from typing import Any, ClassVar

from transitions import EventData

from controller.procedure.core.effects import Journal, OpLog
from controller.procedure.core.model import ProcedureModel
from controller.procedure.core.roundstate import Round, ShoeTally
from controller.procedure.core.timing import Fire, FireTogether, TimerScheduler
from controller.procedure.shared import meter_books
from controller.procedure.shared.progressive_desk import LAYOUT, ProgressiveDesk
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.shoe_tracker import ShoeTracker
from controller.procedure.shared.table_outputs import TableOutputs
from controller.procedure.shared.wager_book import WagerBook
from controller.rules.sidebets import SideBet


class TableModel(ProcedureModel):
    """Shared conditions and callbacks of every game's procedure.

    Attributes:
        round: The round in play (its number, held and loose cards, contributions...).
        key_on: Who turned the supervisor key ("" while it is off).
        camera_down: Why the cross-check's camera is down ("" while it answers).
        link_alarms: The boards whose lines refused frames in numbers lately, each with what
            failed (`controller.service.link_health`); shown in the fault area.
        link_frames: Frames each board's line refused since the table started (pit view).
        results: Every settled round's record, in order.
        voided: The numbers of the rounds voided.
    """

    outputs: TableOutputs
    in_play_states: ClassVar[frozenset[str]] = frozenset()
    """The family's states in which a round's wagers are locked in and it is not settled."""
    pauses_without_layout = True
    """The layout board's loss pauses the table (a card game: no round starts unlit)."""

    def __init__(self, setup: Setup, meters: meter_books.Meters) -> None:
        super().__init__()
        self.setup = setup
        self.round = Round()
        self.shoe = ShoeTracker(self)
        self.progressive = ProgressiveDesk(self, meters)
        self.wagers = WagerBook(self, self.progressive)
        self.outputs = TableOutputs(self, self.progressive)
        self.key_on = ""
        self.camera_down = ""
        self.link_alarms: dict[str, str] = {}
        self.link_frames: dict[str, int] = {}
        self.results: list[dict[str, Any]] = []
        self.voided: list[int] = []
        self.collecting: dict[str, list[str | None]] = {}
        """The last round's cards by position, on the layout until the dealer collects them."""
        self.collecting_round = 0

    # ------------------------------------------------------------------ running
    def fire(self, name: str, **kwargs: Any) -> bool:
        """Fire a trigger, then take every `proceed` step the procedure now allows."""
        fired = super().fire(name, **kwargs)
        self.advance()
        return fired

    def run_timers_on(self, scheduler: TimerScheduler, fire: Fire,
                      fire_together: FireTogether) -> bool:
        """Run the game's own timers on the table's loop; False when it has none.

        The shoe games, roulette and hold'em have none: they wait on the dealer, the wheel
        or the camera. The community game's stations have decision timers.
        """
        return False

    def fire_all(self, calls: list[tuple[str, dict[str, Any]]]) -> bool:
        """Fire triggers due at the same moment, in order; True when any took place."""
        fired = False
        for name, kwargs in calls:
            fired |= self.fire(name, **kwargs)
        return fired

    def advance(self) -> None:
        """Take `proceed` steps while their conditions hold (deal complete, dealer done...).

        Then, if the shoe reported its last card and a card is now wanted, the round is out
        of cards (decision 106 "Shoe"): a shoe that ran out matters only
        once a card is due.
        """
        for _ in range(64):
            self.consume_held_card()
            if not self.trigger_allowed("proceed"):
                break
            self.trigger("proceed")
        if self.shoe.tally.empty and self.trigger_allowed("out_of_cards"):
            self.trigger("out_of_cards")

    def trigger_allowed(self, name: str) -> bool:
        """True when trigger `name` would change something now (conditions checked).

        What the machine's `may_<name>` answers, without its walk over every trigger of the
        table (read after every trigger: `advance`): only this state's transitions of `name`.
        """
        if name not in self.triggers_here():
            return False
        machine = self.machine
        event = machine.events[name]
        data = EventData(machine.get_model_state(self), event, machine, self, (), {})
        for transition in event.transitions[self.state]:
            data.transition = transition
            try:
                if all(c.check(data) for c in transition.conditions):
                    return True
            except Exception as err:  # noqa: BLE001 - as `may_<name>`: the machine's handler
                data.error = err
                machine.callbacks(machine.on_exception, data)
        return False

    def consume_held_card(self) -> None:
        """Hook: a family delivers a card drawn in error and kept as the next card."""

    def card_due_to(self) -> object | None:
        """Public: where the next card goes (None: no card is due)."""
        return None

    # ------------------------------------------------------------------ void rounds
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
        return self.state in self.in_play_states

    def void_current_round(self, who: str, reason: str) -> None:
        """Void the round: return every wager, reverse its progressive contributions (R13).

        The round is not reported; `round:void` lists what was returned, `meter:void` what
        the meter gave back.
        """
        number = self.round.number
        returned = self.wagers_in_play() if not self.round.settled else []
        given_back = self.progressive.give_back(number, self.round.contributions)
        self.round.contributions = []
        self.voided.append(number)
        self.emit(Journal("round:void", {"round": number, "who": who, "reason": reason,
                                         "returned": returned, "meter_returned": given_back}),
                  OpLog(f"round {number} void: every wager returned", "warning"))
        self.discard_round()

    def wagers_in_play(self) -> list[dict[str, Any]]:
        """What each seat has at stake in the round in play (returned if it is voided)."""
        return self.wagers.in_play()

    def discard_round(self) -> None:
        """Forget the round in play (a family clears its own round as well)."""
        self.round = Round(number=self.round.number)

    # ------------------------------------------------------------------ supervisor key
    def supervisor_key_on(self, event: EventData) -> bool:
        """Condition: the supervisor key is turned (R12)."""
        return bool(self.key_on)

    def key_released(self, event: EventData) -> None:
        """Callback: the supervisor key was turned off."""
        self.emit(Journal("supervisor:key_off", {"who": self.key_on}))
        self.key_on = ""

    # ------------------------------------------------------------------ rounds
    def burn_error_card(self, event: EventData) -> None:
        """Callback: a card drawn in error between rounds is burned."""
        self.error_return = ""
        self.emit(Journal("irregularity:error_card_burned", {"card": self.round.next_card}))
        self.round.next_card = ""

    def close_round(self, event: EventData) -> None:
        """Callback: clear the finished round; the next one is numbered when betting opens."""
        self.collecting = {zone: cards for zone, cards in self.camera_layout()[0].items() if cards}
        self.collecting_round = self.round.number
        self.discard_round()
        self.wagers.clear()
        self.progressive.clear_sign()

    def open_betting(self, event: EventData) -> None:
        """Callback: a new round, numbered one past the last, opens for wagers."""
        self.close_round(event)
        self.round = Round(number=self.round.number + 1)
        self.emit(Journal("round:open", {"round": self.round.number}))

    def offers_progressive(self) -> bool:
        """True when the table offers the Blazing 7's progressive wager."""
        return SideBet.BLAZING7S in self.setup.config.table.side_bets

    def accepted_progressive_seats(self) -> list[int]:
        """Seats whose Blazing 7's chips are accepted (for the desk, from the wagers)."""
        return self.wagers.accepted_progressive_seats()

    def progressive_chips(self) -> list[int]:
        """Seats in play with chips on their Blazing 7's spot (for the desk, from the wagers)."""
        return self.wagers.progressive_chips()

    # ------------------------------------------------------------------ the layout board
    def layout_answers(self, event: EventData | None = None) -> bool:
        """Condition: the layout board answers; while it does not, no round starts."""
        return LAYOUT not in self.progressive.links_down

    def note_layout_link(self, event: EventData) -> None:
        """Callback (before the desk's): the layout's loss pauses the table, its return resumes.

        A round in play goes on (the shoe is the record; decisions come from the console);
        betting stays open but cannot close, and no card is dealt into the unlit layout.
        """
        if event.kwargs.get("device") != LAYOUT:
            return
        was_down = not self.layout_answers()
        down = event.event.name == "link_down" if event.event else True
        if down == was_down or (not down and not event.kwargs.get("reconciled", False)):
            return
        data = {"device": LAYOUT, "state": self.state, "round": self.round.number}
        if down:
            self.emit(Journal("table:paused", {**data, "round_in_play": self.round_in_play()}),
                      OpLog("layout down: table paused (no round starts until it is back)",
                            "error"))
        else:
            self.emit(Journal("table:resumed", data), OpLog("layout back: table resumed"))

    # ------------------------------------------------------------------ camera cross-check
    def camera_layout(self) -> tuple[dict[str, list[str | None]], list[str]]:
        """What the camera should see: cards by position (None: face down), and loose cards.

        Loose cards were drawn this round but lie on no position (burned, face up in the
        shoe, held in error): the camera may see them anywhere without a fault. Between rounds
        the last round's cards lie where they were dealt until the next round's lock-out
        (the dealer collects them while bets are placed).
        """
        loose = [*self.round.loose, *([self.round.next_card] if self.round.next_card else [])]
        return {zone: list(cards) for zone, cards in self.collecting.items()}, loose

    def layout_round(self) -> int:
        """The round whose cards lie on the layout: the last one while it is collected."""
        return self.collecting_round if self.collecting else self.round.number

    def note_camera_status(self, event: EventData) -> None:
        """Callback: the camera went down or came back (shown on the dealer display)."""
        down = bool(event.kwargs.get("down"))
        reason = str(event.kwargs.get("reason", ""))
        self.camera_down = (reason or "down") if down else ""
        self.emit(Journal("camera:down" if down else "camera:up", {"reason": reason,
                                                                   "state": self.state}),
                  OpLog(f"camera down: {reason}" if down else "camera back",
                        "error" if down else "info"))

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> dict[str, Any]:
        """The procedure's part of the critical state."""
        desk = self.progressive
        return {
            "state": self.state, "round": self.round.to_json(),
            "shoe": self.shoe.tally.to_json(), "sensors": self.wagers.sensors,
            "pending_wagers": {str(k): v for k, v in self.wagers.pending.items()},
            "unknown_main": sorted(self.wagers.unknown_main),
            "links_down": sorted(desk.links_down), "key_on": self.key_on,
            "progressive_closed_round": desk.closed_round,
            "progressive_waiting": [dict(h) for h in desk.waiting],
            "progressive_rejected": [dict(h) for h in desk.rejected],
            "sign_message": desk.sign_message, "sign_win": list(desk.sign_win),
            "resume_state": self.resume_state,
            "hold_reason": self.hold_reason, "hold_kind": self.hold_kind,
            "error_return": self.error_return,
            "reshuffle_return": self.reshuffle_return,
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Return to a snapshot (after a restart); outputs are re-asserted by the runtime."""
        self.machine.set_state(data["state"], model=self)
        self.round = Round.from_json(data["round"])
        self.shoe.tally = ShoeTally(**data["shoe"])
        self.wagers.sensors = dict(data["sensors"])
        self.wagers.pending = {int(k): dict(v) for k, v in data["pending_wagers"].items()}
        self.wagers.unknown_main = set(data.get("unknown_main", []))
        desk = self.progressive
        desk.links_down = set(data["links_down"])
        desk.closed_round = int(data.get("progressive_closed_round", 0))
        desk.waiting = [dict(h) for h in data.get("progressive_waiting", [])]
        desk.rejected = [dict(h) for h in data.get("progressive_rejected", [])]
        desk.sign_message = data["sign_message"]
        desk.sign_win = (int(data["sign_win"][0]), int(data["sign_win"][1]))
        for name in ("key_on", "resume_state", "hold_reason", "error_return",
                     "reshuffle_return"):
            setattr(self, name, data[name])
        self.hold_kind = str(data.get("hold_kind", ""))
