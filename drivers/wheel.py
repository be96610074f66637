"""The automated roulette wheel's result feed on RS-232, read with pyserial (`drivers/WHEEL.md`).

The wheel is a vendor's device, not one of the table's boards: it streams ASCII lines of its
own (Cammegh SlingShot and Mercury `*X;...` status lines and the bare winning-number line),
so this driver opens the serial port itself and turns the lines into
facts with `drivers.wheel_protocol.WheelTracker`: `WheelStatus` on every change, one
`WheelResult` per game, `WheelVoid`, `WheelWarning`, and `DeviceFault` when the wheel
contradicts itself. `LinkUp` comes with the first line that fits the grammar, `LinkDown` when
nothing that fits it came for `timeout_ms` (a wheel streams its status every 500 ms) or the
port is lost; the driver reopens a lost port by itself. A line that fits no grammar is
dropped with one log line naming the device and the text, and warned `garbled_line`.

It writes one command, and only to a wheel in user-start mode (`launch = "host"`): `launch()`
sends the start command `*u 1`, which fires the ball of the game waiting in place your bets.
The wheel's reply (`*u OK`, or `*u NO`) is logged like every other packet: the game's status
lines are what the table acts on.

Config::

    [devices.wheel]
    kind = "serial"              # serial | emulated
    url = "/dev/roulette-wheel"  # any pyserial URL
    baud = 9600                  # the wheel's 9600 8N1, no flow control
    timeout_ms = 3000
"""

from __future__ import annotations

import errno
import logging
import threading
from typing import Any, Final

import serial

from drivers.config import WheelConfig
from drivers.errors import DeviceConfigError, DeviceUnavailableError
from drivers.events import (
    DeviceFault,
    DriverEvent,
    EventSink,
    LinkDown,
    LinkUp,
    WheelWarning,
)
from drivers.timing import MonotonicScheduler, Scheduler, Timer
from drivers.wheel_protocol import LineSplitter, OtherPacket, WheelTracker
from firmware_bridge.transport import port_holder

_LOG = logging.getLogger(__name__)
READ_TICK: Final = 0.05
"""How long one read waits for a byte (the reader thread's stop latency)."""
RECONNECT_INTERVAL: Final = 0.5
LAUNCH_COMMAND: Final = b"*u 1\r\n"
"""A SlingShot's start command (clockwise); `*u OK` is its reply."""
PARITIES: Final = {"none": serial.PARITY_NONE, "even": serial.PARITY_EVEN,
                   "odd": serial.PARITY_ODD}


class SerialWheel:
    """A `WheelFeed` on a serial port.

    Args:
        config: The validated `[devices.wheel]` section.
        sink: Where the facts go (the controller passes its loop's `post`).
        emulated: True when the port is an emulator's (status then says EMULATED).
        scheduler: Clock for the facts' times and the silence check.
        url: The port to open instead of the configured one (an emulator's pty).
    """

    def __init__(self, config: WheelConfig, sink: EventSink, *, emulated: bool = False,
                 scheduler: Scheduler | None = None, url: str | None = None) -> None:
        self._config = config
        self._sink = sink
        self._emulated = emulated
        self._scheduler = scheduler or MonotonicScheduler()
        self._url = url or config.url
        self.tracker = WheelTracker(config.name, self._scheduler.now,
                                    expect_number_line=config.number_line,
                                    no_ball_lines=config.no_ball_lines, dialect=config.dialect)
        self._splitter = LineSplitter()
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._handled = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._port: Any = None
        self._thread: threading.Thread | None = None
        self._timer: Timer | None = None
        self._link_up = False
        self._last_heard = 0.0
        self.bytes_handled = 0
        """Bytes read and fully handled (their facts already given to the sink)."""

    # ------------------------------------------------------------------ Device
    @property
    def name(self) -> str:
        """The configured device name."""
        return self._config.name

    @property
    def emulated(self) -> bool:
        """True on an emulator's port."""
        return self._emulated

    @property
    def link_up(self) -> bool:
        """True while lines that fit the grammar keep coming."""
        with self._lock:
            return self._link_up

    @property
    def url(self) -> str:
        """The port this driver reads."""
        return self._url

    def start(self) -> None:
        """Open the port and start reading (nothing is sent to the wheel until a launch).

        Raises:
            DeviceUnavailableError: The port cannot be opened (named, with the reason).
        """
        if self._thread is not None:
            return
        self._port = self._open()
        self._last_heard = self._scheduler.now()
        self._stop.clear()
        self._thread = threading.Thread(target=self._read_forever, name=f"wheel-{self.name}",
                                        daemon=True)
        self._thread.start()
        self._watch()

    def launch(self) -> None:
        """Start the game waiting in place your bets (`*u 1`): a user-start wheel only.

        Raises:
            DeviceConfigError: The wheel launches its games itself (`launch = "wheel"`).
            DeviceUnavailableError: The port is not open, or the write failed.
        """
        if self._config.launch != "host":
            raise DeviceConfigError(self.name, "launch", "the wheel launches each game itself "
                                    "(arcade mode); set launch = \"host\" for a wheel in "
                                    "user-start mode")
        port = self._port
        if port is None:
            raise DeviceUnavailableError(self.name, f"cannot launch: {self._url} is not open")
        try:
            with self._write_lock:
                port.write(LAUNCH_COMMAND)
                port.flush()
        except (serial.SerialException, OSError) as exc:
            raise DeviceUnavailableError(self.name, f"cannot launch: writing to {self._url} "
                                                    f"failed: {exc}") from exc
        _LOG.info("%s: launch (*u 1) sent", self.name)

    def close(self) -> None:
        """Stop reading and release the port (idempotent)."""
        self._stop.set()
        if self._timer is not None:
            self._timer.cancel()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)
        self._close_port()
        with self._lock:
            self._link_up = False

    # ------------------------------------------------------------------ reading
    def _open(self) -> Any:
        config = self._config
        try:
            return serial.serial_for_url(
                self._url, baudrate=config.line.baud, bytesize=config.line.bytesize,
                parity=PARITIES[config.line.parity], stopbits=config.line.stopbits,
                rtscts=config.line.flow == "rtscts", xonxoff=config.line.flow == "xonxoff",
                timeout=READ_TICK, exclusive=True)
        except serial.SerialException as exc:
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                raise DeviceUnavailableError(self.name, (
                    f"url: {self._url} is in use by {port_holder(self._url) or 'another program'}"
                    "; a port is opened by one program at a time")) from exc
            raise DeviceUnavailableError(self.name, f"url: cannot open {self._url}: "
                                                    f"{exc}") from exc
        except (OSError, ValueError) as exc:
            raise DeviceUnavailableError(self.name, f"url: cannot open {self._url}: "
                                                    f"{exc}") from exc

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError) as exc:
                _LOG.debug("%s: closing the port: %s", self.name, exc)

    def _read_forever(self) -> None:
        while not self._stop.is_set():
            port = self._port
            if port is None:
                self._reopen()
                continue
            try:
                data = port.read(1)
                if data and port.in_waiting:
                    data += port.read(port.in_waiting)
            except (serial.SerialException, OSError, TypeError) as exc:
                self._lost(f"the port failed: {exc}")
                continue
            if data:
                self.handle_bytes(data)

    def _reopen(self) -> None:
        if self._stop.wait(RECONNECT_INTERVAL):
            return
        try:
            self._port = self._open()
            _LOG.info("%s: port %s open again", self.name, self._url)
        except DeviceUnavailableError as exc:
            _LOG.debug("%s", exc)

    def _lost(self, reason: str) -> None:
        self._close_port()
        self._splitter = LineSplitter()
        self._down(reason)

    def handle_bytes(self, data: bytes) -> None:
        """Handle bytes read from the wheel: lines to facts, facts to the sink (reader thread)."""
        for text in self._splitter.feed(data):
            self._line(text)
        with self._handled:
            self.bytes_handled += len(data)
            self._handled.notify_all()

    def wait_handled(self, count: int, timeout: float) -> bool:
        """Wait until `count` bytes have been handled (their facts given to the sink).

        Returns:
            False when `timeout` seconds passed first.
        """
        with self._handled:
            return self._handled.wait_for(lambda: self.bytes_handled >= count, timeout)

    def _line(self, text: str) -> None:
        facts = self.tracker.feed(text)
        line = self.tracker.last_line
        if line is not None:
            self._heard()
        if isinstance(line, OtherPacket):
            _LOG.info("%s: packet %r ignored (a reply, an echo or a setting)", self.name, text)
        for fact in facts:
            self._report(fact)

    def _report(self, fact: DriverEvent) -> None:
        if isinstance(fact, WheelWarning) and fact.warning == "garbled_line":
            _LOG.warning("%s: %s", self.name, fact.detail)
        elif isinstance(fact, DeviceFault):
            _LOG.error("%s: %s", self.name, fact.reason)
        self._sink(fact)

    # ------------------------------------------------------------------ link state
    def _heard(self) -> None:
        with self._lock:
            self._last_heard = self._scheduler.now()
            was_up, self._link_up = self._link_up, True
        if not was_up:
            self._sink(LinkUp(self.name, f"reading {self._url}", self._scheduler.now()))

    def _down(self, reason: str) -> None:
        with self._lock:
            was_up, self._link_up = self._link_up, False
        if was_up:
            _LOG.warning("%s: link down: %s", self.name, reason)
            self._sink(LinkDown(self.name, reason, self._scheduler.now()))

    def _watch(self) -> None:
        """Check for silence a few times per timeout, until closed."""
        timeout = self._config.timeout_ms / 1000

        def check() -> None:
            if self._stop.is_set():
                return
            with self._lock:
                silent = self._scheduler.now() - self._last_heard
            if silent >= timeout:
                self._down(f"no line from the wheel for {self._config.timeout_ms} ms")
            self._timer = self._scheduler.call_later(timeout / 4, check)

        self._timer = self._scheduler.call_later(timeout / 4, check)
