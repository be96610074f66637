"""`shoectl simulate --game holdem`: Texas Hold'em Bonus dealt by hand, read by the camera.

The table runs on the emulated rig: a layout board behind its pty and the emulated overhead
camera. The auto-dealer shuffles one seeded 52-card deck a round, deals the hole cards face
down (never on the camera: a face-down card is no reading), burns before the flop, the turn
and the river, and turns each card up in its area of the emulated camera's layout (`flop`,
`turn`, `river`, `dealer`, then each seat's two cards from the dealer's right). The camera
worker renders the frame and the real recogniser reads it; the card reader
(`controller.camera.holdem_reader`) turns the readings into the round's cards. A card the
camera could not confirm is asked for at the console, and the dealer keys the true card
(`key_card`). The bots send the console's commands (source `bot`): `--bets ante=CENTS
[,bonus=CENTS]` on every seat, and each seat's decisions by `ANTE_STRATEGY`.

With `--json` each settled round is one line on stdout (docs/reference/commands.md, "Texas
Hold'em Bonus"); a summary goes to stderr. Without it, a line a round.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from controller.odds.holdem_ante import strategy_bets
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.families import model_as
from controller.procedure.holdem import HE, HoldemModel, HoldemStage
from controller.rules.cards import Card, deck
from controller.rules.holdem import DEALER_SPOT, deal_order
from controller.rules.money import format_cents
from controller.service.app import TableApp, build_app
from controller.service.tableconfig import TableFile
from controller.sim.bots import BotHands
from controller.sim.games.base import Driver, RoundRecords, SimulationStoppedError
from controller.sim.options import Options
from drivers.registry import BuildOptions

STEP_TIMEOUT_S: Final = 120.0
"""How long a step (a command carried out, a card read by the camera) may take."""
RIG_CAMERA: Final = {"kind": "emulated", "width": 1280, "height": 960}
RIG_VISION: Final = {"frames": 6, "frame_interval_ms": 10}
"""The rig's `[vision]`: its camera draws a new frame at each read, with nothing to wait for,
so a card not read yet is looked at again after the least interval `[vision]` allows."""
RIG_LAMPS: Final = {"fault": 0, "no_more_bets": 1, "shuffle": 2}
_AREA: Final = {HoldemStage.FLOP: ("flop", slice(0, 3)), HoldemStage.TURN: ("turn", slice(3, 4)),
                HoldemStage.RIVER: ("river", slice(4, 5))}


class HoldemSimulationError(SimulationStoppedError):
    """The simulated table stopped answering (a command or a card never taken)."""


def rig_devices(seed: int) -> dict[str, Any]:
    """The `[devices]` of the simulated hold'em table: layout board and overhead camera."""
    return {"layout": {"kind": "emulated", "lamps": dict(RIG_LAMPS)},
            "camera": {**RIG_CAMERA, "seed": seed}}


def start_holdem_app(options: Options, state_dir: Path, ports: Path,
                     vision: dict[str, Any] | None = None) -> TableApp:
    """Build and start the hold'em table on the emulated rig (the caller closes it).

    Args:
        options: The simulation's options (seed, config, seats).
        state_dir: Where the table keeps its journal.
        ports: Where the emulators' ptys are linked.
        vision: `[vision]` keys over the rig's (`bench/holdem_camera.py` tries profiles).
    """
    devices = rig_devices(options.seed)
    ports.mkdir(parents=True, exist_ok=True)
    document = {"devices": devices, "vision": {**RIG_VISION, **(vision or {})},
                "game": "holdem", "seed": options.seed}
    app = build_app(TableFile("simulate", options.config, document), allow_emulated=True,
                    state_dir=state_dir, devices=devices, options=BuildOptions(workdir=ports))
    try:
        app.start()
    except BaseException:
        app.devices.close()
        raise
    return app


class HoldemSimulation:
    """The auto-dealer, the camera's layout and the bots around one hold'em table."""

    def __init__(self, app: TableApp, options: Options) -> None:
        assert app.runtime is not None
        self.app = app
        self.runtime = app.runtime
        self.options = options
        self.camera = app.devices.emulators["camera"]
        self.hands = BotHands()
        self.holds = 0
        self.keyed = 0
        self.wrong = 0
        """Cards the table took that are not the card lying there (read wrong by the camera)."""
        self.reported = 0
        self.hole: dict[int, list[Card]] = {}
        self.board: list[Card] = []
        self.deck: list[Card] = []
        self.rng = random.Random(options.seed)

    @property
    def model(self) -> HoldemModel:
        """The procedure model (this thread runs the loop)."""
        return model_as(self.runtime.model, HoldemModel)

    @property
    def faults(self) -> int:
        """Holds met and commands the table refused."""
        return self.holds + len(self.hands.refused)

    def run(self) -> Iterator[dict[str, Any]]:
        """Deal the planned rounds; yield each settled round's record."""
        while self.reported < self.options.rounds:
            if self.model.state in HOLD_STATES or self.model.state == HE.CARD_HOLD:
                self.holds += 1
                return
            self._step()
            results = self.model.results
            while self.reported < len(results) and self.reported < self.options.rounds:
                self.reported += 1
                record = public_record(results[self.reported - 1])
                self.wrong += wrong_cards(record, self.board, self.hole)
                yield record

    def _step(self) -> None:
        model = self.model
        state = model.state
        if state == HE.SHUFFLING:
            self._command({"command": "shuffle_done"})
            self._shuffle()
        elif state == HE.BETTING:
            self._bet()
        elif state == HE.DEALING:
            self._command({"command": "hole_cards_dealt"})
        elif state == HE.DECISIONS:
            self._decide()
        elif state == HE.CARDS:
            self._turn_up()
        else:
            raise HoldemSimulationError(f"the table waits in {state}: nothing to do")

    def _shuffle(self) -> None:
        """A new round's deck, shuffled by the run's seeded generator; the layout cleared."""
        self.camera.clear()
        self.deck = list(deck())
        self.rng.shuffle(self.deck)

    def _bet(self) -> None:
        for seat in range(1, self.options.seats + 1):
            for bet in ("ante", "bonus"):
                cents = self.options.bets.get(bet, 0)
                if cents:
                    self._command({"command": "wager", "seat": seat, "bet": bet,
                                   "cents": cents})
        # A layout that does not answer pauses the table: the dealer waits for it (on a busy
        # machine its link can miss a beat) before closing betting.
        self._wait(self.model.layout_answers)
        self._command({"command": "no_more_bets"})
        self._deal()

    def _deal(self) -> None:
        """Two cards face down to each seat and the dealer, then five to the board (burns)."""
        seats = list(range(1, self.options.seats + 1))
        hands: dict[int, list[Card]] = {spot: [] for spot in (*seats, DEALER_SPOT)}
        for spot in deal_order(seats):
            hands[spot].append(self.deck.pop())
        self.hole = hands
        burn_and = [self.deck.pop() for _ in range(8)]  # burn, 3; burn, 1; burn, 1
        self.board = [*burn_and[1:4], burn_and[5], burn_and[7]]

    def _decide(self) -> None:
        game = self.model.game
        assert game is not None
        shown = len(game.board)
        for seat in list(game.pending_decisions):
            bets = strategy_bets(self.hole[seat], self.board[:shown])
            name = "bet" if bets else ("fold" if shown == 0 else "check")
            self._command({"command": name, "seat": seat})

    def _turn_up(self) -> None:
        """Turn the due cards up on the camera's layout, then wait for the round to take them."""
        game = self.model.game
        assert game is not None
        if game.asked is not None:
            self._key(game.asked.area.value, game.asked.seat)
            return
        layout = self.camera.layout()
        if game.stage in _AREA:
            zone, cut = _AREA[game.stage]
            cards = self.board[cut]
        elif game.stage is HoldemStage.DEALER:
            zone, cards = "dealer", self.hole[DEALER_SPOT]
        else:
            seat = game.showdown_seat
            assert seat is not None
            zone, cards = f"seat{seat}", self.hole[seat]
        if zone not in layout:
            self.camera.show({**layout, zone: [str(c) for c in cards]})
        before = (len(game.seen_cards()), game.stage, game.asked)
        self._wait(lambda: self.model.game is None or (
            len(self.model.game.seen_cards()), self.model.game.stage,
            self.model.game.asked) != before or self.model.state != HE.CARDS)

    def _key(self, area: str, seat: int | None) -> None:
        """The dealer keys the card the console asks for: one lying there and not read yet.

        The camera reads an area's cards in any order (a flop's third card may be read
        first), so the card asked for is one of the area's not taken yet, not the next one
        in the order they were turned up.
        """
        game = self.model.game
        assert game is not None
        if area == "seat":
            assert seat is not None
            lying, taken = self.hole[seat], game.seats[seat].cards
        elif area == "dealer":
            lying, taken = self.hole[DEALER_SPOT], game.dealer
        else:
            lying, taken = self.board[_AREA[game.stage][1]], game.board
        read = {str(card) for card in taken}
        truth = next(card for card in lying if str(card) not in read)
        self.keyed += 1
        self._command({"command": "key_card", "card": str(truth)})

    def _command(self, command: dict[str, Any]) -> None:
        before = self.runtime.handled_kinds.get("RuntimeCall", 0)
        self.app.loop.post(self.hands.call(command))
        self._wait(lambda: self.runtime.handled_kinds.get("RuntimeCall", 0) > before)

    def _wait(self, done: Any) -> None:
        if not self.app.loop.run_until(done, STEP_TIMEOUT_S):
            raise HoldemSimulationError(f"the table did not move within {STEP_TIMEOUT_S} s "
                                        f"(state {self.model.state})")
        self.app.loop.run_until_idle()


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A settled round as `shoectl simulate --game holdem --json` prints it.

    The shape is documented in docs/reference/commands.md, "Texas Hold'em Bonus".
    """
    return {"round": record["round"], "board": record["board"], "dealer": record["dealer"],
            "seats": [{"seat": int(n), "cards": s["cards"], "folded": s["folded"],
                       "nets": s["nets"], "net": s["net"]}
                      for n, s in sorted(record["seats"].items(), key=lambda i: int(i[0]))]}


def wrong_cards(record: dict[str, Any], board: list[Card], hole: dict[int, list[Card]]) -> int:
    """How many of a settled round's cards are not among the cards dealt to their area.

    Args:
        record: The round as `public_record` gives it.
        board: The five board cards dealt, in order.
        hole: Each seat's (and `DEALER_SPOT`'s) two cards dealt.

    An area's cards are compared as a set: the camera may read a flop's, or a hand's,
    cards in another order than they were turned up.
    """
    read = record["board"]
    areas = [(read[:3], board[:3]), (read[3:4], board[3:4]), (read[4:5], board[4:5])]
    if record["dealer"]:
        areas.append((record["dealer"], hole[DEALER_SPOT]))
    areas += [(seat["cards"], hole[seat["seat"]]) for seat in record["seats"]]
    return sum(len(set(cards) - {str(card) for card in dealt}) for cards, dealt in areas)


def round_line(record: dict[str, Any]) -> str:
    """One round for a person: the board, the dealer's cards and the players' net."""
    net = sum(s["net"] for s in record["seats"])
    return (f"round {record['round']:>4}  board {' '.join(record['board']):<15} "
            f"dealer {' '.join(record['dealer']):<6} players net {format_cents(net):>10}")


def run(options: Options) -> int:
    """Deal the rounds and print them; the exit status.

    0: no hold, nothing refused, no card taken wrong; 1: a hold, a refused command, a card
    the table took that is not the one dealt, or a table that stopped answering; 2: a device
    could not be built or started (named, one line).
    """
    return HoldemDriver(options).run()


class HoldemDriver(Driver):
    """The hold'em table on the emulated rig, its cards read by the camera."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.house = 0
        self._sim: HoldemSimulation | None = None

    @property
    def sim(self) -> HoldemSimulation:
        """The auto-dealer and the bots of the started table."""
        assert self._sim is not None, "the table is not started"
        return self._sim

    def start(self, state_dir: Path, workdir: Path) -> None:
        """The table on the emulated layout board and camera, their ptys under `workdir`."""
        app = start_holdem_app(self.options, state_dir, workdir / "ports")
        try:
            self._sim = HoldemSimulation(app, self.options)
        except BaseException:
            app.close("simulation not started")
            raise

    def rounds(self) -> RoundRecords:
        """Each round settled."""
        for record in self.sim.run():
            self.house -= sum(s["net"] for s in record["seats"])
            yield record

    def line(self, record: dict[str, Any]) -> str:
        """The round's line (`round_line`)."""
        return round_line(record)

    def summary(self, elapsed: float) -> str:
        """Rounds, the house's win, the cards the camera read, keyed and read wrong."""
        sim = self.sim
        reader = sim.app.camera.crosscheck if sim.app.camera is not None else None
        read = getattr(reader, "checked", 0)
        return (f"rounds {sim.reported}  house win {format_cents(self.house)}  cards read by "
                f"the camera {read}  keyed {sim.keyed}  wrong {sim.wrong}  faults "
                f"{sim.faults}  rounds/s {sim.reported / elapsed:.2f}")

    def notes(self) -> list[str]:
        """The first five commands the table refused, with its reasons."""
        return [f"refused {command}: {reply.body.get('error')}"
                for command, reply in self.sim.hands.refused[:5]]

    @property
    def failed(self) -> bool:
        """A hold, a refused command or a card the table took wrong."""
        return self.sim.faults != 0 or self.sim.wrong != 0

    def close(self, reason: str) -> None:
        """Record the power-off; close the journal and the devices."""
        self.sim.app.close(reason)
