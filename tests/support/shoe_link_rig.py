"""Random interleavings of the shoe link's faults, with every card checked at the end.

One interleaving deals a shuffled two-deck shoe from the shoe board's byte-level emulator to
the real shoe driver (`drivers.shoe.BridgeShoe`, firmware_bridge underneath), whose records
the host journals as the table does: placed by `controller.service.shoe_numbers` (the
controller's own code), committed with the shoe tally to a real `JournalStore`, and only then
declared handled (the board forgets an event only then). Meanwhile, drawn from one seed:

* the host is killed (its line cut first, so it says nothing more, then its threads stopped
  with whatever they held: records received and not committed, committed and not
  acknowledged) and restarted on the same journal, as `kill -9` and systemd would;
* the board power-cycles (a new boot id, its numbering from 1 again) at a moment its events
  are all acknowledged: a card whose report is still on the board at a power cut is lost
  with it, which the table holds for and the supervisor resolves; that is tested apart;
* frames are flipped and dropped on the line, both ways (2% each by default);
* cards are drawn while no host runs (the board keeps their events, up to `DOWN_ROOM`).

`check` then asserts what PROTOCOL.md sections 9 and 12 promise: every card the board reported
is journalled exactly once, in the order drawn, under consecutive numbers, and no card was
unplaceable or skipped. The line is in memory (`MemoryLine`), so the test needs no pty; the
clocks are real, so link timers run as on a table.
"""

from __future__ import annotations

import os
import queue
import random
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal
from controller.procedure.core.roundstate import NumberPlacement, ShoeTally
from controller.service.shoe_numbers import ShoeNumbers, resume_numbering
from drivers.board import LinkOptions, link_timing, table_catalogue
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_model import CUT_CARD, ShoeContents, ShoePlan
from drivers.errors import DriverError
from drivers.events import CardDrawn, ShoeFault, ShoeFaultKind, ShoeLoaded
from drivers.shoe import BridgeShoe
from firmware_bridge import LinkTiming, PairingKey

FAST = LinkTiming(retransmit_timeout=0.01, max_retransmit_timeout=0.08)
WAIT = 30.0  # an upper bound for a loaded machine, never a speed the checks rely on
TICK = 0.01
START_TRIES = 5
DOWN_ROOM = 40
"""While no host runs, cards are drawn only while the board holds at most this many events:
it keeps 64 (PROTOCOL.md 9), and a card is two (its read and its exit); beyond that the board
drops events, which the host reports as missed counts (tested apart)."""


class _HostEnd:
    """The host's end of a `MemoryLine`: a `firmware_bridge` transport with a reader thread."""

    def __init__(self, line: MemoryLine) -> None:
        self._line = line
        self._inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    def open(self, on_bytes: Callable[[bytes], None], on_tick: Callable[[], None],
             on_error: Callable[[BaseException], None]) -> None:
        def read() -> None:
            while not self._closed.is_set():
                try:
                    data = self._inbox.get(timeout=TICK)
                except queue.Empty:
                    on_tick()
                    continue
                if data is None:
                    return
                on_bytes(data)
                on_tick()

        self._line.attach(self)
        self._thread = threading.Thread(target=read, name="memory-line-host", daemon=True)
        self._thread.start()

    def arrive(self, data: bytes) -> None:
        self._inbox.put(data)

    def write(self, data: bytes) -> None:
        if not self._closed.is_set():
            self._line.to_board(self, data)

    def close(self) -> None:
        self._closed.set()
        self._inbox.put(None)
        self._line.detach(self)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)


class MemoryLine:
    """A serial line in memory between a board emulator and whichever host is plugged in.

    The emulator takes it as its USB device (`send`, `on_receive`); each host connection asks
    for a `transport()`. `cut()` severs the host's end at once: what it writes after that is
    lost, as when a process dies.
    """

    def __init__(self) -> None:
        self.on_receive: Callable[[bytes], None] | None = None
        self.plugged = True
        self._host: _HostEnd | None = None
        self._lock = threading.Lock()

    def transport(self) -> _HostEnd:
        """A fresh host end (the driver makes one per connection attempt)."""
        return _HostEnd(self)

    def attach(self, end: _HostEnd) -> None:
        with self._lock:
            self._host = end

    def detach(self, end: _HostEnd) -> None:
        with self._lock:
            if self._host is end:
                self._host = None

    def cut(self) -> None:
        """The host is gone: nothing more passes either way until a new end attaches."""
        with self._lock:
            self._host = None

    def send(self, data: bytes) -> None:
        """Bytes from the board."""
        with self._lock:
            host = self._host
        if host is not None:
            host.arrive(data)

    def to_board(self, end: _HostEnd, data: bytes) -> None:
        with self._lock:
            if self._host is not end:
                return
        receive = self.on_receive
        if receive is not None:
            receive(data)


class Host:
    """One run of the host: the real shoe driver, the controller's numbering, a real journal.

    A start that fails (the board's set-up unanswered within its second: a busy machine, a
    frame lost at the wrong moment) is what systemd restarts: `start_host` tries again.
    """

    def __init__(self, line: MemoryLine, state_dir: Path, key: PairingKey) -> None:
        self.journal = JournalStore(state_dir, clock=time.monotonic)
        critical = self.journal.load_critical()
        shoe = ((critical or {}).get("procedure") or {}).get("shoe")
        self.tally = ShoeTally(**shoe) if shoe else ShoeTally()
        self.numbers = ShoeNumbers(lambda: self.tally)
        self.restarts_seen = 0
        self.acknowledge = True
        """False: records are committed but the board is never told (a host that dies
        between its commits and its acknowledgements)."""
        self.link = LinkOptions("memory:shoe", table_catalogue(), link_timing(750, FAST),
                                transport_factory=line.transport, pairing=key)
        self.shoe = BridgeShoe("shoe", self.link, self.handle, emulated=True,
                               ack_when_handled=True)
        resume_numbering(self.shoe, critical)
        try:
            self.shoe.start()
        except DriverError:
            self.shoe.close()
            self.journal.close()
            raise

    def handle(self, event: object) -> None:
        """What the table does with the shoe's records (on the driver's worker thread)."""
        records: list[Journal] = []
        if isinstance(event, CardDrawn):
            place = self.numbers.card(event)
            records += [e for e in place.effects if isinstance(e, Journal)]
            if place.placement in (NumberPlacement.NEXT, NumberPlacement.GAP):
                records.append(Journal("card:taken", {"card_no": event.count,
                                                      "card": event.code}))
        elif isinstance(event, ShoeFault):
            if event.kind is ShoeFaultKind.RESTARTED:
                self.numbers.note(event.numbering)
                self.restarts_seen += 1
            records.append(Journal("shoe:fault", {"kind": event.kind.value,
                                                  "count": event.count}))
        elif isinstance(event, ShoeLoaded):
            self.numbers.loaded(event.numbering)
            records.append(Journal("shoe:loaded", {}))
        else:
            return
        self.journal.commit(records, {"procedure": {"shoe": self.tally.to_json()}})
        if self.acknowledge:
            self.shoe.handled(event)  # only once the journal holds it

    def kill(self, line: MemoryLine) -> None:
        """As `kill -9`: the line first (nothing more is said), then the threads, the journal."""
        line.cut()
        self.shoe.close()
        self.journal.close()


@dataclass
class Interleaving:
    """What one seeded run did, for the checks and the bench."""

    seed: int
    steps: list[str] = field(default_factory=list)
    kills: int = 0
    failed_starts: int = 0
    power_cycles: int = 0
    drawn: int = 0
    seconds: float = 0.0


def start_host(line: MemoryLine, state_dir: Path, key: PairingKey, done: Interleaving) -> Host:
    """A host started on the line, tried again (as systemd does) while its start fails."""
    for _ in range(START_TRIES - 1):
        try:
            return Host(line, state_dir, key)
        except DriverError:
            line.cut()
            done.failed_starts += 1
    return Host(line, state_dir, key)


def _wait(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {WAIT} s: {what}")
        time.sleep(0.002)


def run_interleaving(seed: int, state_dir: Path, *, decks: int = 2, flips: float = 0.02,
                     drops: float = 0.02) -> Interleaving:
    """Deal one shoe through a seeded interleaving of kills, power cycles, flips and drops."""
    dice = random.Random(seed)
    started = time.monotonic()
    done = Interleaving(seed)
    key = PairingKey(dice.randbytes(32))
    line = MemoryLine()
    contents = ShoeContents.shuffled(ShoePlan(decks=decks, seed=seed,
                                              cut_card_from_end=dice.randrange(10, 40)))
    board = ShoeEmulator(contents, usb=line, pairing=key, timing=FAST)  # type: ignore[arg-type]
    board.set_fault_rates(corrupt=flips, drop=drops, seed=seed)
    board.start()
    host: Host | None = start_host(line, state_dir, key, done)
    try:
        board.load()
        while board.contents.remaining:
            roll = dice.random()
            if roll < 0.04 and host is not None:
                host.kill(line)
                host = None
                done.kills += 1
                done.steps.append("kill")
            elif roll < 0.10 and host is None:
                host = start_host(line, state_dir, key, done)
                done.steps.append("restart")
            elif roll < 0.13 and host is not None:
                _wait(lambda: board.stats().events_pending == 0, "the board's events handled")
                board.restart()
                done.power_cycles += 1
                done.steps.append("power cycle")
            elif host is not None or board.stats().events_pending <= DOWN_ROOM:
                count = dice.randint(1, 4)
                for _ in range(count):
                    if host is not None:
                        board.wait_for_room(WAIT)
                    if board.draw() not in (None, CUT_CARD):
                        done.drawn += 1
                done.steps.append(f"draw {count}")
        if host is None:
            host = start_host(line, state_dir, key, done)
            done.steps.append("restart")
        _wait(lambda: board.stats().events_pending == 0, "every event acknowledged")
    finally:
        if host is not None:
            host.kill(line)
        board.close()
    done.seconds = time.monotonic() - started
    check(state_dir, board, done)
    return done


def check(state_dir: Path, board: ShoeEmulator, done: Interleaving) -> None:
    """Every card reported journalled exactly once, in order, under consecutive numbers."""
    journal = JournalStore(state_dir, clock=time.monotonic)
    try:
        taken = [e.data for e in journal.entries(["card:taken"])]
        refused = [e.kind for e in journal.entries(["shoe:card_unplaced",
                                                    "shoe:card_after_gap"])]
    finally:
        journal.close()
    context = f"seed {done.seed}: {' / '.join(done.steps)}"
    assert refused == [], f"{context}: {refused}"
    assert [t["card"] for t in taken] == [code for _, code in board.drawn], context
    assert [t["card_no"] for t in taken] == list(range(1, len(taken) + 1)), context


def scratch_root() -> Path | None:
    """Where the runs keep their journals: memory-backed when the system has it.

    The property is about numbering, not storage: a durable commit to disk costs 1 ms here
    against 0.2 ms in memory (the journal's durability is tested apart, `hil_tests/
    test_controller_power_loss.py`).
    """
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else None


def run_many(seeds: range, *, threads: int = 4) -> tuple[list[Interleaving], list[str]]:
    """Run the seeds, `threads` at a time (a run mostly waits on its link's timers)."""
    def one(seed: int) -> Interleaving | str:
        with tempfile.TemporaryDirectory(prefix="shoe-link-", dir=scratch_root()) as tmp:
            try:
                return run_interleaving(seed, Path(tmp) / "state")
            except AssertionError as failure:
                return str(failure)
            except Exception as error:  # noqa: BLE001 - a run that broke is a failure to show
                return f"seed {seed}: {type(error).__name__}: {error}"

    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = list(pool.map(one, seeds))
    return ([r for r in results if isinstance(r, Interleaving)],
            [r for r in results if isinstance(r, str)])


def summary(runs: list[Interleaving]) -> dict[str, Any]:
    """Totals over runs (the bench prints them)."""
    return {"interleavings": len(runs), "cards": sum(r.drawn for r in runs),
            "host kills": sum(r.kills for r in runs),
            "failed starts": sum(r.failed_starts for r in runs),
            "board power cycles": sum(r.power_cycles for r in runs),
            "seconds": round(sum(r.seconds for r in runs), 1)}
