"""The floor rig of the tests: a real broker, the controller as a process, tables in-process.

The controller runs as `python -m controller progressive serve` so it can be killed with
SIGKILL; the tables are `TableLink`s, each with its own journal, so the tests can count
what every table sent and was confirmed from the tables' journals alone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from controller.floor.link import BrokerUrl, TlsFiles
from controller.floor.settings import LinkSettings
from controller.floor.table_link import KIND_CONFIRMED, KIND_SEND, TableLink
from controller.journal.store import JournalStore
from tests.support.mosquitto import CEILING_S, Mosquitto, wait_for

RESET = 1_000_000
INCREMENT = 100
GROUP = "bank-a"
TABLES = ("T1", "T2", "T3", "BJ-01")
"""The controller's tables (`[link] tables`): the tests' and the default table file's name."""


class Controller:
    """`shoectl progressive serve` in its own process."""

    def __init__(self, workdir: Path, broker_url: str, tls_dir: Path | None = None, *,
                 tables: Sequence[str] = TABLES, group: str = GROUP,
                 name: str = "controller", max_boots_per_day: int | None = None) -> None:
        self.state_dir = workdir / name
        self.config = workdir / f"{name}.toml"
        files = "".join(f'{key} = "{tls_dir / file}"\n' for key, file in (
            ("ca", "ca.pem"), ("cert", f"progressive-{group}.pem"),
            ("key", f"progressive-{group}.key"))) if tls_dir else ""
        boots = f"max_boots_per_day = {max_boots_per_day}\n" if max_boots_per_day else ""
        self.config.write_text(f'[link]\nbroker = "{broker_url}"\ngroup = "{group}"\n'
                               f"tables = {json.dumps(list(tables))}\n{boots}{files}"
                               f"[progressive]\nreset = {RESET}\nincrement = {INCREMENT}\n",
                               encoding="utf-8")
        self.log = workdir / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the controller (it says online on the broker once connected)."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "controller", "progressive", "serve",
                 "--config", str(self.config), "--state-dir", str(self.state_dir)],
                stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())

    def kill(self) -> None:
        """SIGKILL: no goodbye, no flush beyond what was committed."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=CEILING_S)

    def stop(self) -> None:
        """SIGTERM and wait."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=CEILING_S)

    def shoectl(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run `shoectl progressive ARGS --state-dir` on the controller's state."""
        return subprocess.run([sys.executable, "-m", "controller", "progressive", *args,
                                "--state-dir", str(self.state_dir)],
                               capture_output=True, text=True, check=False, timeout=CEILING_S)

    def show(self) -> dict[str, int]:
        """`shoectl progressive show --json`, parsed."""
        done = self.shoectl("show", "--json")
        assert done.returncode == 0, done.stderr
        figures: dict[str, int] = json.loads(done.stdout)
        return figures


@contextmanager
def broker_and_controller(workdir: Path) -> Iterator[tuple[Mosquitto, Controller]]:
    """A real Mosquitto and `shoectl progressive serve`, each in a process of its own."""
    broker = Mosquitto(workdir / "broker")
    broker.start()
    try:
        controller = Controller(workdir, broker.url)
        controller.start()
        try:
            yield broker, controller
        finally:
            controller.stop()
    finally:
        broker.stop()


class Table:
    """One table: its journal and its link."""

    def __init__(self, workdir: Path, name: str, broker_url: str,
                 tls: TlsFiles | None = None,
                 clock: Callable[[], float] = time.monotonic, group: str = GROUP) -> None:
        self.name = name
        self.store = JournalStore(workdir / name, clock=lambda: 0.0, durable=False)
        link = LinkSettings(BrokerUrl.parse(broker_url), group, tls)
        self.link = TableLink(link, name, self.store, clock=clock)
        self.link.start()

    def records(self, kind: str) -> list[dict[str, Any]]:
        """Every journalled record of `kind`."""
        return [e.data for e in self.store.entries((kind,))]

    def all_confirmed(self) -> bool:
        """Every message this table journalled as sent has its confirmation journalled."""
        sent = {(d["boot"], d["seq"]) for d in self.records(KIND_SEND)}
        done = {(d["boot"], d["seq"]) for d in self.records(KIND_CONFIRMED)}
        return sent == done

    def close(self) -> None:
        """Disconnect and close the journal."""
        self.link.stop()
        self.store.close()


class HasRecords(Protocol):
    """Anything that reads a table's journal records of one kind (a `Table`, ...)."""

    name: str

    def records(self, kind: str) -> list[dict[str, Any]]:
        """Every journalled record of `kind`."""


def expected_figures(tables: Sequence[HasRecords]) -> dict[str, int]:
    """The meter from the tables' journals alone.

    Seed + accepted contributions - what voids gave back - payments + the reseed of each
    100% hit. A contribution is counted when its answer is an ack; the only rejections a
    table of these tests may get are a contribution, or a hit, of a round already void. A
    rejected hit moves no meter, and what the table's supervisor then pays by hand
    (`meter:linked_paid` with `"manual": true`) is the house's: the meter ignores it.
    """
    contributions = paid = full_hits = hits = returned = given_back = 0
    for table in tables:
        sent = {(d["boot"], d["seq"]): d["message"] for d in table.records(KIND_SEND)}
        for confirmed in table.records(KIND_CONFIRMED):
            message = sent[(confirmed["boot"], confirmed["seq"])]
            answer = confirmed["answer"]
            if answer["type"] == "reject":
                assert message["type"] in ("contribution", "hit"), answer
                assert answer["reason"].endswith(
                    "void, its contributions given back" if message["type"] == "contribution"
                    else "void, its wagers returned: no meter hit is paid for it"), answer
                continue
            assert answer["type"] == "ack", answer
            if message["type"] == "contribution":
                contributions += 1
            elif message["type"] == "void":
                returned += int(answer["returned"])
                given_back += int(answer["wagers"])
            elif message["type"] == "hit":
                hits += 1
                paid += int(answer["paid"])
                full_hits += message["kind"] == "100%"
    meter = RESET + INCREMENT * contributions - returned - paid + RESET * full_hits
    return {"meter": meter, "hits": hits, "cumulative_paid": paid,
            "progressive_in": contributions - given_back}


def settle(tables: list[Table], controller: Controller) -> None:
    """Wait until every table's every send is confirmed; then check the meter is exact."""
    for table in tables:
        wait_for(table.all_confirmed, f"table {table.name}: every send confirmed")
    assert controller.show() == expected_figures(tables)
    verified = controller.shoectl("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def online(table: Table) -> bool:
    """The table may take progressive wagers (broker and controller answer, meter known)."""
    return table.link.view.up and "amount" in table.link.view.meter


__all__ = ["Controller", "HasRecords", "Mosquitto", "Table", "expected_figures", "online",
           "settle", "wait_for"]
