"""Frames refused on the boards' lines, counted, journalled and shown (PROTOCOL.md 4.4).

Every frame a board link refuses (a wrong tag, a replay, a counter no sender may use, another
auth mode, a bad CRC) is counted by its driver (`drivers.board.FrameFaults`). The table reads
those counters every `CHECK_EVERY_S` and groups what it finds into **bursts**: bad frames on
one line with less than `QUIET_S` between checks that found some. A burst ends after
`QUIET_S` without a new bad frame (or, for one that goes on, every `MAX_BURST_S`), and then
is one journal record and one warning line, never one per frame:

    link:bad_frames {"device": "shoe", "frames": {"bad_mac": 12, "replayed": 6, ...},
                     "seconds": 0.4, "since_start": {"bad_mac": 12, ...}}

A burst of at least `ALARM_FRAMES` frames also puts `bad_frames:<device>` in the table's
fault area (the dealer's console and the pit view) for `ALARM_HOLD_S` after its last frame:
frames failing their checks in numbers mean a damaged cable, or someone on the line. The
table goes on: a refused frame was never delivered (a forged card cannot reach a round).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from controller.procedure.core.effects import Effect, Journal, OpLog
from drivers.board import FrameFaults

CHECK_EVERY_S: Final = 1.0
QUIET_S: Final = 2.0
MAX_BURST_S: Final = 30.0
ALARM_FRAMES: Final = 10
ALARM_HOLD_S: Final = 600.0
WHAT_FAILED: Final = {"bad_mac": "with a wrong tag", "replayed": "replayed",
                      "counter_error": "with a counter no sender may use",
                      "auth_mismatch": "announcing another auth mode", "crc": "damaged (CRC)"}
"""How each counter reads in a sentence."""


@dataclass
class _Burst:
    started: float
    last: float
    frames: FrameFaults


def describe(frames: FrameFaults) -> str:
    """`12 with a wrong tag, 6 replayed` (the counters that are not 0)."""
    return ", ".join(f"{count} {WHAT_FAILED[kind]}"
                     for kind, count in frames.as_dict().items() if count) or "none"


class LinkHealth:
    """The refused-frame counters of the boards' lines, read on the loop thread.

    Args:
        links: Each board's name and how to read its counters (`BoardDriver.frame_faults`).
        clock: Monotonic seconds (the loop's).
    """

    def __init__(self, links: Mapping[str, Callable[[], FrameFaults]],
                 clock: Callable[[], float]) -> None:
        self._links = dict(links)
        self._clock = clock
        self._seen = {name: FrameFaults() for name in self._links}
        self._bursts: dict[str, _Burst] = {}
        self._alarms: dict[str, tuple[float, FrameFaults]] = {}

    def totals(self) -> dict[str, FrameFaults]:
        """Every line's refused frames since the table started (as last read)."""
        return dict(self._seen)

    def check(self) -> list[Effect]:
        """Read every line's counters; the records of the bursts that ended."""
        now = self._clock()
        effects: list[Effect] = []
        for name, read in self._links.items():
            current = read()
            fresh, self._seen[name] = current - self._seen[name], current
            burst = self._bursts.get(name)
            if fresh.total:
                if burst is None:
                    burst = self._bursts[name] = _Burst(now, now, fresh)
                else:
                    burst.last, burst.frames = now, burst.frames + fresh
            if burst is not None and (now - burst.last >= QUIET_S
                                      or now - burst.started >= MAX_BURST_S):
                del self._bursts[name]
                effects += self._report(name, burst, current)
        return effects

    def alarms(self) -> dict[str, str]:
        """The lines to show in the fault area now, each with what failed there."""
        now = self._clock()
        for name in [n for n, (last, _) in self._alarms.items() if now - last >= ALARM_HOLD_S]:
            del self._alarms[name]
        return {name: f"{frames.total} frames refused on its line: {describe(frames)}"
                for name, (_, frames) in sorted(self._alarms.items())}

    def _report(self, name: str, burst: _Burst, total: FrameFaults) -> list[Effect]:
        if burst.frames.total >= ALARM_FRAMES:
            self._alarms[name] = (burst.last, burst.frames)
        record = {"device": name, "frames": burst.frames.as_dict(),
                  "seconds": round(burst.last - burst.started, 1),
                  "since_start": total.as_dict()}
        return [Journal("link:bad_frames", record),
                OpLog(f"{name}: {burst.frames.total} frames refused on its line "
                      f"({describe(burst.frames)}); {total.total} since the table started",
                      "warning")]
