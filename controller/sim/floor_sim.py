"""`shoectl simulate --tables T --link URL`: T linked tables, one controller, a real broker.

Each table is an in-process simulation (its own runtime, journal, auto-dealer and bots) on a
thread of its own, wired to the floor exactly as a service is (`service.floor_link`): its
Blazing 7's contributions go to the link group's controller over the broker. The controller
(`floor.authority`) runs in this process too, on paho's thread, with its journal in
`--state-dir`; `--broker` starts a private Mosquitto on a free loopback port for the run.
Every round prints one JSON object (the blackjack schema plus `"table": NAME`) with `--json`.
Before the end every table waits for the controller to confirm all it sent.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Final, TextIO

from controller.floor.authority import ProgressiveAuthority
from controller.floor.link import BrokerUrl
from controller.floor.settings import LinkSettings, ServerSettings, require_private
from controller.floor.table_link import unconfirmed
from controller.rules.money import format_cents
from controller.service.floor_link import LINK_DEVICE, FloorAttachment
from controller.sim.in_process import Simulation, make_runtime
from controller.sim.options import Options

GROUP: Final = "sim"
CEILING_S: Final = 120.0
"""Longest a table waits for its link or its confirmations before it gives up (a hang guard)."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def private_broker(workdir: Path) -> Iterator[str]:
    """A Mosquitto of the run's own on loopback (`--broker`); yields its `mqtt://` address."""
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(binary).exists():
        raise RuntimeError("--broker: mosquitto is not installed (Debian package mosquitto)")
    port = _free_port()
    config = workdir / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n", encoding="utf-8")
    process = subprocess.Popen([binary, "-c", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, process)
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    end = time.monotonic() + CEILING_S
    while time.monotonic() < end and process.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"--broker: mosquitto did not listen on port {port}")


class LinkedTable:
    """One simulated table of the group, on its own thread."""

    def __init__(self, options: Options, name: str, state_dir: Path, link: LinkSettings,
                 out: tuple[TextIO, threading.Lock]) -> None:
        self.name = name
        self.options = options
        self.runtime = make_runtime(options, state_dir)
        self.sim = Simulation(options, self.runtime)
        self.floor = FloorAttachment(link, name, self.runtime, self.sim.loop, lambda: None)
        self.out = out
        self.error = ""
        self.thread = threading.Thread(target=self._run, name=f"table-{name}", daemon=True)

    def _run(self) -> None:
        try:
            self._deal()
        except Exception as exc:  # noqa: BLE001 - one line for the run's summary
            self.error = f"table {self.name}: {exc}"

    def _deal(self) -> None:
        loop, model = self.sim.loop, self.runtime.model
        self.floor.start()
        if not loop.run_until(lambda: LINK_DEVICE not in model.progressive.links_down,
                              CEILING_S):
            raise RuntimeError("the floor link never came up")
        stream, lock = self.out
        for record in self.sim.run():
            line = (json.dumps(record | {"table": self.name}) if self.options.as_json else
                    f"{self.name} round {record['round']:>4}  linked meter "
                    f"{format_cents(int(self.link_meter()))}")
            with lock:
                stream.write(line + "\n")
                stream.flush()
        end = time.monotonic() + CEILING_S
        while unconfirmed(self.runtime.journal) and time.monotonic() < end:
            loop.run_until(lambda: not unconfirmed(self.runtime.journal), 0.1)
        if unconfirmed(self.runtime.journal):
            raise RuntimeError("the controller never confirmed every contribution")

    def link_meter(self) -> int:
        """The group's meter as this table last saw it (0 before the first)."""
        return int(self.floor.link.view.meter.get("amount", 0))

    def close(self) -> None:
        """Stop the link and close the journal (power-off recorded)."""
        self.floor.stop()
        self.runtime.shutdown("simulation finished")
        self.runtime.journal.close()


def run_floor(options: Options, tables: int, link: str | None) -> int:
    """Deal `options.rounds` rounds at each of `tables` linked tables; the exit status.

    Raises:
        PlainLinkError: `--link` is a plain `mqtt://` broker off the machine.
    """
    with tempfile.TemporaryDirectory(prefix="shoectl-floor-") as tmp:
        workdir = Path(tmp)
        if link is None:
            with private_broker(workdir) as url:
                return _run(options, tables, url, workdir)
        require_private(BrokerUrl.parse(link), "--link")
        return _run(options, tables, link, workdir)


def _run(options: Options, count: int, url: str, workdir: Path) -> int:
    settings = LinkSettings(BrokerUrl.parse(url), GROUP, None)
    controller_dir = options.state_dir or workdir / "controller"
    names = tuple(f"T{n + 1}" for n in range(count))
    authority = ProgressiveAuthority(ServerSettings(settings, options.config.progressive, names),
                                     controller_dir)
    authority.start()
    out = (sys.stdout, threading.Lock())
    tables = [LinkedTable(replace(options, seed=options.seed + n), name, workdir / name,
                          settings, out) for n, name in enumerate(names)]
    try:
        for table in tables:
            table.thread.start()
        for table in tables:
            table.thread.join()
    finally:
        for table in tables:
            table.close()
        authority.stop()
    errors = [t.error for t in tables if t.error]
    for line in errors:
        sys.stderr.write(f"shoectl simulate: {line}\n")
    faults = sum(t.sim.faults for t in tables)
    sys.stderr.write(f"tables {count}  rounds {count * options.rounds}  "
                     f"linked meter {authority.book.meters.amount}  "
                     f"progressive_in {authority.book.meters.progressive_in}  faults {faults}\n")
    return 0 if not errors and faults == 0 else 1
