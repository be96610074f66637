"""The one run loop every family's simulation driver shares.

A family's driver is a `Driver`: it builds its table (`start`), deals and yields each settled
round's record (`rounds`), says a round in a line for a person (`line`) and the run in a
summary (`summary`), and closes its table (`close`). `Driver.run` does the rest, alike for
every family: the journal in a temporary directory (or `--state-dir`), one JSON object a
round on stdout with `--json` (else the family's line), the summary on stderr with `--json`
(else on stdout), Ctrl-C honoured after the round in play, and the exit status:

- 0: the rounds were dealt and nothing went wrong (`Driver.failed` is False);
- 1: something went wrong on the way (a hold, a refused command, a table that stopped
  answering: `SimulationStoppedError`, named in one line);
- 2: a device could not be built or started (`DriverError`, named in one line);
- 130 (`EXIT_INTERRUPTED`): Ctrl-C; the round in play settled and the journal closed.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Generator
from pathlib import Path
from typing import Any, Final

from controller.sim.options import Options
from drivers.errors import DriverError

EXIT_NO_DEVICE: Final = 2
"""A device of the simulated table could not be built or started."""
EXIT_INTERRUPTED: Final = 130
"""Ctrl-C (SIGINT): 128 + 2, as a shell reports a process its signal stopped."""


RoundRecords = Generator[dict[str, Any], None, None]
"""A driver's settled rounds, each record as `--json` prints it (closed when interrupted)."""


class SimulationStoppedError(RuntimeError):
    """The simulated table stopped answering: the run ends with exit status 1, named."""


class Driver(ABC):
    """One family's simulation: its table, its rounds, its words; the loop is `run`'s.

    Args:
        options: The run plan (game, seats, rounds, bets, seed, `--json`...).
    """

    def __init__(self, options: Options) -> None:
        self.options = options
        self.reported = 0
        """Rounds printed so far."""

    @abstractmethod
    def start(self, state_dir: Path, workdir: Path) -> None:
        """Build and start the table: its journal in `state_dir`, its ptys under `workdir`.

        Raises:
            DriverError: a device could not be built or started.
        """

    @abstractmethod
    def rounds(self) -> RoundRecords:
        """Deal; yield each settled round's record as `--json` prints it.

        Closed early (at a yield) when the run is interrupted: what follows the last round
        (voiding a round the shoe left unfinished) runs only when the rounds ran out.
        """

    @abstractmethod
    def line(self, record: dict[str, Any]) -> str | None:
        """One round for a person (None: nothing printed, a live view shows it)."""

    @abstractmethod
    def summary(self, elapsed: float) -> str:
        """The run in one line (no newline), `elapsed` seconds after the table started."""

    @abstractmethod
    def close(self, reason: str) -> None:
        """Record the power-off and close the journal and the devices (`start` succeeded)."""

    def notes(self) -> list[str]:
        """Lines for stderr after the summary (the commands the table refused)."""
        return []

    @property
    def failed(self) -> bool:
        """True when the run met a hold, a refusal or a wrong card: exit status 1."""
        return False

    def run(self) -> int:
        """Build the table, deal the planned rounds, print them; the exit status."""
        with tempfile.TemporaryDirectory(prefix="shoectl-sim-") as tmp:
            # The journal in tmp/state, its key beside it in tmp (both removed after the run).
            state_dir = self.options.state_dir or Path(tmp) / "state"
            try:
                self.start(state_dir, Path(tmp))
            except DriverError as exc:
                sys.stderr.write(f"shoectl simulate: {exc}\n")
                return EXIT_NO_DEVICE
            reason = "simulation finished"
            try:
                status = self._deal()
                if status == EXIT_INTERRUPTED:
                    reason = "simulation interrupted"
                return status
            except SimulationStoppedError as exc:
                sys.stderr.write(f"shoectl simulate: {exc}\n")
                return 1
            finally:
                self.close(reason)

    def _deal(self) -> int:
        started = time.monotonic()
        out = sys.stdout
        rounds = self.rounds()
        try:
            for record in rounds:
                self.reported += 1
                text = json.dumps(record) if self.options.as_json else self.line(record)
                if text is not None:
                    out.write(text + "\n")
                out.flush()
                if self.options.stop.is_set():
                    break
        finally:
            rounds.close()
        if self.options.stop.is_set():  # Ctrl-C: the round settled; the journal closes
            sys.stderr.write(f"shoectl simulate: interrupted after {self.reported} rounds; "
                             "the journal is closed\n")
            return EXIT_INTERRUPTED
        elapsed = max(time.monotonic() - started, 1e-9)
        (sys.stderr if self.options.as_json else out).write(self.summary(elapsed) + "\n")
        for note in self.notes():
            sys.stderr.write(f"shoectl simulate: {note}\n")
        return 1 if self.failed else 0
