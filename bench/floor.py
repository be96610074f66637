"""The linked progressive at floor scale: contribution -> every sign of the group, p50/p99.

    .venv/bin/python bench/floor.py [--tables 10,50,200] [--seconds S] [--seats K] [--books]

For each table count: a private Mosquitto on loopback, `shoectl progressive serve` in its
own process (durable journal, as in production, every check of what it applies on: known
tables, announced boots, one contribution per round and seat), and that many `TableLink`s in
this process (each its own paho client; one journal for all, see `SharedJournal`). Every table
deals one round every 10 s at a random phase, each round sending one contribution per seat
(`--seats`, default 5). The
latency of a contribution is from the table's `contribute` call to the moment the last table
of the group sees a meter at least as high as the controller's answer for it (the meter only
rises: no hits are sent). Printed per row: contributions applied, their p50 and p99 and max
latency, the controller's CPU share (user+system over wall time) and its peak RSS, and the
CPU shares of the broker and of this process (the simulated tables). `--books` times the
controller's apply path alone, per message (no broker: what the checks cost, on a busy
machine too).
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from bisect import bisect_left
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.floor.link import BrokerUrl
from controller.floor.settings import LinkSettings
from controller.floor.table_link import TableLink
from controller.journal.store import JournalStore

ROUND_EVERY_S = 10.0
GROUP = "bench"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(fact, what: str, ceiling: float = 300.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + ceiling
    while not fact():
        if time.monotonic() > end:
            raise SystemExit(f"bench/floor.py: never happened: {what}")
        time.sleep(0.05)


class SharedJournal:
    """One journal for every simulated table, one commit at a time.

    A journal per table would cost each table four more file descriptors, and paho's
    select() loop cannot watch a descriptor past 1024 (FD_SETSIZE): 200 tables of one process
    would stop connecting at about 145. The tables' journals are not what is measured.
    """

    def __init__(self, store: JournalStore) -> None:
        self.store = store
        self.lock = threading.Lock()

    def commit(self, records, critical):  # type: ignore[no-untyped-def]
        with self.lock:
            return self.store.commit(records, critical)

    def entries(self, kinds=()):  # type: ignore[no-untyped-def]
        with self.lock:
            return list(self.store.entries(kinds))


class SeenMeter:
    """When one table first saw each meter amount."""

    def __init__(self) -> None:
        self.link: TableLink | None = None
        self.amounts: list[int] = []
        self.times: list[float] = []
        self.lock = threading.Lock()

    def changed(self, up: bool | None) -> None:
        if up is None and self.link is not None:
            amount = int(self.link.view.meter.get("amount", 0))
            with self.lock:
                if not self.amounts or amount > self.amounts[-1]:
                    self.amounts.append(amount)
                    self.times.append(time.monotonic())

    def first_at_least(self, amount: int) -> float | None:
        with self.lock:
            index = bisect_left(self.amounts, amount)
            return self.times[index] if index < len(self.times) else None


def _proc_cpu_rss(pid: int) -> tuple[float, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    rss_kb = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            rss_kb = int(line.split()[1])
    return ticks / os.sysconf("SC_CLK_TCK"), rss_kb


def run_case(count: int, seconds: float, seats: int, workdir: Path) -> str:
    port = _free_port()
    (workdir / "mosquitto.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 1000000\n")
    broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c",
                               str(workdir / "mosquitto.conf")], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"mqtt://127.0.0.1:{port}"
    names = ", ".join(f'"T{n}"' for n in range(count))
    (workdir / "p.toml").write_text(f'[link]\nbroker = "{url}"\ngroup = "{GROUP}"\n'
                                    f"tables = [{names}]\n")
    time.sleep(0.3)
    controller = subprocess.Popen([sys.executable, "-m", "controller", "progressive", "serve",
                                   "--config", str(workdir / "p.toml"), "--state-dir",
                                   str(workdir / "ctl")], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
    settings = LinkSettings(BrokerUrl.parse(url), GROUP, None)
    links: list[TableLink] = []
    stores: list[JournalStore] = []
    try:
        return _measure(count, seconds, seats, settings, links, stores,
                        (controller.pid, broker.pid), workdir)
    finally:
        for link in links:
            link.stop()
        for store in stores:
            store.close()
        controller.send_signal(signal.SIGTERM)
        controller.wait(timeout=60)
        broker.terminate()
        broker.wait(timeout=60)


def _measure(count: int, seconds: float, seats: int, settings: LinkSettings,
             links: list[TableLink], stores: list[JournalStore], pids: tuple[int, int],
             settings_dir: Path) -> str:
    pid, broker_pid = pids
    seen = []
    store = JournalStore(settings_dir / "tables", clock=time.monotonic, durable=False)
    stores.append(store)
    shared = SharedJournal(store)
    for n in range(count):
        watcher = SeenMeter()
        link = TableLink(settings, f"T{n}", shared, on_change=watcher.changed)  # type: ignore[arg-type]
        watcher.link = link
        links.append(link)
        seen.append(watcher)
        link.start()
    _wait(lambda: all(link.view.up and link.view.meter for link in links),
          "every table online with the meter (paho's select() loop watches descriptors "
          "below 1024 only: about 300 tables a process)")
    cpu0, _ = _proc_cpu_rss(pid)
    broker0, _ = _proc_cpu_rss(broker_pid)
    tables0 = _own_cpu()
    wall0 = time.monotonic()
    sent: list[tuple[TableLink, str, int, float]] = []
    rng = random.Random(count)
    phases = [rng.uniform(0, ROUND_EVERY_S) for _ in links]
    next_round = [wall0 + p for p in phases]
    rounds = [0 for _ in links]
    while time.monotonic() - wall0 < seconds:
        now = time.monotonic()
        for i, link in enumerate(links):
            if now >= next_round[i]:
                next_round[i] += ROUND_EVERY_S
                rounds[i] += 1  # one contribution per (table, round, seat), as a table sends
                for seat in range(1, seats + 1):
                    at = time.monotonic()
                    address = link.contribute(rounds[i], seat)
                    sent.append((link, address.boot, address.seq, at))
        time.sleep(0.005)
    _wait(lambda: all(link.outstanding == 0 for link in links), "every send answered")
    latencies = []
    for link, boot, seq, at in sent:
        target = int(link.view.answers[(boot, seq)]["meter"])
        _wait(lambda t=target: all(s.first_at_least(t) is not None for s in seen),
              "every sign showing the meter")
        last = max(s.first_at_least(target) or at for s in seen)
        latencies.append((last - at) * 1000)
    cpu1, rss_kb = _proc_cpu_rss(pid)
    broker1, _ = _proc_cpu_rss(broker_pid)
    tables1 = _own_cpu()
    wall = time.monotonic() - wall0
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return (f"{count:>6}  {len(latencies):>8}  {statistics.median(latencies):>8.1f}  "
            f"{p99:>8.1f}  {latencies[-1]:>8.1f}  {100 * (cpu1 - cpu0) / wall:>6.1f}%  "
            f"{rss_kb / 1024:>7.1f}  {100 * (broker1 - broker0) / wall:>9.1f}%  "
            f"{100 * (tables1 - tables0) / wall:>9.1f}%")


def books_per_message(count: int, seats: int, rounds: int = 20) -> str:
    """The controller's apply path alone (`ledger.receive`, every check on), in process.

    Each table announces its boot, contributes `seats` wagers a round for `rounds` rounds
    and has one 10% hit; the best of three passes, so a busy machine shows the cost of the
    books and their checks, not of its neighbours. Also the critical state's serialisation,
    done once per committed batch.
    """
    from controller.floor import ledger
    from controller.floor.protocol import MessageId
    from controller.rules.meter import ProgressiveSettings

    book, _ = ledger.open_book(ProgressiveSettings(reset=1_000_000, increment=100))
    policy = ledger.Policy(frozenset(f"T{n}" for n in range(count)))
    messages: list[tuple[dict[str, object], MessageId]] = []
    for n in range(count):
        table = f"T{n}"
        kinds: list[dict[str, object]] = [{"type": "boot"}]
        kinds += [{"type": "contribution", "round": r, "seat": s}
                  for r in range(1, rounds + 1) for s in range(1, seats + 1)]
        kinds.append({"type": "hit", "round": rounds, "seat": 1, "kind": "10%",
                      "cards": ["7H", "7H", "7H"]})
        for seq, fields in enumerate(kinds, start=1):
            messages.append((fields | {"table": table, "boot": "b", "seq": seq},
                             MessageId(table, "b", seq)))
    passes = []
    for _ in range(3):
        applied = book
        start = time.perf_counter()
        for data, address in messages:
            applied = ledger.receive(applied, data, address, policy, "2026-12-06").book
        passes.append((time.perf_counter() - start) / len(messages) * 1e6)
    start = time.perf_counter()
    applied.to_json()
    state_ms = (time.perf_counter() - start) * 1e3
    return (f"{count:>6}  {len(messages):>8}  {min(passes):>8.1f} us a message  "
            f"critical state {state_ms:.1f} ms")


def _own_cpu() -> float:
    """CPU seconds of this process (the simulated tables), user and system."""
    times = os.times()
    return times.user + times.system


def main() -> int:
    """Print one row per table count."""
    logging.disable(logging.WARNING)  # 200 tables saying goodbye is not a figure
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="10,50,200")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--seats", type=int, default=5)
    parser.add_argument("--books", action="store_true",
                        help="time the controller's books alone (no broker), per message")
    args = parser.parse_args()
    if args.books:
        print("tables  messages  the controller's books (ledger.receive, every check), best of 3")
        for count in (int(c) for c in args.tables.split(",")):
            print(books_per_message(count, args.seats), flush=True)
        return 0
    print(f"one round per table every {ROUND_EVERY_S:.0f} s, {args.seats} contributions a "
          f"round, {args.seconds:.0f} s per row; latency = contribute -> every sign (ms)")
    print("tables  applied      p50 ms    p99 ms    max ms    ctl CPU  ctl RSS MB  "
          "broker CPU  tables CPU")
    for count in (int(c) for c in args.tables.split(",")):
        with tempfile.TemporaryDirectory(prefix="shoectl-bench-floor-") as tmp:
            print(run_case(count, args.seconds, args.seats, Path(tmp)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
