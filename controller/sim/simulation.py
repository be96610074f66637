"""A simulated run: the whole controller dealing rounds on its own, with bot players.

The table's game selects its family's driver (`controller.sim.games`). An auto-dealer pulls
the next card (or spins the emulated wheel) whenever the procedure says one is due, and bot
players press the decision buttons. Every completed round is printed: a table line, or with
`--json` one JSON object per round and nothing else on stdout; a summary goes to stderr with
`--json`.
"""

from __future__ import annotations

from controller.sim.games import driver
from controller.sim.options import Options


def run(options: Options) -> int:
    """Deal the planned rounds with the driver of the table's family; the exit status."""
    return driver(options.config.table.game.value)(options)
