"""Stations figures: K station clients on one community table, K = 10, 50, 100, 200.

`shoectl run` is its own process on the shoe emulator's process (real driver over a pty,
durable journal), serving K station pages (`[rules.community] stations = K`). The bench
holds K event-stream clients (Server-Sent Events over raw sockets in one asyncio loop, not
browsers) on `/api/station/N/events`, each placing a wager through `/api/station/N/command`.
For each round the dealer closes betting and the emulated shoe deals; no station decides,
so every station's decision timer (5 s, the least) runs out at once; then the dealer draws.

Measured per K:
  * card -> every station: from writing `draw 1` to the shoe emulator until each of the K
    clients has an event showing it (p50 and p99 over every card and station);
  * timer lateness: the journal's `station:timer_expired` time minus the deadline its
    `station:timer_started` record set (same monotonic clock; p50, p99, max);
  * CPU of `shoectl run` (user+system seconds per second of wall time over the rounds) and
    its peak RSS (VmHWM).

    python bench/stations.py [--stations 10,50,100,200] [--rounds 3] [--detail]

`--detail` also prints, for each card, the delay to the first station, the median one and
the last one (which cards are slow, and whether the time is fixed or per station).

The goal (issue 13): 100 stations with every station updated within 100 ms p99 and timers
late by under 50 ms p99 on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # runnable without installing

from controller.web.accounts import (  # noqa: E402
    credentials_path,
    new_token,
    token_digest,
    write_file,
)
from controller.web.credentials import hash_password  # noqa: E402

SEQ = itertools.count(1)
"""Every station command's `seq` (increasing for each station, as the server requires)."""

DECISION_S = 5
WAIT_S = 30.0
CONFIG = """[table]
name = "CC-BENCH"
game = "community"
decks = 6
side_bets = []

[rules.community]
stations = {stations}
decision_seconds = {seconds}

[devices.shoe]
kind = "serial"
url = "./shoe"
key_file = "./shoe.key"
firmware = ["emulated-1.0"]

[console]
listen = "127.0.0.1:{port}"
pit_listen = "127.0.0.1:{pit_port}"
pit_credential = "{credential}"
commands_per_s = 100000  # every station of the bench sends from this one address
reads_per_s = 100000
"""
PIT_PASSWORD = "bench-attendant"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Station:
    """One station's event stream: the time of every event and its view."""

    def __init__(self, port: int, number: int, token: str) -> None:
        self.port = port
        self.number = number
        self.token = token
        self.events: list[tuple[float, bytes]] = []
        self.changed = asyncio.Event()

    async def listen(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(f"GET /api/station/{self.number}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Authorization: Bearer {self.token}\r\n\r\n".encode())
        await writer.drain()
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # the response head
        data = b""
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                data += line[6:].rstrip(b"\r\n")
            elif line in (b"\n", b"\r\n") and data:
                self.events.append((time.monotonic(), data))  # parsed only when read
                self.changed.set()
                data = b""

    def view(self) -> dict[str, Any]:
        if not self.events:
            return {}
        table: dict[str, Any] = json.loads(self.events[-1][1])["table"]
        return table


async def post(port: int, path: str, body: dict[str, Any], auth: str = "",
               bearer: str = "") -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = json.dumps(body).encode()
    extra = (f"Authorization: Basic {auth}\r\n" if auth
             else f"Authorization: Bearer {bearer}\r\n" if bearer else "")
    writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 f"{extra}Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
                 .encode() + payload)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    await reader.read()
    writer.close()
    return status


async def all_after(stations: list[Station], since: float) -> list[float]:
    """Wait until every station has an event after `since`; each one's delay."""
    deadline = time.monotonic() + WAIT_S
    delays: list[float] = []
    for station in stations:
        while not any(t > since for t, _ in station.events):
            station.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"station {station.number} had no event in {WAIT_S} s")
            try:
                await asyncio.wait_for(station.changed.wait(), left)
            except TimeoutError:
                continue
        delays.append(next(t for t, _ in station.events if t > since) - since)
    return delays


async def settle(stations: list[Station], quiet: float = 0.3) -> None:
    """Wait until no station has had an event for `quiet` seconds."""
    while True:
        last = max((s.events[-1][0] for s in stations if s.events), default=0.0)
        if time.monotonic() - last >= quiet:
            return
        await asyncio.sleep(quiet / 3)


class Table:
    """`shoectl run` on the shoe emulator, in a scratch folder."""

    def __init__(self, work: Path, stations: int) -> None:
        self.port, self.pit_port = _free_port(), _free_port()
        (work / "table.toml").write_text(CONFIG.format(
            stations=stations, seconds=DECISION_S, port=self.port, pit_port=self.pit_port,
            credential=hash_password(PIT_PASSWORD)))
        self.kiosk = new_token()
        self.tokens = {n: new_token() for n in range(1, stations + 1)}
        write_file(credentials_path(work / "table.toml"), {"users": {}, "tokens": {
            "kiosk": token_digest(self.kiosk),
            **{f"station:{n}": token_digest(t) for n, t in self.tokens.items()}}})
        shoectl = [sys.executable, "-m", "controller"]
        self.shoe = subprocess.Popen([*shoectl, "emulate", "shoe", "--link-dir", str(work),
                                      "--seed", "11"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     cwd=REPO, text=True)
        deadline = time.monotonic() + 60
        while not (work / "shoe.key").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.run = subprocess.Popen([*shoectl, "run", "--unverified-software", "--config",
                                     str(work / "table.toml"), "--state-dir",
                                     str(work / "state")], cwd=work,
                                    stdout=subprocess.DEVNULL,
                                    stderr=(work / "run.log").open("w"))
        self.log = work / "run.log"
        self.figures: dict[str, float] = {}
        self.journal = work / "state" / "journal.sqlite3"

    def draw(self) -> float:
        assert self.shoe.stdin is not None
        now = time.monotonic()
        self.shoe.stdin.write("draw 1\n")
        self.shoe.stdin.flush()
        return now

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.run.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mib(self) -> float:
        for line in Path(f"/proc/{self.run.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def lateness(self) -> list[float]:
        """Each expiry's time after its deadline, from the journal (seconds)."""
        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT kind, mono, data FROM journal WHERE kind IN "
                              "('station:timer_started', 'station:timer_expired') "
                              "ORDER BY seq").fetchall()
        finally:
            db.close()
        deadlines: dict[int, float] = {}
        late: list[float] = []
        for kind, mono, data in rows:
            record = json.loads(data)
            if kind == "station:timer_started":
                deadlines[record["timer"]] = record["deadline"]
            elif record["timer"] in deadlines:
                late.append(mono - deadlines[record["timer"]])
        return late

    def close(self) -> None:
        self.run.send_signal(signal.SIGTERM)
        try:
            self.run.wait(60)
        except subprocess.TimeoutExpired:
            self.run.kill()
        self.shoe.kill()
        self.shoe.wait()


async def wait_up(port: int, kiosk: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if await post(port, "/api/command", {"command": "shuffle_done"},
                          bearer=kiosk) in (200, 409):
                return
        except OSError:
            pass
        await asyncio.sleep(0.3)
    raise RuntimeError("shoectl run never answered")


async def one_round(table: Table, stations: list[Station]) -> list[float]:
    """Wagers, no more bets, the deal, every timer out, the dealer; the card delays."""
    await asyncio.gather(*(post(table.port, f"/api/station/{s.number}/command",
                                {"command": "wager", "spot": 1 + s.number % 3,
                                 "cents": 500, "seq": next(SEQ)}, bearer=s.token)
                           for s in stations))
    await settle(stations)
    assert await post(table.port, "/api/command", {"command": "no_more_bets"},
                      bearer=table.kiosk) == 200
    await settle(stations)
    delays: list[float] = []
    for _ in range(8):
        delays += _noted(await all_after(stations, table.draw()), "deal")
        await settle(stations, 0.1)
    await asyncio.sleep(DECISION_S + 0.5)  # every station's time runs out
    await settle(stations, 0.5)
    while stations[0].view().get("state") == "dealer":
        delays += _noted(await all_after(stations, table.draw()), "dealer")
        await settle(stations, 0.2)
    return delays


DETAIL: list[str] = []
"""With --detail: one line a card (which, first and last station's delay)."""


def _noted(delays: list[float], what: str) -> list[float]:
    DETAIL.append(f"  {what:>6} card: first station {min(delays) * 1000:7.1f} ms, "
                  f"median {pct(delays, 0.5) * 1000:7.1f} ms, last {max(delays) * 1000:7.1f} ms")
    return delays


async def measure(k: int, rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-stations-") as tmp:
        work = Path(tmp)
        table = Table(work, k)
        try:
            await _measured(table, k, rounds)
        except Exception:
            sys.stderr.write(table.log.read_text()[-3000:])
            raise
        finally:
            table.close()
        late = table.lateness()
        return {**table.figures, "late50": pct(late, 0.5) * 1000,
                "late99": pct(late, 0.99) * 1000,
                "late_max": max(late) * 1000 if late else float("nan"),
                "expiries": len(late)}


async def _measured(table: Table, k: int, rounds: int) -> None:
    """The rounds at K stations; the card delays, CPU and RSS into `table.figures`."""
    await wait_up(table.port, table.kiosk)
    table.draw()  # the burn after the shuffle
    await asyncio.sleep(1)
    stations = [Station(table.port, n, table.tokens[n]) for n in range(1, k + 1)]
    tasks = [asyncio.create_task(s.listen()) for s in stations]
    await all_after(stations, 0.0)
    await _credits(table, k)
    cpu0, wall0 = table.cpu_seconds(), time.monotonic()
    delays: list[float] = []
    for _ in range(rounds):
        delays += await one_round(table, stations)
    table.figures = {"k": k, "p50": pct(delays, 0.5) * 1000, "p99": pct(delays, 0.99) * 1000,
                     "cpu": (table.cpu_seconds() - cpu0) / (time.monotonic() - wall0),
                     "rss": table.peak_rss_mib(), "cards": len(delays) // k}
    for task in tasks:
        task.cancel()


async def _credits(table: Table, k: int) -> None:
    """The attendant's credits at every station, through the pit view."""
    auth = base64.b64encode(f"supervisor:{PIT_PASSWORD}".encode()).decode()
    for n in range(1, k + 1):
        status = await post(table.pit_port, f"/api/pit/station/{n}/credits",
                            {"action": "in", "cents": 1_000_000}, auth)
        assert status == 200, status


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", default="10,50,100,200")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--detail", action="store_true",
                        help="also print each card's first, median and last station delay")
    args = parser.parse_args()
    print(f"{'K':>4} {'card p50 ms':>12} {'card p99 ms':>12} {'late p50 ms':>12} "
          f"{'late p99 ms':>12} {'late max ms':>12} {'CPU':>6} {'RSS MiB':>8} "
          f"{'cards':>6} {'expiries':>9}")
    for k in (int(x) for x in args.stations.split(",")):
        row = asyncio.run(measure(k, args.rounds))
        print(f"{row['k']:>4} {row['p50']:>12.1f} {row['p99']:>12.1f} {row['late50']:>12.1f} "
              f"{row['late99']:>12.1f} {row['late_max']:>12.1f} {row['cpu']:>6.2f} "
              f"{row['rss']:>8.1f} {row['cards']:>6} {row['expiries']:>9}", flush=True)
        if args.detail:
            print("\n".join(DETAIL), flush=True)
        DETAIL.clear()


if __name__ == "__main__":
    main()
