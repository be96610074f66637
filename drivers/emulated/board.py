"""What every byte-level board emulator shares: the board's protocol engine behind a real port.

A `BoardEmulator` runs `firmware_bridge.device.DeviceEndpoint` (identify, authentication
and link layer as the board, counted events, failsafe) on a `DeviceRunner` thread, behind a
real pseudo-terminal (`PtyPort`, with a stable symlink) or an emulated USB device
(`EmulatedUsbDevice`). It holds the pairing key it is given (`pairing`), or none (auth mode
`none`). The shoe, layout and sign emulators add what their board is for on top.

Fault stimulus (both directions, byte level):
    `faults` (the endpoint's `FaultInjector`: `drop_next`, `corrupt_next`, `duplicate_next`,
    `delay_next`, `go_silent`, `resume`, `inject_raw`) acts on frames the board sends;
    `set_fault_rates(corrupt=, drop=, seed=)` corrupts and drops that share of frames at
    random in each direction (host -> board frames too); `send_garbage(data)` writes raw
    bytes; `unplug()` / `replug()` pull and reconnect the cable (the board keeps power and
    its unacknowledged events); `restart()` cuts the board's power (a new boot id, its
    events lost).

Observation:
    `path` (what the host opens), `stats()` (the endpoint's counters), `failsafe`,
    `inbound` (frames from the host dropped/corrupted by `set_fault_rates`), and
    `wait_until(condition, timeout)`, which re-checks a condition after every cycle of the
    board (no blind sleeping); `write_observer`, called with every chunk written to the
    pty just before it is written (for latency measurements).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from drivers.board import table_catalogue
from drivers.emulated.pty import PtyPort
from drivers.emulated.usb import EmulatedUsbDevice
from firmware_bridge.auth import PairingKey
from firmware_bridge.catalogue import Catalogue
from firmware_bridge.clock import Clock, monotonic
from firmware_bridge.device import DeviceEndpoint, DeviceIdentity, DeviceStats
from firmware_bridge.events import DEFAULT_CAPACITY
from firmware_bridge.faults import FaultInjector, flip_bit
from firmware_bridge.link import LinkTiming
from firmware_bridge.runner import DeviceRunner

FIRMWARE_VERSION: Final = "emulated-1.0"


class RandomFaults(FaultInjector):
    """The endpoint's fault injector plus random corruption and loss at a given rate."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock)
        self._random = random.Random(0)
        self.corrupt_rate = 0.0
        self.drop_rate = 0.0

    def set_rates(self, corrupt: float, drop: float, seed: int) -> None:
        """Corrupt and drop these shares of outgoing frames from now on (0 turns it off)."""
        self._random = random.Random(seed)
        self.corrupt_rate, self.drop_rate = corrupt, drop

    def apply(self, frames: list[bytes]) -> list[bytes]:
        """Apply the random faults, then the ordered ones."""
        return super().apply([kept for wire in frames if (kept := self.roll(wire)) is not None])

    def roll(self, wire: bytes) -> bytes | None:
        """One frame after the dice: unchanged, corrupted, or None (dropped)."""
        if not (self.corrupt_rate or self.drop_rate):
            return wire
        draw = self._random.random()
        if draw < self.drop_rate:
            return None
        if draw < self.drop_rate + self.corrupt_rate:
            return flip_bit(wire, self._random.randrange(max(1, len(wire) - 1)),
                            self._random.randrange(8))
        return wire


@dataclass
class InboundStats:
    """Frames from the host that `set_fault_rates` interfered with."""

    frames: int = 0
    dropped: int = 0
    corrupted: int = 0


class _BytePipe:
    """A `firmware_bridge.runner.BytePort` over a callback-driven port (pty or USB)."""

    def __init__(self, write: Callable[[bytes], None], faults: RandomFaults,
                 stats: InboundStats, progress: threading.Condition) -> None:
        self._write = write
        self._progress = progress
        self._faults = faults
        self._stats = stats
        self._ready = threading.Condition()
        self._buffer = bytearray()
        self._partial = bytearray()
        self._kicked = False

    def arrive(self, data: bytes) -> None:
        """Bytes from the host: whole frames pass the dice, then wait for the runner."""
        with self._ready:
            self._partial += data
            *frames, rest = bytes(self._partial).split(b"\x00")
            self._partial = bytearray(rest)
            for frame in frames:
                self._buffer += self._inbound(frame + b"\x00")
            self._ready.notify()

    def _inbound(self, wire: bytes) -> bytes:
        self._stats.frames += 1
        kept = self._faults.roll(wire)
        if kept is None:
            self._stats.dropped += 1
            return b""
        self._stats.corrupted += kept != wire
        return kept

    def kick(self) -> None:
        """End the runner's current wait at once (the board has something to send)."""
        with self._ready:
            self._kicked = True
            self._ready.notify()

    def read(self, timeout: float) -> bytes:
        """What has arrived, waiting at most `timeout` seconds (or until kicked)."""
        # The runner reads at the start of each cycle, after handling the previous bytes:
        # the moment for observers waiting on the board's state to look again.
        with self._progress:
            self._progress.notify_all()
        with self._ready:
            self._ready.wait_for(lambda: bool(self._buffer) or self._kicked, timeout)
            data, self._buffer, self._kicked = bytes(self._buffer), bytearray(), False
            return data

    def write(self, data: bytes) -> None:
        """Bytes to the host."""
        self._write(data)

    def close(self) -> None:
        """The port is closed by its owner."""


class BoardEmulator:
    """A board's firmware twin behind a pty (or an emulated USB device).

    Args:
        board_kind: Which catalogue board this is (`shoe`, `layout`, `sign`).
        name: Port name (the symlink in `link_dir`).
        link_dir: Directory for the port's stable symlink (a temporary one by default).
        usb: Serve this emulated USB device instead of a pty.
        identity: What to answer to `identify` (a wrong hash or version tests refusal).
        timing: Link timing (must suit the host's).
        catalogue: The message catalogue (`drivers/catalogue.toml` by default).
        clock: Monotonic seconds.
        pairing: The pairing key the board holds; None for a board without one (auth mode
            `none`, which a host accepts only where it is configured so).
        event_capacity: Counted events the board keeps unacknowledged (the protocol's
            minimum, 64, by default).
    """

    def __init__(self, board_kind: str, *, name: str | None = None,  # noqa: PLR0913 - independent options
                 link_dir: Path | None = None, usb: EmulatedUsbDevice | None = None,
                 identity: DeviceIdentity | None = None, timing: LinkTiming | None = None,
                 catalogue: Catalogue | None = None, clock: Clock = monotonic,
                 pairing: PairingKey | None = None,
                 event_capacity: int = DEFAULT_CAPACITY) -> None:
        board = (catalogue or table_catalogue()).board(board_kind)
        self.clock = clock
        self.identity = identity or DeviceIdentity(FIRMWARE_VERSION)
        self.endpoint = DeviceEndpoint(board, self.identity, clock, timing=timing,
                                       pairing=pairing, event_capacity=event_capacity)
        self.faults = RandomFaults(clock)
        self.endpoint.faults = self.faults
        self.inbound = InboundStats()
        self.usb = usb
        write = usb.send if usb else self._pty_write
        self._progress = threading.Condition()
        self._pipe = _BytePipe(write, self.faults, self.inbound, self._progress)
        self._pty = None if usb else PtyPort(self._pipe.arrive, name=name or board_kind,
                                             link_dir=link_dir)
        if usb is not None:
            usb.on_receive = self._pipe.arrive
        self._runner: DeviceRunner | None = None
        self.write_observer: Callable[[bytes], None] | None = None

    @property
    def firmware_version(self) -> str:
        """The firmware version the board reports in its handshake."""
        return self.identity.firmware_version

    @property
    def pairing(self) -> PairingKey | None:
        """The pairing key the board holds (None: auth mode `none`)."""
        return self.endpoint.pairing

    @property
    def path(self) -> str:
        """The serial port path the host opens ("" for a USB emulator)."""
        return self._pty.path if self._pty else ""

    @property
    def tty_path(self) -> str:
        """The pseudo-terminal the symlink points at now ("" for a USB emulator)."""
        return self._pty.tty_path if self._pty else ""

    @property
    def failsafe(self) -> bool:
        """True while the board shows its failsafe state."""
        return self.endpoint.failsafe

    def start(self) -> BoardEmulator:
        """Power the board up and open its port; returns self."""
        if self._pty is not None:
            self._pty.open()
        self._runner = DeviceRunner(self.endpoint, self._pipe).start()
        return self

    def close(self) -> None:
        """Power down and remove the port (idempotent)."""
        if self._runner is not None:
            self._runner.stop()
            self._runner = None
        if self._pty is not None:
            self._pty.close()

    def __enter__(self) -> BoardEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ fault stimulus

    def set_fault_rates(self, corrupt: float = 0.0, drop: float = 0.0, seed: int = 1) -> None:
        """Corrupt and drop these shares of frames, in both directions, from now on."""
        self.faults.set_rates(corrupt, drop, seed)

    def send_garbage(self, data: bytes) -> None:
        """Write raw bytes to the host ahead of the next frame."""
        self.faults.inject_raw(data)

    def unplug(self) -> None:
        """Pull the cable: the port vanishes; the board keeps power and pending events."""
        if self.usb is not None:
            self.usb.unplug()
        elif self._pty is not None:
            self._pty.unplug()

    def restart(self) -> None:
        """The board loses power and starts again (the cable stays in).

        A new boot id, its unacknowledged events lost, counts from 1, failsafe, and no
        session: the host must open a new one.
        """
        self.endpoint.reboot()
        self.send_now()

    def swap(self, pairing: PairingKey | None) -> None:
        """Another board takes this one's place on the same line, the port staying open.

        It holds `pairing` (None: no key): a board swapped or re-flashed, or a forger
        without the key. It starts as after a power cut: a new boot id, no session.
        """
        self.endpoint.reflash(pairing)
        self.send_now()

    def replug(self) -> None:
        """Plug the cable back in (same port name)."""
        if self.usb is not None:
            self.usb.replug()
        elif self._pty is not None:
            self._pty.open()

    @property
    def plugged(self) -> bool:
        """True while the cable is in."""
        if self.usb is not None:
            return self.usb.plugged
        return self._pty is not None and self._pty.plugged

    def stats(self) -> DeviceStats:
        """The endpoint's counters."""
        return self.endpoint.stats()

    def send_now(self) -> None:
        """Have the board write what it has queued now rather than at its next tick.

        A real board sends an event the moment it happens; the runner thread otherwise
        only looks for output between waits for the host's bytes.
        """
        self._pipe.kick()

    def wait_until(self, condition: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until `condition()` holds, re-checking after every cycle of the board.

        Returns:
            False if it still does not hold after `timeout` seconds.
        """
        with self._progress:
            return self._progress.wait_for(condition, timeout)

    def _tick_ms(self) -> int:
        """The board's millisecond tick (`tick_ms` fields): its clock, wrapping at 2**32."""
        return int(self.clock() * 1000) & 0xFFFF_FFFF

    def _pty_write(self, data: bytes) -> None:
        if self.write_observer is not None:
            self.write_observer(data)
        if self._pty is not None:
            self._pty.write(data)
