"""The table of the power-cut test: `shoectl simulate`'s rig, reporting every card it drops.

`python -m tests.support.powercut_table STATE_DIR SEED [--sqlite-sync-off]` runs the whole
table over pseudo-terminals (the shoe, layout and sign emulators, real drivers) with its
journal in STATE_DIR and deals until it dies. Each time the shoe's board is told that a card
is handled (the journal holds it, so the board drops it: from then on only the journal has
it), it prints `handled <records in the journal> <card number>` on stdout, flushed.

`--sqlite-sync-off` runs the same table with SQLite's `synchronous=OFF` (commits return
before they are on storage): the mutation the power-cut test must catch.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from controller.cli import simulate_command
from controller.journal.store import JournalStore
from controller.sim import rig
from drivers.events import CardDrawn


def _sqlite_sync_off() -> None:
    real_open = JournalStore._open

    def unsafe_open(self: JournalStore, slots, durable: bool):  # type: ignore[no-untyped-def]
        verdict = real_open(self, slots, durable)
        self._db.execute("PRAGMA synchronous=OFF")
        return verdict

    JournalStore._open = unsafe_open  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("state_dir", type=Path)
    parser.add_argument("seed", type=int)
    parser.add_argument("--sqlite-sync-off", action="store_true")
    args = parser.parse_args()
    if args.sqlite_sync_off:
        _sqlite_sync_off()
    options = simulate_command.parse_options(["--seed", str(args.seed), "--rounds", "100000"])
    spec = rig.RigSpec(options.seats, options.seed)
    ports = args.state_dir.parent.parent / f"ports-{os.getpid()}"
    app = rig.start_rig_app("powercut", options.config, spec, state_dir=args.state_dir,
                            ports=ports)
    runtime = app.runtime
    assert runtime is not None

    def handle(event: object) -> None:
        app.handle(event)
        if isinstance(event, CardDrawn):
            sys.stdout.write(f"handled {runtime.journal.records} {event.count}\n")
            sys.stdout.flush()

    app.loop.set_handler(handle)
    plan = rig.RigPlan(options.seats, options.rounds, options.bets, options.policy,
                       options.seed)
    for _ in rig.PtySimulation(app, plan).run():
        pass


if __name__ == "__main__":
    main()
