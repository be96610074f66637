"""In-memory wiring of a host and a board endpoint, for deterministic tests and simulations.

`LinkedPair` joins a `HostEndpoint` and a `DeviceEndpoint` with two simulated wires under one
`FakeClock`: no threads, no ports, no sleeping. Each `Wire` can delay its bytes and pass
every frame through a fault function; `RandomFaults` loses, duplicates, corrupts and
reorders frames with seeded randomness, so every run is repeatable.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.device import DeviceEndpoint
from firmware_bridge.faults import flip_bit, frame_kind
from firmware_bridge.framing import FrameKind
from firmware_bridge.host import HostEndpoint
from tests.support.clock import FakeClock

_SESSION_KINDS = frozenset({FrameKind.RESET, FrameKind.RESET_ACK, FrameKind.NO_SESSION})
FrameFault = Callable[[bytes], list[bytes]]
"""Turns one wire frame into what actually arrives: [] loses it, two items duplicate it."""


def split_frames(data: bytes) -> list[bytes]:
    """Split wire bytes into frames, each keeping its 0x00 (a trailing partial one too)."""
    parts = data.split(b"\x00")
    frames = [part + b"\x00" for part in parts[:-1]]
    return frames + ([parts[-1]] if parts[-1] else [])


class Wire:
    """One direction of a simulated serial line.

    Args:
        clock: the shared fake clock.
        latency: seconds between writing a frame and its arrival.
        fault: applied to every frame written (default: none).
    """

    def __init__(
        self, clock: FakeClock, latency: float = 0.0, fault: FrameFault | None = None
    ) -> None:
        self._clock = clock
        self._latency = latency
        self.fault = fault
        self._in_transit: list[tuple[float, bytes]] = []
        self.bytes_carried = 0

    def put(self, data: bytes) -> None:
        """Write `data` into the line."""
        due = self._clock() + self._latency
        for frame in split_frames(data):
            for arriving in self.fault(frame) if self.fault else [frame]:
                self._in_transit.append((due, arriving))

    def take(self) -> bytes:
        """Return the bytes that have arrived by now."""
        now = self._clock()
        arrived = [data for due, data in self._in_transit if due <= now]
        self._in_transit = [(due, data) for due, data in self._in_transit if due > now]
        self.bytes_carried += sum(map(len, arrived))
        return b"".join(arrived)


@dataclass
class RandomFaults:
    """A seeded `FrameFault` that loses, duplicates, corrupts and reorders frames.

    Attributes:
        seed: makes the sequence of faults repeatable.
        loss: probability a frame is lost.
        duplicate: probability a frame arrives twice.
        corrupt: probability one bit of a frame is flipped.
        reorder: probability a frame is held back and arrives after the next one (never
            across a RESET, RESET_ACK or NO_SESSION: a real line is FIFO, and sessions rely
            on it).
    """

    seed: int = 0
    loss: float = 0.0
    duplicate: float = 0.0
    corrupt: float = 0.0
    reorder: float = 0.0

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)
        self._held: bytes | None = None

    def __call__(self, frame: bytes) -> list[bytes]:
        """Return what arrives for `frame`."""
        chance = self._random.random
        if chance() < self.loss:
            return []
        if chance() < self.corrupt:
            frame = flip_bit(frame, self._random.randrange(len(frame)), self._random.randrange(8))
        out = [frame, frame] if chance() < self.duplicate else [frame]
        if frame_kind(frame) in _SESSION_KINDS:
            # A serial line is FIFO: nothing of an old session may pass a session change.
            held, self._held = self._held, None
            return ([held] if held else []) + out
        if self._held is not None:
            out.append(self._held)
            self._held = None
        elif chance() < self.reorder:
            self._held, out = out[-1], out[:-1]
        return out


class LinkedPair:
    """A host endpoint and a board endpoint joined by two `Wire`s.

    Args:
        host: the host's engine (not yet started).
        device: the board's engine (not yet started).
        clock: the fake clock both were built with.
        to_board: the host-to-board wire (default: perfect, no latency).
        to_host: the board-to-host wire (default: perfect, no latency).
    """

    def __init__(
        self, host: HostEndpoint, device: DeviceEndpoint, clock: FakeClock, *,
        to_board: Wire | None = None, to_host: Wire | None = None,
    ) -> None:
        self.host = host
        self.device = device
        self.clock = clock
        self.to_board = to_board or Wire(clock)
        self.to_host = to_host or Wire(clock)
        self.board_connected = True

    def start(self) -> None:
        """Power the board up and start the host."""
        self.device.start()
        self.host.start()
        self.step()

    def step(self) -> None:
        """Move bytes both ways and run both endpoints' timers once."""
        self.host.poll()
        self.device.poll()
        self.to_board.put(self.host.take_output())
        self.to_host.put(self.device.take_output())
        data = self.to_board.take()
        if data and self.board_connected:
            self.device.feed(data)
        data = self.to_host.take()
        if data:
            self.host.feed(data)
        self.to_board.put(self.host.take_output())
        self.to_host.put(self.device.take_output())

    def run(self, seconds: float, tick: float = 0.005) -> None:
        """Let `seconds` of fake time pass, stepping every `tick`."""
        end = self.clock() + seconds
        while self.clock() < end:
            self.clock.advance(min(tick, end - self.clock()))
            self.step()

    def run_until(self, done: Callable[[], bool], timeout: float, tick: float = 0.005) -> bool:
        """Step until `done()` is true or `timeout` fake seconds pass; return `done()`."""
        end = self.clock() + timeout
        while not done() and self.clock() < end:
            self.clock.advance(tick)
            self.step()
        return done()
