"""The whole table over pseudo-terminals, with an auto-dealer and bot players.

Real drivers and firmware_bridge talk to the byte-level emulators of the shoe, the layout
board and the sign, and the dealer and bots act through those emulators. The auto-dealer
pulls the next card from the emulated shoe whenever the procedure says a card is due; bots
place their Blazing 7's chips on the layout's bet sensors and press the decision buttons;
main-wager amounts are entered directly (no sensor reads a chip's value). After every
stimulus the loop runs until the resulting device event has been handled, so the run is
deterministic for a given seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

from controller.procedure.blackjack import BlackjackModel
from controller.procedure.core.channels import BUTTONS
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.states import TableState
from controller.procedure.families import model_as
from controller.procedure.shared.table_model import TableModel
from controller.rules.cards import SPANISH_DECK_SIZE, STANDARD_DECK_SIZE
from controller.rules.hands import Game, Position
from controller.rules.options import GameConfig, TableSettings
from controller.rules.strategy import PlayerPolicy
from controller.service.app import TableApp, build_app
from controller.service.runtime import ControllerEvent, TableRuntime
from controller.service.tableconfig import TableFile
from controller.sim.bots import BotHands, bet_command, bot_move
from controller.sim.players import counting, main_cents
from drivers.registry import BuildOptions

STEP_TIMEOUT_S: Final = 10.0
CAMERA_TIMEOUT_S: Final = 120.0
"""How long the auto-dealer waits for the camera to confirm what it dealt."""
RIG_CAMERA: Final = {"kind": "emulated", "width": 1280, "height": 960}
RIG_VISION: Final = {"frames": 6, "frame_interval_ms": 50}
"""The simulated table's `[vision]`: a clean emulated frame needs no long wait to retry."""
VOID_REASON: Final = "the shoe ran out with the round in play"
BASE_LAMPS: Final = ("fault", "no_more_bets", "shuffle", "blackjack", "insurance",
                     "dealer_draw", "dealer_stand", "player_draw", "banker_draw")
MAIN_SPOTS: Final = 16
"""The simulated board's first main-spot sensor (seat n's is MAIN_SPOTS + n - 1)."""
SIM_BUTTONS: Final = tuple(sorted(BUTTONS - {"seat_no_card", "seat_one_card"}))
BUTTON_NUMBERS: Final = {name: number for number, name in enumerate(SIM_BUTTONS)}
"""The simulated layout board's button numbers."""
"""Cards behind the cut card of a baccarat shoe (decision 106 "Shoe")."""


class SimulationError(RuntimeError):
    """The simulated table stopped answering (a device event never arrived)."""


def shuffle_seed(seed: int, shuffle: int) -> int:
    """The seed of a run's `shuffle`-th shoe (1 = the first), the same on every path."""
    return seed + shuffle - 1


def cut_card_after(table: TableSettings, size: int) -> int:
    """Cards dealt before the cut card comes out.

    Baccarat: all but `[table] cut_from_end` cards; the others: `[table] penetration` percent.
    """
    if table.game is Game.BACCARAT:
        return size - table.cut_from_end
    return size * table.penetration // 100


def rig_devices(table: TableSettings, seats: int, seed: int,
                script: list[str] | None, *, camera: bool = False) -> dict[str, Any]:
    """The `[devices]` of the simulated table: emulated shoe, layout board and sign.

    With `camera`, also the emulated overhead camera (frames drawn from what is dealt).
    """
    kind = "spanish" if table.game is Game.SPANISH21 else "standard"
    shoe: dict[str, Any] = {"kind": "emulated", "decks": table.decks,
                            "seed": shuffle_seed(seed, 1), "deck": kind}
    if script is not None:
        shoe["script"] = list(script)
    else:
        size = table.decks * (SPANISH_DECK_SIZE if kind == "spanish" else STANDARD_DECK_SIZE)
        shoe["cut_card_from_end"] = size - cut_card_after(table, size)
    lamps: dict[str, Any] = {name: number for number, name in enumerate(BASE_LAMPS)}
    for seat in range(1, seats + 1):
        lamps[f"seat{seat}"] = {"turn": len(BASE_LAMPS) + 2 * seat - 2,
                                "blazing7s": len(BASE_LAMPS) + 2 * seat - 1}
    sensors = {f"seat{seat}": {"blazing7s": seat - 1, "main": MAIN_SPOTS + seat - 1}
               for seat in range(1, seats + 1)}
    devices: dict[str, Any] = {
        "shoe": shoe,
        "layout": {"kind": "emulated", "lamps": lamps, "bet_sensors": sensors,
                   "buttons": dict(BUTTON_NUMBERS)},
        "sign": {"kind": "emulated"}}
    if camera:
        devices["camera"] = {**RIG_CAMERA, "seed": seed}
    return devices


@dataclass
class RigPlan:
    """What the bots bet and how they play."""

    seats: int
    rounds: int
    bets: dict[str, int]
    policy: PlayerPolicy
    seed: int
    scripted: bool = False
    camera: bool = False


class PtySimulation:
    """Auto-dealer and bots acting on the emulators of a started `TableApp`."""

    def __init__(self, app: TableApp, plan: RigPlan) -> None:
        assert app.runtime is not None
        self.app = app
        self.runtime: TableRuntime = app.runtime
        self.plan = plan
        self.shoe = app.devices.emulators["shoe"]
        self.layout = app.devices.emulators["layout"]
        self.reported = 0
        self.finished = False
        self.holds = 0
        self.cards = 0
        self.shuffles = 0
        self.chips: set[int] = set()
        self.chips_round = 0
        """The round whose chips and cards lie on the layout (the dealer collects them)."""
        self.camera = app.devices.emulators.get("camera")
        self.hole = ""
        self.watch: Callable[[], None] | None = None  # after every action: the live view
        self.hands = BotHands()

    @property
    def faults(self) -> int:
        """Holds met, and commands the table refused the bots."""
        return self.holds + len(self.hands.refused)

    @property
    def model(self) -> TableModel:
        """The procedure model (this thread runs the loop)."""
        return self.runtime.model

    def run(self) -> Iterator[dict[str, Any]]:
        """Deal until the rounds are done or the shoe runs out; yield each settled round."""
        self._drain()
        if self.model.state != TableState.SHOE_LOADING and not self.plan.scripted:
            self._clear_restart_hold()
            self._resume_shoe()
        while not self.finished and self.reported < self.plan.rounds:
            if not self.step():
                break
            if self.watch is not None:
                self.watch()
            while (self.reported < len(self.model.results)
                   and self.reported < self.plan.rounds):
                yield self.model.results[self.reported]
                self.reported += 1

    def step(self) -> bool:
        """Take one dealer or player action; False when the table cannot go on."""
        state = self.model.state
        if state in HOLD_STATES:
            self.holds += 1
            return False
        action = self._action_for(state)
        if action is None:
            return False
        action()
        return True

    def _action_for(self, state: str) -> Callable[[], None] | None:
        if state == TableState.SHOE_LOADING:
            return self._new_shoe
        if state == TableState.BETTING:
            return self._bet
        if state == TableState.ROUND_OVER:
            return self._clear
        if state == TableState.BURN or self.model.card_due_to() is not None:
            return self._draw
        if state == TableState.RESHUFFLE_DISCARDS:
            return None
        return self._decide

    # ------------------------------------------------------------ dealer
    def _new_shoe(self) -> None:
        self.shuffles += 1
        if self.plan.scripted and self.shuffles > 1:
            self.finished = True  # a scripted shoe is dealt once, exactly as listed
            return
        if self.shuffles == 1:
            self._click("shuffle_done")  # the shoe is in at power-up
            return
        self._expect("ShoeLoaded", lambda: self.shoe.load(self._fresh_contents()))

    def _clear_restart_hold(self) -> None:
        """The supervisor clears the hold of a shoe board restarted mid-shoe.

        After a restart of the whole rig the shoe's board is a new one (its emulator started
        again with the table): the table holds ("the shoe board restarted"), and the
        supervisor clears it with the layout's key before the dealer reloads the shoe.
        """
        if self.model.state not in HOLD_STATES or "restarted" not in self.model.hold_reason:
            return
        self._expect("KeySwitchTurned", lambda: self.layout.turn_key("supervisor"))
        self._expect("KeySwitchTurned", lambda: self.layout.turn_key("normal"))

    def _resume_shoe(self) -> None:
        """After a restart mid-shoe: the shoe holds what the journal says is still in it."""
        from drivers.emulated.shoe_model import CUT_CARD, ShoeContents

        self.shuffles = 1
        shoe = self.model.shoe
        fresh = self._fresh_contents()
        cards = [c for c in iter(fresh.take, None) if c != CUT_CARD]
        for code, count in shoe.tally.seen.items():
            for _ in range(min(count, cards.count(code))):
                cards.remove(code)
        if not shoe.tally.cut_seen:
            cut_after = cut_card_after(self.model.setup.config.table,
                                       len(cards) + shoe.tally.cards_out)
            cards.insert(max(0, cut_after - shoe.tally.cards_out), CUT_CARD)
        self._expect("ShoeLoaded", partial(self.shoe.load, ShoeContents(cards)))

    def _fresh_contents(self) -> Any:
        from drivers.emulated.shoe_model import ShoeContents, ShoePlan, deck

        table = self.model.setup.config.table
        kind = "spanish" if table.game is Game.SPANISH21 else "standard"
        size = table.decks * len(deck(kind))
        return ShoeContents.shuffled(ShoePlan(
            table.decks, kind, shuffle_seed(self.plan.seed, self.shuffles),
            cut_card_from_end=size - cut_card_after(table, size)))

    def _draw(self) -> None:
        before = self._count("CardDrawn")
        faults = self._count("ShoeFault")
        due = None if self.model.state == TableState.BURN else self.model.card_due_to()
        code = self.shoe.draw()
        if code is None:
            self.finished = True
            return
        if code == "CUT":
            self._wait(lambda: self._count("ShoeFault") > faults)
            return
        self.cards += 1
        if self.camera is not None and due is not None:
            self._lay_on_camera(due, code)
        self._wait(lambda: self._count("CardDrawn") > before)

    def _lay_on_camera(self, due: object, code: str) -> None:
        """The dealer puts the card where the procedure's lamps say (the hole face down)."""
        from vision.build.synth import BACK

        assert self.camera is not None
        if isinstance(due, Position):
            zone = "dealer" if due.is_dealer else f"seat{due.seat}"
            if due.hole:
                self.hole = code
                code = BACK
        else:
            zone = str(getattr(due, "value", due))
        self.camera.deal(zone, code)

    def _turn_hole_over(self) -> None:
        """The dealer turns the hole card over once the procedure reveals it."""
        if self.camera is None or not self.hole:
            return
        model = model_as(self.model, BlackjackModel)  # only blackjack deals a hole card
        settled = len(model.results) > self.reported  # the table may be back at betting
        if len(model.dealer_public_cards()) < 2 and not settled:
            return
        layout = self.camera.layout()
        dealer = layout.get("dealer", [])
        if len(dealer) > 1:
            dealer[1] = self.hole
            self.camera.show(layout)
        self.hole = ""

    def void_unfinished(self) -> None:
        """The shoe ran out with a round in play: the supervisor voids it (key, R9)."""
        if not self.model.round_in_play():
            return
        self._expect("KeySwitchTurned", lambda: self.layout.turn_key("supervisor"))
        self._post(ControllerEvent("void_round", {"reason": VOID_REASON}))
        self._expect("KeySwitchTurned", lambda: self.layout.turn_key("normal"))

    def _bet(self) -> None:
        if self.chips_round != self.model.round.number:
            self._collect()  # the table returned to betting by itself after settlement
            self.chips_round = self.model.round.number
        for seat in range(1, self.plan.seats + 1):
            for bet, cents in self.plan.bets.items():
                if bet == "blazing7s":
                    if seat - 1 not in self.chips:
                        self.chips.add(seat - 1)
                        self._expect("BetSensorChanged",
                                     partial(self.layout.place_chip, seat - 1))
                        return
                elif bet not in self.model.wagers.pending.get(seat, {}):
                    counting(self.plan.policy, self.runtime)
                    cents = main_cents(self.plan.policy, seat, bet, cents)
                    self._command(bet_command(Game(self.model.setup.game), seat, bet, cents))
                    return
        self._click("no_more_bets")

    def _clear(self) -> None:
        self._collect()
        self._click("clear_round")

    def _collect(self) -> None:
        """The dealer takes the settled round's chips off the sensors, and its cards."""
        for spot in sorted(self.chips):
            self._expect("BetSensorChanged", partial(self.layout.remove_chip, spot))
        self.chips.clear()
        if self.camera is not None:
            self.camera.clear()
            self.hole = ""

    # ------------------------------------------------------------ players
    def _decide(self) -> None:
        counting(self.plan.policy, self.runtime)
        button = bot_move(self.model, self.plan.policy)
        if button is None:
            self.finished = True
            return
        self._click(button)

    # ------------------------------------------------------------ plumbing
    def _click(self, button: str) -> None:
        self._expect("ButtonPressed", lambda: self.layout.click(BUTTON_NUMBERS[button]))

    def _post(self, event: ControllerEvent) -> None:
        self._expect("ControllerEvent", lambda: self.app.loop.post(event))

    def _command(self, command: dict[str, Any]) -> None:
        """A bot's console command (as a person at the console gives it)."""
        self._expect("RuntimeCall", lambda: self.app.loop.post(self.hands.call(command)))

    def _expect(self, kind: str, stimulus: Callable[[], None]) -> None:
        before = self._count(kind)
        stimulus()
        self._wait(lambda: self._count(kind) > before)

    def _count(self, kind: str) -> int:
        return self.runtime.handled_kinds.get(kind, 0)

    def _wait(self, done: Callable[[], bool]) -> None:
        if not self.app.loop.run_until(done, STEP_TIMEOUT_S):
            raise SimulationError(f"no device event within {STEP_TIMEOUT_S} s in state "
                                  f"{self.model.state}")
        self._drain()
        if self.camera is not None:
            self._turn_hole_over()
            self._wait_for_camera()

    def _wait_for_camera(self) -> None:
        """The dealer's pace: the next action once the camera has judged every card."""
        parts = self.app.camera
        if parts is None:
            return
        check = parts.crosscheck
        if not self.app.loop.run_until(lambda: check.idle, CAMERA_TIMEOUT_S):
            raise SimulationError(f"the camera did not judge the cards within "
                                  f"{CAMERA_TIMEOUT_S} s")
        self._drain()

    def _drain(self) -> None:
        self.app.loop.run_until_idle()


@dataclass(frozen=True)
class RigSpec:
    """The simulated table's rig and start-up choices.

    Seats, seed, a scripted shoe or a camera, the burn after a shuffle (never with a scripted
    shoe) and the meter of a brand-new journal.
    """

    seats: int
    seed: int
    script: list[str] | None = None
    camera: bool = False
    meter_start: int | None = None
    burn: bool = True


def start_rig_app(name: str, config: GameConfig, rig: RigSpec, *, state_dir: Path,
                  ports: Path, extra: dict[str, Any] | None = None) -> TableApp:
    """Build and start the table on the emulated rig and wait for every link.

    The journal lives in `state_dir`, the ptys' links in `ports`; `extra` adds keys to the
    table document. The caller closes `app.devices`.
    """
    devices = rig_devices(config.table, rig.seats, rig.seed, rig.script, camera=rig.camera)
    ports.mkdir(parents=True, exist_ok=True)
    document = {"devices": devices, "vision": RIG_VISION, **(extra or {})}
    app = build_app(TableFile(name, config, document), allow_emulated=True,
                    state_dir=state_dir, devices=devices, burn=rig.burn and rig.script is None,
                    meter_start=rig.meter_start, options=BuildOptions(workdir=ports))
    try:
        app.start()
        wait_for_links(app)
    except BaseException:
        app.devices.close()
        raise
    return app


def wait_for_links(app: TableApp, timeout: float = STEP_TIMEOUT_S) -> None:
    """Let the start-up events (links up, shoe loaded) reach the procedure."""
    deadline = time.monotonic() + timeout
    app.loop.run_until(lambda: all(d.link_up for d in app.devices.all())
                       or time.monotonic() > deadline, timeout)
    app.loop.run_until_idle()
