"""The live table view of `shoectl simulate` on a terminal: what the table shows, as it plays.

The whole view lives in `snapshot` for now; this package re-exports its public names, so
`from controller.sim.table_view import X` is unchanged.
"""

from controller.sim.table_view.snapshot import (
    BONUS_LABELS,
    CLEAR_BELOW,
    CLEAR_SCREEN,
    CLEAR_TO_EOL,
    DECISION_LABELS,
    DEFAULT_FPS,
    DEFAULT_PACE,
    FALLBACK_SIZE,
    HIDDEN,
    HIDE_CURSOR,
    HOME,
    LAMPS,
    ROUND_HOLD_CARDS,
    SHORT_NAMES,
    SHOW_CURSOR,
    STYLES,
    WAGER_ORDER,
    HandRow,
    LiveView,
    Memory,
    Pause,
    SeatRow,
    Segment,
    ShoeLayout,
    SideRow,
    Snapshot,
    TextLine,
    Totals,
    capture,
    drawing_rules,
    frame_lines,
    paint,
    players_net,
    render,
    seat_table,
    terminal_size,
)

__all__ = [
    "BONUS_LABELS", "CLEAR_BELOW", "CLEAR_SCREEN", "CLEAR_TO_EOL", "DECISION_LABELS",
    "DEFAULT_FPS", "DEFAULT_PACE", "FALLBACK_SIZE", "HIDDEN", "HIDE_CURSOR", "HOME", "LAMPS",
    "ROUND_HOLD_CARDS", "SHORT_NAMES", "SHOW_CURSOR", "STYLES", "WAGER_ORDER", "HandRow",
    "LiveView", "Memory", "Pause", "SeatRow", "Segment", "ShoeLayout", "SideRow", "Snapshot",
    "TextLine", "Totals", "capture", "drawing_rules", "frame_lines", "paint", "players_net",
    "render", "seat_table", "terminal_size"]
