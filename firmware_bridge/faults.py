"""Byte-level fault injection on a board's outgoing frames, for emulators and tests.

Each wire frame the board would write passes through `FaultInjector.apply`, which may drop
it, flip a bit in it, send it twice, hold it back for a while, or (while "silent") swallow
everything. Faults can be limited to one frame kind, so a test can, say, lose the next
DATA frame without its heartbeats getting in the way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from firmware_bridge import cobs
from firmware_bridge.clock import Clock
from firmware_bridge.framing import FrameKind


class Fault(StrEnum):
    """What to do to a frame."""

    DROP = "drop"
    CORRUPT = "corrupt"
    DUPLICATE = "duplicate"
    DELAY = "delay"


@dataclass(slots=True)
class _Order:
    fault: Fault
    remaining: int
    kind: FrameKind | None
    seconds: float = 0.0


def frame_kind(wire: bytes) -> FrameKind | None:
    """Return the kind of a complete wire frame, or None if it is not a valid one."""
    try:
        body = cobs.decode(wire.rstrip(b"\x00"))
        return FrameKind(body[1])
    except (ValueError, IndexError):
        return None


def flip_bit(wire: bytes, index: int | None = None, bit: int = 0) -> bytes:
    """Return `wire` with one bit flipped in byte `index` (default: the middle byte).

    The trailing 0x00 delimiter is never touched and a byte never becomes 0x00, so the
    damaged frame stays one frame and the receiver must reject it by its CRC or COBS check.
    """
    data = bytearray(wire)
    last = len(data) - 2 if data.endswith(b"\x00") else len(data) - 1
    position = last // 2 if index is None else min(index, last)
    flipped = data[position] ^ (1 << bit)
    data[position] = flipped if flipped else data[position] ^ (1 << ((bit + 1) % 8))
    return bytes(data)


class FaultInjector:
    """Faults waiting to be applied to a board's outgoing frames; thread-safe.

    Args:
        clock: monotonic seconds (for delays and silence).
    """

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._orders: list[_Order] = []
        self._held: list[tuple[float, bytes]] = []
        self._silent_until: float | None = None
        self._raw: list[bytes] = []
        self.applied: dict[Fault, int] = dict.fromkeys(Fault, 0)

    def drop_next(self, frames: int = 1, kind: FrameKind | None = None) -> None:
        """Lose the next `frames` frames (of `kind`, if given)."""
        self._order(Fault.DROP, frames, kind)

    def corrupt_next(self, frames: int = 1, kind: FrameKind | None = None) -> None:
        """Flip one bit in each of the next `frames` frames (of `kind`, if given)."""
        self._order(Fault.CORRUPT, frames, kind)

    def duplicate_next(self, frames: int = 1, kind: FrameKind | None = None) -> None:
        """Send each of the next `frames` frames (of `kind`, if given) twice."""
        self._order(Fault.DUPLICATE, frames, kind)

    def delay_next(self, seconds: float, frames: int = 1, kind: FrameKind | None = None) -> None:
        """Hold back the next `frames` frames (of `kind`, if given) for `seconds`.

        Later frames are not held, so a delay also reorders frames on the wire.
        """
        self._order(Fault.DELAY, frames, kind, seconds)

    def go_silent(self, seconds: float | None = None) -> None:
        """Write nothing at all for `seconds` (None: until `resume`)."""
        with self._lock:
            self._silent_until = float("inf") if seconds is None else self._clock() + seconds

    def resume(self) -> None:
        """End silence and cancel every fault not yet applied."""
        with self._lock:
            self._silent_until = None
            self._orders.clear()

    @property
    def silent(self) -> bool:
        """True while the board writes nothing."""
        with self._lock:
            return self._is_silent()

    def inject_raw(self, data: bytes) -> None:
        """Write `data` as it is, before the next frame (garbage, half frames, ...)."""
        with self._lock:
            self._raw.append(bytes(data))

    def apply(self, frames: list[bytes]) -> list[bytes]:
        """Return what actually goes on the wire for `frames`, plus held frames now due."""
        with self._lock:
            out, self._raw = self._raw, []
            for wire in frames:
                out += self._one(wire)
            out += self._release_due()
            if self._is_silent():
                return []
            return out

    def _one(self, wire: bytes) -> list[bytes]:
        order = self._take(wire)
        if order is None:
            return [wire]
        self.applied[order.fault] += 1
        actions: dict[Fault, Callable[[], list[bytes]]] = {
            Fault.DROP: list,
            Fault.CORRUPT: lambda: [flip_bit(wire)],
            Fault.DUPLICATE: lambda: [wire, wire],
            Fault.DELAY: lambda: self._hold(wire, order.seconds),
        }
        return actions[order.fault]()

    def _hold(self, wire: bytes, seconds: float) -> list[bytes]:
        self._held.append((self._clock() + seconds, wire))
        return []

    def _release_due(self) -> list[bytes]:
        now = self._clock()
        due = [wire for when, wire in self._held if when <= now]
        self._held = [(when, wire) for when, wire in self._held if when > now]
        return due

    def _take(self, wire: bytes) -> _Order | None:
        kind = frame_kind(wire) if any(o.kind is not None for o in self._orders) else None
        for order in self._orders:
            if order.kind is None or order.kind is kind:
                order.remaining -= 1
                if order.remaining <= 0:
                    self._orders.remove(order)
                return order
        return None

    def _order(
        self, fault: Fault, frames: int, kind: FrameKind | None, seconds: float = 0.0
    ) -> None:
        if frames < 1:
            raise ValueError(f"frames must be at least 1, got {frames}")
        with self._lock:
            self._orders.append(_Order(fault, frames, kind, seconds))

    def _is_silent(self) -> bool:
        if self._silent_until is None:
            return False
        if self._clock() >= self._silent_until:
            self._silent_until = None
            return False
        return True
