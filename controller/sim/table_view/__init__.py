"""The live table view of `shoectl simulate` on a terminal: what the table shows, as it plays.

It is a public screen, like the layout's lamps and the progressive sign (R5, R17): every
figure on it is something anyone standing at the table can see. A `Snapshot` is taken from
the runtime's public view (lamps, sign and dealer display as last applied to the devices),
the procedure's public queries (whose card or decision is due), the cards lying face up on
the layout with a `??` for each one face down (the model's `camera_layout`, the same picture
the overhead camera is checked against), the seats' wagers, and the settled round record.
The dealer's hole card is never read: until the procedure turns it over, the dealer's hand is
the up card and `??`. Player decisions are remembered from the procedure's decision steps
(never its card steps) as each one is taken.

`render` turns a snapshot into lines of text (ANSI styling optional); `LiveView` redraws them
in place on a terminal at most `fps` times a second, and paces the table (`pace` seconds a
card, a short pause on each settled round) only so that a person can follow it. Nothing here
changes what the table does: the view reads, it never fires a trigger.

One module a job: `snapshot` (the rows a frame is made of, a round's net), `public` (taking a
snapshot from the table), `blackjack` and `baccarat` (each family's rows and what it notes
after a step), `families` (each family's parts, chosen by the family's key), `memory` (what
the view remembers between frames), `frame` (a snapshot as styled lines), `seats` (the seat
table), `text` (styled segments and their painting) and `terminal` (the live redraw and the
pacing).
"""

from controller.sim.table_view.baccarat import drawing_rules
from controller.sim.table_view.blackjack import BONUS_LABELS, DECISION_LABELS
from controller.sim.table_view.families import LAMPS, take_note
from controller.sim.table_view.frame import frame_lines, render
from controller.sim.table_view.memory import Memory
from controller.sim.table_view.public import capture
from controller.sim.table_view.seats import SHORT_NAMES, WAGER_ORDER, seat_table
from controller.sim.table_view.snapshot import (
    HIDDEN,
    HandRow,
    SeatRow,
    ShoeLayout,
    SideRow,
    Snapshot,
    Totals,
    players_net,
)
from controller.sim.table_view.terminal import (
    CLEAR_BELOW,
    CLEAR_SCREEN,
    CLEAR_TO_EOL,
    DEFAULT_FPS,
    DEFAULT_PACE,
    FALLBACK_SIZE,
    HIDE_CURSOR,
    HOME,
    ROUND_HOLD_CARDS,
    SHOW_CURSOR,
    LiveView,
    Pause,
    terminal_size,
)
from controller.sim.table_view.text import STYLES, Segment, TextLine, paint

__all__ = [
    "BONUS_LABELS", "CLEAR_BELOW", "CLEAR_SCREEN", "CLEAR_TO_EOL", "DECISION_LABELS",
    "DEFAULT_FPS", "DEFAULT_PACE", "FALLBACK_SIZE", "HIDDEN", "HIDE_CURSOR", "HOME", "LAMPS",
    "ROUND_HOLD_CARDS", "SHORT_NAMES", "SHOW_CURSOR", "STYLES", "WAGER_ORDER", "HandRow",
    "LiveView", "Memory", "Pause", "SeatRow", "Segment", "ShoeLayout", "SideRow", "Snapshot",
    "TextLine", "Totals", "capture", "drawing_rules", "frame_lines", "paint", "players_net",
    "render", "seat_table", "take_note", "terminal_size"]
