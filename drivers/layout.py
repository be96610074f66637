"""The layout board over firmware_bridge: lamps, bet-spot sensors, buttons and the key switch.

The board (catalogue board `layout`) blinks and debounces by itself and counts its input
events, so none is lost. The driver keeps what every lamp should show; after a reconnect it
shows it again (the board went to its failsafe pattern meanwhile) and reads the inputs back,
reporting any change it missed while the board was away (a board that restarted loses its
unsent events). Every key-switch report names the switch it came from and whether the board
proved its pairing key (`KeySwitchTurned.key`, `.authenticated`): the controller takes
supervisor actions only from an authenticated switch.

Config::

    [devices.layout]
    kind = "serial"
    url = "/dev/layout-board"
    lamps = { fault = 0, seat1 = { bet = 1 }, no_more_bets = 2 }   # board lamp ids 0-63
    bet_sensors = { seat1 = 0 }                                    # board spot ids 0-31
    buttons = { no_more_bets = 0 }                                 # board button ids 0-31
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Final

from drivers.board import BoardConnection, BoardDriver, LinkOptions
from drivers.config import BOARD_KEY_POSITIONS, KEY_NORMAL, LayoutConfig
from drivers.errors import DeviceUnavailableError, DriverError
from drivers.events import BetSensorChanged, ButtonPressed, EventSink, KeySwitchTurned
from drivers.interfaces import LampMode
from drivers.timing import Scheduler
from firmware_bridge import Message

_LOG = logging.getLogger(__name__)
LAMP_MODES: Final = {LampMode.OFF: "off", LampMode.ON: "on", LampMode.FLASH: "blink_slow"}


class BridgeLayout(BoardDriver):
    """`LayoutLamps` and `LayoutInputs` on the layout board.

    Args:
        config: The `[devices.layout]` record (`serial`, or `emulated` behind a pty).
        link: How to reach the board.
        sink: Where events go.
        scheduler: Clock for event times.
    """

    def __init__(self, config: LayoutConfig, link: LinkOptions, sink: EventSink, *,
                 scheduler: Scheduler | None = None) -> None:
        super().__init__(config.name, "layout", link, sink, emulated=config.kind != "serial",
                         scheduler=scheduler)
        self._config = config
        self._lock = threading.Lock()
        self._lamps = dict.fromkeys(config.lamps, LampMode.OFF)
        self._spots = {spot: name for name, spot in config.bet_sensors.items()}
        self._buttons = {button: name for name, button in config.buttons.items()}
        self._inputs = dict.fromkeys(config.inputs(), False)
        self._sensors_told = False
        """Whether every bet sensor's state was reported once (at the first connection)."""
        self._board.on_connected = self._reconcile
        self._board.handle("bet_sensor", self._on_bet_sensor)
        self._board.handle("button", self._on_button)
        self._board.handle("key_switch", self._on_key_switch)

    # ------------------------------------------------------------ LayoutLamps

    @property
    def lamp_names(self) -> tuple[str, ...]:
        """Every configured lamp."""
        return tuple(self._config.lamps)

    def set_lamp(self, lamp: str, state: LampMode) -> None:
        """Set one lamp; remembered and shown again after a reconnect.

        Raises:
            DriverError: Unknown lamp, or the board is not connected (the lamp is set as
                soon as it is back).
        """
        if lamp not in self._lamps:
            raise DriverError(self.name, f"lamps: no lamp named {lamp!r}")
        with self._lock:
            self._lamps[lamp] = LampMode(state)
        self._send_lamp(lamp, LampMode(state))

    def all_safe(self) -> None:
        """Every lamp off."""
        with self._lock:
            self._lamps = dict.fromkeys(self._lamps, LampMode.OFF)
        for lamp in self._lamps:
            self._send_lamp(lamp, LampMode.OFF)

    # ------------------------------------------------------------ LayoutInputs

    @property
    def input_names(self) -> tuple[str, ...]:
        """Every configured input."""
        return tuple(self._inputs)

    def input_states(self) -> Mapping[str, bool]:
        """The last known state of every input."""
        with self._lock:
            return dict(self._inputs)

    # ------------------------------------------------------------ internals

    def _send_lamp(self, lamp: str, state: LampMode) -> None:
        if not self._board.up:
            raise DeviceUnavailableError(self.name, f"lamps.{lamp}: the board is not connected; "
                                         "it is set when the board is back")
        self._board.send("set_lamp", lamp=self._config.lamps[lamp], mode=LAMP_MODES[state])

    def _reconcile(self, board: BoardConnection) -> None:
        board.send("set_lamp_pattern", pattern="none")
        with self._lock:
            lamps = dict(self._lamps)
        for lamp, state in lamps.items():
            board.send("set_lamp", lamp=self._config.lamps[lamp], mode=LAMP_MODES[state])
        reply = board.request("get_input_state")
        covered, pressed = reply.int("covered"), reply.int("pressed")
        for spot, name in self._spots.items():
            # The first time, every spot is told (chips lying there since before the host
            # started, or none where the host last knew some); after a reconnect, changes.
            self._set_input(name, bool(covered >> spot & 1), report=True,
                            always=not self._sensors_told)
        self._sensors_told = True
        for button, name in self._buttons.items():
            self._set_input(name, bool(pressed >> button & 1), report=False)
        self._set_key(reply.text("position"))

    def _set_input(self, name: str, active: bool, report: bool, always: bool = False) -> bool:
        with self._lock:
            changed = self._inputs[name] != active
            self._inputs[name] = active
        if (changed or always) and report:
            self._sink(BetSensorChanged(self.name, name, active, self._clock.now()))
        return changed

    def _set_key(self, position: str) -> None:
        with self._lock:
            before = [name for name, _ in BOARD_KEY_POSITIONS if self._inputs.get(name)]
            for name, _ in BOARD_KEY_POSITIONS:
                self._inputs[name] = name == position
        if before != ([] if position == KEY_NORMAL else [position]):
            self._sink(KeySwitchTurned(self.name, position, self._clock.now(),
                                       key=self.key_switch_name, authenticated=self.authenticated))

    @property
    def key_switch_name(self) -> str:
        """Which key switch reports: this board's, named by its pairing key (for the journal)."""
        pairing = self._board.pairing
        how = f"key {pairing.key_id}" if pairing is not None else "UNAUTHENTICATED"
        return f"{self.name} board key switch, {how}"

    def _on_bet_sensor(self, message: Message) -> None:
        name = self._spots.get(message.int("spot"))
        if name is None:
            _LOG.warning("%s: bet sensor on unconfigured spot %d", self.name, message.int("spot"))
            return
        self._set_input(name, message.flag("covered"), report=True)

    def _on_button(self, message: Message) -> None:
        name = self._buttons.get(message.int("button"))
        if name is None:
            _LOG.warning("%s: unconfigured button %d", self.name, message.int("button"))
            return
        pressed = message.flag("pressed")
        if self._set_input(name, pressed, report=False) and pressed:
            self._sink(ButtonPressed(self.name, name, self._clock.now()))

    def _on_key_switch(self, message: Message) -> None:
        self._set_key(message.text("position"))
