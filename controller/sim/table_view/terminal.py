"""The live view on a terminal: frames redrawn in place, throttled, and the dealer paced.

`LiveView` redraws at most `fps` times a second and paces the table (`pace` seconds a card,
a short pause on each settled round) only so that a person can follow it. Nothing here
changes what the table does: the view reads, it never fires a trigger.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import Final, TextIO

from controller.service.runtime import TableRuntime
from controller.sim.table_view.families import take_note
from controller.sim.table_view.frame import frame_lines
from controller.sim.table_view.memory import Memory
from controller.sim.table_view.public import capture
from controller.sim.table_view.snapshot import ShoeLayout, Snapshot
from controller.sim.table_view.text import paint

DEFAULT_PACE: Final = 0.012
"""Seconds per card on a terminal: `make demo`'s 100 rounds stay well under a minute."""
ROUND_HOLD_CARDS: Final = 12
"""A settled round stays on screen as long as this many cards take to deal."""
DEFAULT_FPS: Final = 15.0
FALLBACK_SIZE: Final = (100, 30)

CLEAR_TO_EOL: Final = "\x1b[K"
HOME: Final = "\x1b[H"
CLEAR_BELOW: Final = "\x1b[J"
CLEAR_SCREEN: Final = "\x1b[2J"
HIDE_CURSOR: Final = "\x1b[?25l"
SHOW_CURSOR: Final = "\x1b[?25h"


def terminal_size() -> tuple[int, int]:
    """(columns, lines) of the terminal, or `FALLBACK_SIZE` when it cannot be told."""
    size = shutil.get_terminal_size(FALLBACK_SIZE)
    return size.columns, size.lines


Pause = Callable[[float], None]
"""Waits this many seconds while the table's loop keeps handling device events."""


class LiveView:
    """Redraws the table in place on a terminal, throttled, and paces the dealer.

    Call `after_step` after every dealer or player action (on the loop thread); `close` at
    the end (it draws the last frame and shows the cursor again).

    Args:
        runtime: The table.
        out: The terminal.
        shoe: The shoe's size and cut card.
        pace: At least this many seconds per card (0: as fast as the table goes).
        wait: How to wait without stalling the table's devices.
        fps: At most this many frames a second.
        clock: Monotonic clock (seconds).
        size: Terminal size (columns, lines).
    """

    def __init__(self, runtime: TableRuntime, out: TextIO, shoe: ShoeLayout, *,
                 pace: float = DEFAULT_PACE, wait: Pause = time.sleep,
                 fps: float = DEFAULT_FPS, clock: Callable[[], float] = time.monotonic,
                 size: Callable[[], tuple[int, int]] | None = None) -> None:
        self.runtime, self.out, self.shoe = runtime, out, shoe
        self.pace, self.wait, self.clock = pace, wait, clock
        self.interval = 1.0 / fps
        self.size = size or terminal_size
        self.memory = Memory.starting(runtime.model)
        self.frames = 0
        self.last_frame = float("-inf")
        self.last_card = float("-inf")
        self.cards_out = runtime.model.shoe.tally.cards_out
        self.settled_round = -1
        self.stale = False

    def snapshot(self) -> Snapshot:
        """The public table state now."""
        return capture(self.runtime, self.memory, self.shoe)

    def after_step(self) -> None:
        """Note what the step changed, redraw if a frame is due, pace a dealt card."""
        model = self.runtime.model
        take_note(self.memory, model)
        dealt = model.shoe.tally.cards_out != self.cards_out
        self.cards_out = model.shoe.tally.cards_out
        if model.round.settled and model.round.number != self.settled_round:
            self.settled_round = model.round.number
            self.draw(force=True)
            self._pause(self.pace * ROUND_HOLD_CARDS)
        else:
            self.draw()
            if dealt:
                self._pause(self.last_card + self.pace - self.clock())
        if dealt:
            self.last_card = self.clock()

    def _pause(self, seconds: float) -> None:
        """Wait `seconds`; a change not drawn yet is drawn as soon as a frame is due."""
        if seconds <= 0:
            return
        end = self.clock() + seconds
        next_frame = self.last_frame + self.interval
        if self.stale and next_frame <= end:
            self.wait(max(0.0, next_frame - self.clock()))
            self.draw(force=True)
        remaining = end - self.clock()
        if remaining > 0:
            self.wait(remaining)

    def draw(self, *, force: bool = False) -> None:
        """Redraw in place if the last frame is old enough (or `force`)."""
        now = self.clock()
        if not force and now - self.last_frame < self.interval:
            self.stale = True
            return
        self.last_frame, self.stale = now, False
        take_note(self.memory, self.runtime.model)
        width, height = self.size()
        lines = paint(frame_lines(self.snapshot(), width), width, color=True)[:max(1, height - 1)]
        start = HIDE_CURSOR + CLEAR_SCREEN if self.frames == 0 else ""
        body = "".join(f"{line}{CLEAR_TO_EOL}\n" for line in lines)
        self.out.write(f"{start}{HOME}{body}{CLEAR_BELOW}")
        self.out.flush()
        self.frames += 1

    def close(self) -> None:
        """Draw the final frame and give the cursor back."""
        try:
            self.draw(force=True)
        finally:
            self.out.write(SHOW_CURSOR)
            self.out.flush()
