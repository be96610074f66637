"""Console figures: card out of the shoe -> console event, command -> lamp frame, memory.

1. Latency, in process: the emulated rig (real drivers over ptys, durable journal) with the
   console served on loopback and N event-stream clients (1 and 20). For each card drawn
   from the emulated shoe, the time until every client has the event showing it; for each
   `seat`/`no_more_bets` command, the time until the layout emulator has the lamp frame.
   Beside them, the wire time of the frames at 115200 baud.
2. Attacks (`--attacks`): the same card path, one client, while another process attacks
   the console: `flood` (8 connections sending commands as fast as they are answered, with
   the kiosk's token), `idle` (1,000 sockets opened and left idle, opened again when cut),
   `bodies` (4 connections at a time declaring 256 MiB bodies, and 4 sending a chunked one).
   For each: card -> journalled (the table's commit, published) and card -> event at the
   client, p50 and p99, and what the attacker got back.
3. Memory: `shoectl run` as its own process on three emulator processes, with 2 clients on
   its event stream while rounds are dealt; its peak RSS (VmHWM).

4. `--login-timing N`: a wrong user name and a wrong password, N of each, interleaved over
   HTTP (no lock-out): their medians, which must not tell one from the other.
5. `--steps`: where a card's time goes, one client, p50/p90/p99 of each step: the shoe
   emulator's frame to the loop (the driver's read thread, its parse and `post`), the
   table's handling (the procedure, the journal's commit, the publication), of it the commit
   alone and the loop thread's CPU time (which a busy machine does not inflate as it does
   the others), and the publication to the client (the web process and its event stream).
6. `--process`: card out of the shoe -> console event with `shoectl run` in a process of its
   own and the emulators in theirs (as under `make demo`, and as on a Pi where the boards
   are hardware): no emulator or client thread shares the table's interpreter lock.

    python bench/console.py [--cards 200] [--attacks none,flood,idle,bodies] [--no-memory]
                            [--attacker-nice N]   (the attacker at niceness N: its own CPU
                                                   yields to the table's, as on another host)
    python bench/console.py --login-timing 40
    python bench/console.py --steps [--cards 200]
    python bench/console.py --process [--cards 200]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import queue
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable without installing

from controller.sim.rig import BASE_LAMPS
from hil_tests.console_rig import ConsoleRig, start_console_rig
from tests.console.live import KIOSK, KIOSK_AUTH, EventStream, kiosk_beside

BAUD = 115200
CARD_FRAME_BYTES = 20
LAMP_FRAME_BYTES = 14


def wire_ms(size: int) -> float:
    return size * 10 / BAUD * 1000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Client(threading.Thread):
    """An event-stream client keeping the latest table and every event's arrival."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.stream = EventStream(port, headers=KIOSK_AUTH)
        self.events: queue.Queue[tuple[float, int, dict]] = queue.Queue()
        self.latest: tuple[int, dict] = (0, {})

    def run(self) -> None:
        try:
            while True:
                event = self.stream.next()
                at = time.perf_counter()
                self.latest = (event["seq"], event["table"])
                self.events.put((at, event["seq"], event["table"]))
        except (EOFError, OSError, ValueError, AttributeError):  # closed under the reader
            return

    def next_event(self, after: int, timeout: float = 5) -> tuple[float, int, dict] | None:
        """The first event after sequence number `after` (None: none came in `timeout`)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                return None
            if event[1] > after:
                return event
        return None


def cards_in(table: dict) -> int:
    """Cards on the table as the console shows them, the hole card's place included."""
    dealer = table["dealer"]
    return len(dealer["cards"]) + dealer.get("face_down", 0) + sum(
        len(h["cards"]) for s in table["seats"] for h in s["hands"])


RETRIES: dict[str, int] = {}
"""Commands the bench's own client sent again (a connection refused or cut, a 503)."""


def command(port: int, body: dict) -> int:
    """POST a command as the kiosk's page would, trying again as a browser's user would."""
    for _ in range(50):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", "/api/command", json.dumps(body),
                         {"Content-Type": "application/json", **KIOSK_AUTH})
            response = conn.getresponse()
            status = response.status
            command.last = response.read()  # type: ignore[attr-defined]
            conn.close()
        except OSError as exc:
            RETRIES[type(exc).__name__] = RETRIES.get(type(exc).__name__, 0) + 1
            time.sleep(0.1)
            continue
        if status != 503:
            return status
        RETRIES["503"] = RETRIES.get("503", 0) + 1
        time.sleep(0.1)
    raise RuntimeError(f"the console refused the command 50 times: {RETRIES}")


def ready_for_a_card(rig: ConsoleRig, port: int) -> bool:
    """Answer what the table asks of the players (seats, insurance, stand); True when the
    next thing the table wants is a card from the shoe."""
    return answer_the_table(rig.web.hubs[0].latest.table, port, lambda: draw_and_wait(rig))


def answer_the_table(table: dict, port: int, burn: Callable[[], object],
                     load: Callable[[], object] = lambda: None) -> bool:
    """`ready_for_a_card` on the table object `table`: `burn` draws the burn card and waits
    for it, `load` loads a new shoe into the shoe before the shuffle is declared done."""
    accepting = table["accepting"]
    if table["phase"] == "shoe_loading":
        load()
        command(port, {"command": "shuffle_done"})
    elif table["phase"] == "burn":
        burn()
    elif table["phase"] == "round_over":  # the settled round kept on the console (070)
        command(port, {"command": "next_round"})
    elif table["phase"] == "card_in_error":
        command(port, {"command": "error_exposed"})
    elif table["phase"] == "betting" and not any(s["in_play"] for s in table["seats"]):
        for seat in (1, 2, 3):
            command(port, {"command": "seat", "seat": seat, "in_play": True, "main": 1000})
    elif table["phase"] == "betting":
        command(port, {"command": "no_more_bets"})
    elif table["insurance"]:
        command(port, {"command": "insurance", "seat": table["insurance"][0], "take": False})
    elif "stand" in accepting:
        command(port, {"command": "stand"})
    else:
        return True
    return False


def dealt_cards(rig: ConsoleRig, clients: list[Client],
                mark: Callable[[], float] = time.perf_counter,
                ) -> Iterator[tuple[float, int, float]]:
    """Deal on (answering the table), yielding each shown card's (drawn at, publication seq,
    when the last client had it) until the shoe is out; `mark` times the draw."""
    port = rig.web.servers[0].port
    hub = rig.web.hubs[0]
    while True:
        if not ready_for_a_card(rig, port):
            continue
        before = cards_in(hub.latest.table)
        for client in clients:
            while not client.events.empty():
                client.events.get_nowait()
        start = mark()
        code = rig.shoe.draw()
        if code is None:
            return
        if code == "CUT":  # the cut card is never shown: do not wait for it
            continue
        shown = shown_seq(rig, before)
        if shown is None:  # a card the table burns
            continue
        arrivals = [arrival(client, shown) for client in clients]
        if all(a is not None for a in arrivals):
            yield start, shown, max(a for a in arrivals if a is not None)


def card_latency(rig: ConsoleRig, clients: list[Client], cards: int) -> list[float]:
    """ms from drawing a card to the last client having the event that shows it."""
    found: list[float] = []
    for start, _shown, at in dealt_cards(rig, clients):
        found.append((at - start) * 1000)
        if len(found) >= cards:
            break
    return found


def shown_seq(rig: ConsoleRig, before: int) -> int | None:
    """The sequence number of the publication with the card (None: none came).

    A card the table burns is never shown; a busy machine may take seconds to show one, and
    drawing the next card before it has would deal into the wrong phase.
    """
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        latest = rig.web.hubs[0].latest
        if latest is not None and cards_in(latest.table) != before:
            return latest.seq
        time.sleep(0.0005)
    return None


def arrival(client: Client, seq: int) -> float | None:
    """When the client received the event `seq` (or a later one)."""
    event = client.next_event(seq - 1, timeout=10)
    return None if event is None else event[0]


def draw_and_wait(rig: ConsoleRig) -> bool:
    """Draw a card and wait until the table has published it; False when the shoe is out."""
    runtime = rig.app.runtime
    assert runtime is not None
    handled = runtime.handled_kinds.get("CardDrawn", 0) + runtime.handled_kinds.get(
        "ShoeFault", 0)
    code = rig.shoe.draw()
    if code is None:
        return False
    while code != "CUT" and runtime.handled_kinds.get("CardDrawn", 0) + runtime.handled_kinds.get(
            "ShoeFault", 0) == handled:
        time.sleep(0.001)
    time.sleep(0.01)  # its publication follows the commit
    return True


def lamp_latency(rig: ConsoleRig, rounds: int) -> list[float]:
    """ms from posting `no_more_bets` to the layout emulator holding the lamp frame."""
    port = rig.web.servers[0].port
    layout = rig.app.devices.emulators["layout"]
    lamp = BASE_LAMPS.index("no_more_bets")  # the simulated board's lamp numbers
    found: list[float] = []
    for _ in range(rounds):
        while rig.web.hubs[0].latest.table["phase"] != "betting":  # finish the round
            if ready_for_a_card(rig, port) and not draw_and_wait(rig):
                return found
        command(port, {"command": "seat", "seat": 1, "in_play": True, "main": 1000})
        start = time.perf_counter()
        status = command(port, {"command": "no_more_bets"})
        assert status == 200, command.last  # type: ignore[attr-defined]
        while layout.lamp(lamp) != "on":
            time.sleep(0.0002)
        found.append((time.perf_counter() - start) * 1000)
    return found


def latency(cards: int) -> None:
    from controller.rules.cards import shoe
    shoe_cards = [str(c) for c in shoe(6)]
    for count in (1, 20):
        with tempfile.TemporaryDirectory() as tmp:
            rig = start_console_rig(Path(tmp), shoe_cards, seats=3)
            clients = [Client(rig.web.servers[0].port) for _ in range(count)]
            for client in clients:
                client.start()
            time.sleep(0.5)
            found = card_latency(rig, clients, cards)
            print(f"card out -> event at all {count:>2} client(s): "
                  f"p50 {statistics.median(found):.2f} ms, p99 {pct(found, 0.99):.2f} ms "
                  f"over {len(found)} cards (card frame on the wire "
                  f"{wire_ms(CARD_FRAME_BYTES):.2f} ms)")
            if count == 1:
                lamps = lamp_latency(rig, 40)
                print(f"command -> lamp frame at the board: p50 {statistics.median(lamps):.2f}"
                      f" ms, p99 {pct(lamps, 0.99):.2f} ms over {len(lamps)} (lamp frame on "
                      f"the wire {wire_ms(LAMP_FRAME_BYTES):.2f} ms)")
            for client in clients:
                client.stream.close()
            rig.close()


class Journalled:
    """When each publication of the console's hub was made (loop thread, after the commit)."""

    def __init__(self, rig: ConsoleRig) -> None:
        self.at: dict[int, float] = {}
        rig.web.hubs[0].subscribe(lambda published: self.at.__setitem__(
            published.seq, time.perf_counter()))


def attacked_latency(cards: int, attack: str, attacker_nice: int = 0) -> None:
    """Card -> journalled and card -> event, one client, while `attack` runs elsewhere.

    `attacker_nice` runs the attacking process at that niceness: on a machine of two cores
    the attacker's own work competes with the table for CPU, where on a floor it runs on
    the attacker's machine; 19 leaves it only what the table does not use.
    """
    from controller.rules.cards import shoe
    shoe_cards = [str(c) for c in shoe(6)] * 3
    with tempfile.TemporaryDirectory() as tmp:
        rig = start_console_rig(Path(tmp), shoe_cards, seats=3)
        port = rig.web.servers[0].port
        journalled = Journalled(rig)
        client = Client(port)
        client.start()
        attacker = None
        if attack != "none":
            attacker = subprocess.Popen(
                [*(["nice", "-n", str(attacker_nice)] if attacker_nice else []),
                 sys.executable, __file__, "--attacker", attack, "--port", str(port)],
                stdout=subprocess.PIPE, text=True)
            time.sleep(3)  # the attack under way
        found, committed = card_and_commit_latency(rig, [client], cards, journalled)
        told = ""
        if attacker is not None:
            attacker.send_signal(signal.SIGINT)
            told = attacker.communicate(timeout=60)[0].strip()
        print(f"{attack:>6}: card -> journalled p50 {statistics.median(committed):.2f} ms, "
              f"p99 {pct(committed, 0.99):.2f} ms; card -> event p50 "
              f"{statistics.median(found):.2f} ms, p99 {pct(found, 0.99):.2f} ms "
              f"({len(found)} cards){'; attacker: ' + told if told else ''}"
              f"{'; the dealer tried again: ' + str(RETRIES) if RETRIES else ''}")
        RETRIES.clear()
        client.stream.close()
        rig.close()


def card_and_commit_latency(rig: ConsoleRig, clients: list[Client], cards: int,
                            journalled: Journalled) -> tuple[list[float], list[float]]:
    """As `card_latency`, and the ms from the card to its publication (after the commit)."""
    found: list[float] = []
    committed: list[float] = []
    for start, shown, at in dealt_cards(rig, clients):
        if shown in journalled.at:
            found.append((at - start) * 1000)
            committed.append((journalled.at[shown] - start) * 1000)
        if len(found) >= cards:
            break
    return found, committed


Tally = dict[str, int]
_TOKEN = f"Authorization: Bearer {KIOSK}\r\n".encode()


def _count(answers: Tally, key: str) -> None:
    answers[key] = answers.get(key, 0) + 1


def _status(head: bytes) -> str:
    parts = head.split(b" ", 2)
    return parts[1].decode() if head.startswith(b"HTTP/") and len(parts) > 1 else "closed"


def flood(port: int, stop: threading.Event, answers: Tally) -> None:
    """Commands on one connection as fast as they are answered (a new one when cut)."""
    body = b'{"command": "marker", "number": "1"}'  # refused by blackjack: harmless
    request = (b"POST /api/command HTTP/1.1\r\nHost: 127.0.0.1\r\n" + _TOKEN +
               b"Content-Type: application/json\r\nContent-Length: "
               + str(len(body)).encode() + b"\r\n\r\n" + body)
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                reader = sock.makefile("rb")
                while not stop.is_set():
                    sock.sendall(request)
                    head = reader.readline()
                    status = _status(head)
                    _count(answers, status)
                    length, closing = 0, False
                    while (line := reader.readline()) not in (b"\r\n", b""):
                        name, _, value = line.decode("latin-1").partition(":")
                        if name.lower() == "content-length":
                            length = int(value)
                        closing |= name.lower() == "connection" and "close" in value
                    reader.read(length)
                    if closing or status == "closed":
                        break
        except OSError:
            _count(answers, "error")


def idle(port: int, stop: threading.Event, answers: Tally) -> None:
    """1,000 sockets opened and left silent; each one the server cuts is opened again."""
    held: list[socket.socket] = []
    while not stop.is_set():
        try:
            while len(held) < 1000 and not stop.is_set():
                held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
                _count(answers, "opened")
        except OSError:
            _count(answers, "error")
        for sock in list(held):
            sock.setblocking(False)
            try:
                sock.recv(4096)  # the server closed it, or answered 503 and closed it
            except BlockingIOError:
                continue
            except OSError:
                pass
            _count(answers, "cut")
            held.remove(sock)
            sock.close()
        stop.wait(0.5)
    for sock in held:
        sock.close()


def bodies(port: int, stop: threading.Event, answers: Tally) -> None:
    """256 MiB bodies: declared (refused unread), or chunked (cut at the cap)."""
    head = b"POST /api/command HTTP/1.1\r\nHost: 127.0.0.1\r\n" + _TOKEN
    declared = head + b"Content-Type: application/json\r\nContent-Length: 268435456\r\n\r\n"
    chunked = head + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunk = b"100000\r\n" + b" " * 0x100000 + b"\r\n"
    sent = 0
    while not stop.is_set():
        sent += 1
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(declared if sent % 2 else chunked)
                if not sent % 2:
                    for _ in range(256):
                        sock.sendall(chunk)
                _count(answers, _status(sock.recv(64)))
        except OSError:
            _count(answers, "cut")


def attack(kind: str, port: int) -> None:
    """Run one attack against the console at `port` until SIGINT; print what came back."""
    answers: Tally = {}
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    work, count = {"flood": (flood, 8), "idle": (idle, 1), "bodies": (bodies, 4)}[kind]
    threads = [threading.Thread(target=work, args=(port, stop, answers), daemon=True)
               for _ in range(count)]
    for thread in threads:
        thread.start()
    stop.wait()
    for thread in threads:
        thread.join(15)
    print(", ".join(f"{key} {count}" for key, count in sorted(answers.items())))


def login_timing(tries: int) -> None:
    """Medians of a wrong user name and of a wrong password, interleaved, over HTTP."""
    from controller.web.auth import LoginBackoff
    from tests.console.live import start

    class Unlocked(LoginBackoff):
        """No lock-out: every try is checked, so each one's time is measured."""

        def failed(self, *keys: str) -> list[tuple[str, int, float]]:
            return []

    with tempfile.TemporaryDirectory() as tmp:
        live = start(Path(tmp), backoff=Unlocked())
        times: dict[str, list[float]] = {"wrong user name": [], "wrong password": []}
        try:
            for n in range(tries):
                for label, user in (("wrong user name", f"nobody{n}"),
                                    ("wrong password", "D17")):
                    body = json.dumps({"user": user, "password": f"guess-{n}"})
                    conn = http.client.HTTPConnection("127.0.0.1", live.server.port, timeout=30)
                    start_at = time.perf_counter()
                    conn.request("POST", "/api/login", body, {"Content-Type": "application/json"})
                    response = conn.getresponse()
                    response.read()
                    times[label].append((time.perf_counter() - start_at) * 1000)
                    conn.close()
                    assert response.status == 401
        finally:
            live.close()
    medians = {label: statistics.median(found) for label, found in times.items()}
    low, high = sorted(medians.values())
    print("login refused: " + ", ".join(f"{label} median {ms:.1f} ms"
                                        for label, ms in medians.items())
          + f" ({tries} each, interleaved; the two differ by {(high / low - 1) * 100:.1f}%)")


@dataclass
class TableProcess:
    """`shoectl run` in a process of its own on three emulator processes, as on a Pi."""

    port: int
    run: subprocess.Popen[bytes]
    shoe: subprocess.Popen[bytes]

    def shoe_says(self, line: str) -> float:
        """Type `line` at the shoe emulator's prompt; the moment it was sent."""
        assert self.shoe.stdin is not None
        sent = time.perf_counter()
        self.shoe.stdin.write(line.encode() + b"\n")
        self.shoe.stdin.flush()
        return sent


@contextlib.contextmanager
def table_process() -> Iterator[TableProcess]:
    """The example table (docs/examples/emulated-table.toml) served on a free port."""
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        port = _free_port()
        config = work / "table.toml"
        config.write_text((repo / "docs/examples/emulated-table.toml").read_text().replace(
            "127.0.0.1:8420", f"127.0.0.1:{port}"))
        kiosk_beside(config)
        shoectl = [sys.executable, "-m", "controller"]
        procs = [subprocess.Popen([*shoectl, "emulate", board, "--link-dir", str(work)],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, cwd=repo)
                 for board in ("shoe", "layout", "sign")]
        time.sleep(3)
        run = subprocess.Popen([*shoectl, "run", "--unverified-software", "--config", str(config),
                                "--state-dir", str(work / "state")], cwd=work,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_port(port)
            yield TableProcess(port, run, procs[0])
        finally:
            run.send_signal(signal.SIGTERM)
            run.wait(20)
            for proc in procs:
                proc.kill()
                proc.wait()


def process_latency(cards: int) -> None:
    """Card out of the shoe -> console event, the table in a process of its own (`--process`).

    The bench types `draw 1` at the shoe emulator's prompt (a process of its own, as the
    emulators are under `make demo`) and times from that line to the event that shows the
    card at its event-stream client: the emulator's handling of the line and the pty are in
    the figure, the frame's time on a real wire is not.
    """
    with table_process() as table:
        follower = Client(table.port)
        follower.start()
        while not follower.latest[0]:
            time.sleep(0.05)
        found: list[float] = []

        def burn() -> None:
            before = follower.latest[0]
            table.shoe_says("draw 1")
            follower.next_event(before, timeout=2)

        while len(found) < cards:
            seq, shown = follower.latest
            if not answer_the_table(shown, table.port, burn, lambda: table.shoe_says("load")):
                follower.next_event(seq, timeout=2)  # what the answer changed, published
                continue
            before = cards_in(shown)
            while not follower.events.empty():
                follower.events.get_nowait()
            sent = table.shoe_says("draw 1")
            while (event := follower.next_event(seq, timeout=2)) is not None:
                at, seq, now = event
                if cards_in(now) != before:
                    found.append((at - sent) * 1000)
                    break
        follower.stream.close()
    print(f"card out -> event, shoectl run in its own process: p50 "
          f"{statistics.median(found):.2f} ms, p90 {pct(found, 0.9):.2f} ms, p99 "
          f"{pct(found, 0.99):.2f} ms over {len(found)} cards (card frame on the wire "
          f"{wire_ms(CARD_FRAME_BYTES):.2f} ms, not in the figure)")


def memory() -> None:
    with table_process() as table:
        idle = _rss(table.run.pid)
        clients = [Client(table.port) for _ in range(2)]
        for client in clients:
            client.start()
        command(table.port, {"command": "shuffle_done"})
        for _ in range(10):
            table.shoe_says("draw 1")
            command(table.port, {"command": "seat", "seat": 1, "in_play": True, "main": 1000})
            command(table.port, {"command": "stand"})
            time.sleep(0.3)
        peak = _rss(table.run.pid, "VmHWM")
        print(f"shoectl run: RSS idle {idle / 1024:.1f} MiB; peak (VmHWM) with the console "
              f"and 2 event clients while dealing {peak / 1024:.1f} MiB")


def _rss(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_port(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/table", headers=KIOSK_AUTH)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError("shoectl run never answered")


class StepClock:
    """Times each step of a card's way through the table (the loop's handler and journal
    wrapped, the hub's publications watched): `mark_draw` before each draw, `take` after."""

    def __init__(self, rig: ConsoleRig) -> None:
        from drivers.events import CardDrawn

        self.now: dict[str, float] = {}
        self.commits: list[float] = []
        self.published: dict[int, float] = {}
        app = rig.app
        handler = app.handle
        runtime = app.runtime
        assert runtime is not None
        journal_commit = runtime.journal.commit

        def handle(event: object) -> None:
            if isinstance(event, CardDrawn):
                self.now["loop"] = time.perf_counter()
                self.now["cpu"] = time.thread_time()
            handler(event)  # type: ignore[arg-type]
            if isinstance(event, CardDrawn):
                self.now["handled_cpu"] = time.thread_time()
                self.now["handled"] = time.perf_counter()

        def commit(*args: object, **kwargs: object) -> int:
            started = time.perf_counter()
            try:
                return journal_commit(*args, **kwargs)  # type: ignore[arg-type]
            finally:
                self.commits.append(time.perf_counter() - started)

        app.loop.set_handler(handle)
        runtime.journal.commit = commit  # type: ignore[method-assign]
        rig.web.hubs[0].subscribe(lambda published: self.published.__setitem__(
            published.seq, time.perf_counter()))

    def mark_draw(self) -> float:
        self.now.clear()
        self.commits.clear()
        return time.perf_counter()

    def take(self, start: float, shown: int, at: float) -> dict[str, float] | None:
        for _ in range(1000):  # the handler returns just after it published
            if "handled" in self.now:
                break
            time.sleep(0.001)
        if "loop" not in self.now or "handled" not in self.now or shown not in self.published:
            return None
        return {"shoe frame -> loop": (self.now["loop"] - start) * 1000,
                "table handles it": (self.now["handled"] - self.now["loop"]) * 1000,
                "  of it the commit": sum(self.commits) * 1000,
                "  its CPU (loop thread)": (self.now["handled_cpu"] - self.now["cpu"]) * 1000,
                "publication -> client": (at - self.published[shown]) * 1000,
                "card -> client": (at - start) * 1000}


def steps(cards: int) -> None:
    """Where a card's time goes (`--steps`)."""
    from controller.rules.cards import shoe
    shoe_cards = [str(c) for c in shoe(6)] * 3
    with tempfile.TemporaryDirectory() as tmp:
        rig = start_console_rig(Path(tmp), shoe_cards, seats=3)
        port = rig.web.servers[0].port
        clock = StepClock(rig)
        client = Client(port)
        client.start()
        time.sleep(0.5)
        rows: list[dict[str, float]] = []
        for start, shown, at in dealt_cards(rig, [client], clock.mark_draw):
            row = clock.take(start, shown, at)
            if row is not None:
                rows.append(row)
            if len(rows) >= cards:
                break
        print(f"where a card's time goes, {len(rows)} cards (card frame on the wire at "
              f"{BAUD} baud {wire_ms(CARD_FRAME_BYTES):.2f} ms, not in these figures):")
        for name in rows[0]:
            values = [row[name] for row in rows]
            print(f"  {name:<22} p50 {statistics.median(values):6.2f} ms  p90 "
                  f"{pct(values, 0.9):6.2f} ms  p99 {pct(values, 0.99):6.2f} ms")
        client.stream.close()
        rig.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--attacks", default="",
                        help="comma-separated: none, flood, idle, bodies (skips the rest)")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--attacker-nice", type=int, default=0, metavar="N",
                        help="run the attacker at niceness N (0-19), as if on another host")
    parser.add_argument("--login-timing", type=int, default=0, metavar="N",
                        help="only the login timing: N wrong user names and N wrong passwords")
    parser.add_argument("--process", action="store_true",
                        help="only card -> event with shoectl run in a process of its own")
    parser.add_argument("--steps", action="store_true",
                        help="only where a card's time goes, step by step")
    parser.add_argument("--attacker", choices=("flood", "idle", "bodies"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    if args.attacker:
        attack(args.attacker, args.port)
        return
    if args.login_timing:
        login_timing(args.login_timing)
        return
    if args.steps:
        steps(args.cards)
        return
    if args.process:
        process_latency(args.cards)
        return
    if args.attacks:
        for kind in args.attacks.split(","):
            attacked_latency(args.cards, kind, args.attacker_nice)
        return
    latency(args.cards)
    if not args.no_memory:
        memory()


if __name__ == "__main__":
    main()
