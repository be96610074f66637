"""firmware_bridge throughput, and the attacks and faults the links are built to survive.

    .venv/bin/python bench/bridge.py [--seconds S] [--section NAME ...]

Each throughput section prints one row per case: operations per second, microseconds per
operation, the frame's time on the wire at 115200 baud (10 bits per byte), and the headroom
(wire time divided by processing time: how many times faster than the line the host keeps
up). `auth` times sealing and checking a frame's tag. `attacks` reruns the attacks protocol
version 1 fell to and prints, for each, how many were tried, caught and accepted; `faults`
runs the emulated rig through 5 seeds of 20 fault orders a second (cables pulled, state
requests unanswered, frames lost and damaged, forged frames, boards restarted) and prints
the fault holds each caused (a hold is a `DeviceFault`: the table stopped for the
supervisor). `link-down` times an emulated sign gone silent until its driver reports the
link down (R15: under one second, with the protocol's 750 ms timeout).

Sections are registered with `@section(name)`: a function taking the parsed `Options` and
returning `Row`s. A new measurement (e.g. end-to-end latency over a pty) is one more
decorated function; `main` runs every registered section, or those named with --section.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable without installing

from firmware_bridge import PairingKey, load_catalogue
from firmware_bridge.codec import Codec, FieldValue
from firmware_bridge.framing import Frame, FrameDecoder, FrameKind, encode_frame
from firmware_bridge.guard import FrameGuard

BAUD = 115200
BENCH_KEY = PairingKey(bytes(range(200, 232)))
BITS_PER_BYTE = 10
CATALOGUE = Path(__file__).resolve().parents[1] / "drivers" / "catalogue.toml"
HOST_BENCH_EVENTS = 240  # the board's event queue in the host section: never the bottleneck


@dataclass(frozen=True)
class Options:
    seconds: float
    interleavings: int = 10_000
    swaps: int = 50


@dataclass(frozen=True)
class Row:
    case: str
    per_second: float
    wire_bytes: int | None = None

    def line(self) -> str:
        micros = 1e6 / self.per_second
        text = f"  {self.case:<38} {self.per_second:>12,.0f}/s {micros:>9.2f} us"
        if self.wire_bytes:
            wire_us = self.wire_bytes * BITS_PER_BYTE / BAUD * 1e6
            text += (f"   wire {self.wire_bytes:>3} B = {wire_us:>8.1f} us"
                     f"   headroom x{wire_us / micros:,.0f}")
        return text


@dataclass(frozen=True)
class Figure:
    """One counted outcome: what was tried and what came of it."""

    case: str
    text: str

    def line(self) -> str:
        return f"  {self.case:<52} {self.text}"


Section = Callable[[Options], "list[Row] | list[LatencyRow] | list[Figure]"]
SECTIONS: dict[str, Section] = {}


def section(name: str) -> Callable[[Section], Section]:
    def register(function: Section) -> Section:
        SECTIONS[name] = function
        return function
    return register


def rate(operation: Callable[[], object], seconds: float, per_call: int = 1) -> float:
    """Operations per second of `operation` (each call doing `per_call` operations)."""
    calls, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(20):
            operation()
        calls += 20
    return calls * per_call / (time.perf_counter() - start)


def sample_frames() -> dict[str, Frame]:
    catalogue = load_catalogue(CATALOGUE)
    shoe, layout, sign = (Codec(catalogue.board(k)) for k in ("shoe", "layout", "sign"))
    return {
        "ACK / heartbeat": Frame(FrameKind.ACK, 3, 5),
        "set_lamp (command)": Frame(FrameKind.DATA, 1, 2, layout.encode(
            "set_lamp", {"lamp": 12, "mode": "blink_fast"})),
        "card_out (counted event)": Frame(FrameKind.DATA, 9, 4, shoe.encode(
            "card_out", {"count": 41, "card_no": 12, "tick_ms": 90210})),
        "show_win (sign)": Frame(FrameKind.DATA, 7, 1, sign.encode(
            "show_win", {"update": 8, "seat": 3, "amount_cents": 2500000, "hold_s": 20})),
        "largest frame (234-byte payload)": Frame(FrameKind.DATA, 1, 1, bytes(range(234))),
    }


@section("decoder")
def decoder_rows(options: Options) -> list[Row]:
    rows = []
    for name, frame in sample_frames().items():
        wire = encode_frame(frame)
        batch = wire * 100
        decoder = FrameDecoder()
        rows.append(Row(f"decode {name}", rate(lambda d=decoder, b=batch: d.feed(b),
                                               options.seconds, 100), len(wire)))
    wire = encode_frame(sample_frames()["card_out (counted event)"])
    stream = wire * 200
    chunks = [stream[i : i + 8] for i in range(0, len(stream), 8)]
    decoder = FrameDecoder()

    def feed_in_8_byte_reads() -> None:
        for chunk in chunks:
            decoder.feed(chunk)

    rows.append(Row("decode card_out fed in 8-byte reads",
                    rate(feed_in_8_byte_reads, options.seconds, 200), len(wire)))
    return rows


@section("encoder")
def encoder_rows(options: Options) -> list[Row]:
    rows = []
    for name, frame in sample_frames().items():
        wire_len = len(encode_frame(frame))
        rows.append(Row(f"encode {name}", rate(lambda f=frame: encode_frame(f),
                                               options.seconds), wire_len))
    return rows


@section("codec")
def codec_rows(options: Options) -> list[Row]:
    catalogue = load_catalogue(CATALOGUE)
    cases: list[tuple[str, str, dict[str, FieldValue]]] = [
        ("shoe", "card_out", {"count": 41, "card_no": 12, "tick_ms": 90210}),
        ("layout", "set_lamp", {"lamp": 12, "mode": "blink_fast"}),
        ("layout", "lamp_state", {"pattern": "none", "failsafe": False, "modes": bytes(64)}),
        ("sign", "show_win", {"update": 8, "seat": 3, "amount_cents": 2500000, "hold_s": 20}),
    ]
    rows = []
    for board, name, fields in cases:
        codec = Codec(catalogue.board(board))
        payload = codec.encode(name, fields)
        wire_len = len(encode_frame(Frame(FrameKind.DATA, 0, 0, payload)))
        rows.append(Row(f"encode message {name}",
                        rate(lambda c=codec, n=name, f=fields: c.encode(n, f), options.seconds),
                        wire_len))
        rows.append(Row(f"decode message {name}",
                        rate(lambda c=codec, p=payload: c.decode(p), options.seconds), wire_len))
    return rows


@section("host")
def host_rows(options: Options) -> list[Row]:
    """Whole host receive path: decode, link, codec, de-duplication, event_ack."""
    from firmware_bridge import DeviceEndpoint, DeviceIdentity, Expectation, HostEndpoint
    from tests.support.clock import FakeClock
    from tests.support.linked_pair import LinkedPair

    catalogue = load_catalogue(CATALOGUE)
    clock = FakeClock()
    device = DeviceEndpoint(catalogue.board("shoe"), DeviceIdentity("bench"), clock,
                            event_capacity=HOST_BENCH_EVENTS, pairing=BENCH_KEY)
    host = HostEndpoint("bench", catalogue, Expectation("shoe"), clock, history=10,
                        pairing=BENCH_KEY)
    pair = LinkedPair(host, device, clock)
    pair.start()
    pair.run(0.05)
    number = 0

    def one_event() -> None:
        nonlocal number
        number += 1
        device.emit("card_out", card_no=1 + number % 60000, tick_ms=number)
        pair.step()
        host.take_notices()

    wire_len = len(encode_frame(sample_frames()["card_out (counted event)"]))
    return [Row("card_out board->host, acked (both ends)", rate(one_event, options.seconds),
                wire_len)]


@section("auth")
def auth_rows(options: Options) -> list[Row]:
    """A frame's tag: sealed by the sender, checked by the receiver (HMAC-SHA256, 8 bytes)."""
    sender, receiver = FrameGuard(host=False, key=BENCH_KEY), FrameGuard(host=True, key=BENCH_KEY)
    keys = sender.session_keys(bytes(16), bytes(range(16)))
    sender.open(keys)
    receiver.open(keys)
    rows = []
    for name in ("card_out (counted event)", "largest frame (234-byte payload)"):
        frame = sample_frames()[name]
        wire_len = len(encode_frame(frame))
        rows.append(Row(f"seal {name}", rate(lambda f=frame: sender.seal(f), options.seconds),
                        wire_len))
        stream = iter([sender.seal(frame) for _ in range(200_000)])
        rows.append(Row(f"check {name}",
                        rate(lambda s=stream: receiver.admit(next(s)), min(options.seconds, 0.2)),
                        wire_len))
    return rows


# ---------------------------------------------------------------- driver latency over a pty
# From the shoe emulator writing a card_out frame to its pseudo-terminal to the shoe driver
# handing the CardDrawn event to its sink: pty, pyserial, the bridge's reader thread, decode,
# link, codec, de-duplication and event_ack, and the driver's worker thread.


@dataclass(frozen=True)
class LatencyRow:
    """One latency percentile, beside the frame's time on the wire."""

    case: str
    seconds: float
    wire_bytes: int

    def line(self) -> str:
        wire_ms = self.wire_bytes * BITS_PER_BYTE / BAUD * 1e3
        return (f"  {self.case:<38} {self.seconds * 1e3:>9.3f} ms"
                f"   beside the frame's wire time {self.wire_bytes} B = {wire_ms:.3f} ms")


class CardStopwatch:
    """Times one card: the card_out frame's write (`observe`) to the CardDrawn (`sink`)."""

    def __init__(self) -> None:
        self.card_out_id = load_catalogue(CATALOGUE).board("shoe").spec("card_out").id
        self.stamps: dict[str, float] = {}
        self.seen = threading.Event()
        self._decoder = FrameDecoder()

    def observe(self, data: bytes) -> None:
        """The emulator's writes, just before they happen."""
        for item in self._decoder.feed(data):
            if isinstance(item, Frame) and item.payload[:1] == bytes([self.card_out_id]):
                self.stamps.setdefault("written", time.perf_counter())

    def sink(self, event: object) -> None:
        """The shoe driver's events."""
        from drivers.events import CardDrawn, ShoeLoaded

        if isinstance(event, CardDrawn):
            self.stamps["event"] = time.perf_counter()
        if isinstance(event, CardDrawn | ShoeLoaded):
            self.seen.set()

    def time_draw(self, draw: Callable[[], object]) -> float:
        """Seconds from the card_out write to the CardDrawn of one `draw()`."""
        self.stamps.clear()
        self.seen.clear()
        draw()
        if not self.seen.wait(2.0):
            raise RuntimeError("a card did not arrive within 2 s")
        return self.stamps["event"] - self.stamps["written"]


def card_out_latencies(cards: int) -> list[float]:
    """Seconds from the card_out frame's write to the driver's CardDrawn, per card."""
    import tempfile

    from drivers.board import LinkOptions, link_timing, table_catalogue
    from drivers.emulated.shoe import ShoeEmulator
    from drivers.emulated.shoe_model import ShoeContents, deck
    from drivers.shoe import BridgeShoe

    watch = CardStopwatch()
    codes = (deck() * (cards // 52 + 1))[:cards]
    with tempfile.TemporaryDirectory(prefix="shoectl-bench-") as workdir, \
            ShoeEmulator(ShoeContents.scripted(codes), link_dir=Path(workdir),
                         pairing=BENCH_KEY) as emulator:
        link = LinkOptions(emulator.path, table_catalogue(), link_timing(750), pairing=BENCH_KEY)
        shoe = BridgeShoe("shoe", link, watch.sink)
        shoe.start()
        emulator.load()
        watch.seen.wait(2.0)
        emulator.write_observer = watch.observe
        latencies = [watch.time_draw(emulator.draw) for _ in range(cards)]
        shoe.close()
    return latencies


@section("latency")
def latency_rows(options: Options) -> list[LatencyRow]:
    cards = max(200, int(options.seconds * 3000))
    latencies = sorted(card_out_latencies(cards))
    wire_len = len(encode_frame(sample_frames()["card_out (counted event)"]))
    pick = {"p50": latencies[len(latencies) // 2],
            "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]}
    return [LatencyRow(f"card_out written -> CardDrawn {name} ({cards})", seconds, wire_len)
            for name, seconds in pick.items()]


def silent_sign_detections(tries: int) -> list[float]:
    """Seconds from an emulated sign going silent to the driver's LinkDown, per try.

    The figure R15's "under one second" is about; `hil_tests/test_sign.py` checks only
    what load cannot change (never before the timeout less one heartbeat).
    """
    from drivers.events import LinkDown, LinkUp
    from drivers.registry import BuildOptions, build_devices

    events: list[object] = []
    changed = threading.Condition()

    def sink(event: object) -> None:
        with changed:
            events.append(event)
            changed.notify_all()

    options = BuildOptions()
    devices = build_devices({"sign": {"kind": "emulated", "timeout_ms": 750}}, sink,
                            allow_emulated=True, options=options)
    devices.start()
    emulator, found = devices.emulators["sign"], []
    try:
        for _ in range(tries):
            mark = len(events)
            silent_since = options.scheduler.now()
            emulator.go_silent()
            down = wait_for(events, changed, LinkDown, mark)
            found.append(down.at - silent_since)
            emulator.answer_again()
            wait_for(events, changed, LinkUp, len(events))
    finally:
        devices.close()
    return found


def wait_for(events: list[object], changed: threading.Condition, kind: type,
             mark: int) -> Any:
    """The first event of `kind` after `mark` (waiting at most 30 s for it)."""
    def seen() -> list[object]:
        return [event for event in events[mark:] if isinstance(event, kind)]

    with changed:
        if not changed.wait_for(lambda: bool(seen()), 30.0):
            raise RuntimeError(f"no {kind.__name__} within 30 s")
    return seen()[0]


@section("link-down")
def link_down_rows(options: Options) -> list[LatencyRow]:
    tries = max(5, int(options.seconds * 20))
    found = sorted(silent_sign_detections(tries))
    wire_len = len(encode_frame(sample_frames()["card_out (counted event)"]))
    return [LatencyRow(f"sign silent -> LinkDown {name} ({tries})", seconds, wire_len)
            for name, seconds in (("min", found[0]), ("p50", found[len(found) // 2]),
                                  ("max", found[-1]))]


# ---------------------------------------------------------------- attacks and faults
# The attacks protocol version 1 fell to, rerun against version 2, and the fault orders that
# put the table in fault then. Each prints what was tried and what came of it.


@section("attacks")
def attack_figures(options: Options) -> list[Figure]:
    return [forged_frames(), replayed_frames(), forged_boards(), unpaired_hosts(),
            second_openers()]


def paired_pair(board_key: PairingKey | None = BENCH_KEY,
                host_key: PairingKey | None = BENCH_KEY) -> Any:
    """A paired demo-like shoe board and host in memory, session up."""
    from firmware_bridge import DeviceEndpoint, DeviceIdentity, Expectation, HostEndpoint
    from tests.support.clock import FakeClock
    from tests.support.linked_pair import LinkedPair

    catalogue = load_catalogue(CATALOGUE)
    clock = FakeClock()
    device = DeviceEndpoint(catalogue.board("shoe"), DeviceIdentity("bench"), clock,
                            pairing=board_key)
    host = HostEndpoint("bench", catalogue, Expectation("shoe"), clock, pairing=host_key)
    pair = LinkedPair(host, device, clock)
    pair.start()
    pair.run(0.2)
    return pair


def forged_frames(tries: int = 10_000) -> Figure:
    """Valid-CRC frames carrying the host's next sequence number and a card never read."""
    import random

    pair = paired_pair()
    host, codec = pair.host, Codec(load_catalogue(CATALOGUE).board("shoe"))
    expected = host.stats().link.data_received % 256
    dice = random.Random(1)
    for number in range(tries):
        card = codec.encode("card_read", {"count": 7 + number, "card_no": 4, "code": "AS",
                                          "quality": 100})
        host.feed(encode_frame(Frame(FrameKind.DATA, expected, 0, card,
                                     dice.randrange(1 << 32), dice.randbytes(8))))
    delivered = [n for n in host.take_notices() if getattr(n, "name", "") == "card_read"]
    caught = host.stats().link.bad_macs
    return Figure("forged frame (valid CRC, next seq)",
                  f"tried {tries}, caught {caught}, accepted {len(delivered)}")


def replayed_frames() -> Figure:
    """Every frame the board sent in a session, played back to the host by a third party."""
    pair = paired_pair()
    recorded: list[bytes] = []
    pair.to_host.fault = lambda wire: recorded.append(wire) or [wire]
    for number in range(1, 51):
        pair.device.emit("card_read", card_no=number, code="AS", quality=100)
    pair.run(1.0)
    pair.host.take_notices()
    before = pair.host.stats()
    for wire in recorded:
        pair.host.feed(wire)
    delivered = [n for n in pair.host.take_notices() if getattr(n, "name", "") == "card_read"]
    after = pair.host.stats()
    caught = (after.link.replayed - before.link.replayed) + (
        after.link.ignored_frames - before.link.ignored_frames)
    return Figure("replayed frame (recorded earlier in the session)",
                  f"tried {len(recorded)}, caught {caught}, accepted {len(delivered)}")


def forged_boards(tries: int = 5) -> Figure:
    """A board without this Pi's key (another key, or none) answering the host's RESETs."""
    caught = 0
    for number in range(tries):
        key = None if number % 2 else PairingKey.generate()
        pair = paired_pair(board_key=key)
        pair.run(3.0)
        caught += pair.host.stats().link.sessions == 0 and pair.host.auth_problem() is not None
    return Figure("forged board (another key, or none)",
                  f"tried {tries}, caught {caught}, accepted {tries - caught}")


def unpaired_hosts(tries: int = 5) -> Figure:
    """A console without the board's key (or with another's) trying to open a session."""
    caught = 0
    for number in range(tries):
        key = None if number % 2 else PairingKey.generate()
        pair = paired_pair(host_key=key)
        pair.run(3.0)
        caught += pair.device.stats().link.sessions == 0 and pair.device.failsafe
    return Figure("host without the board's key (a console)",
                  f"tried {tries}, caught {caught}, accepted {tries - caught}")


def second_openers(tries: int = 5) -> Figure:
    """A second program opening a board's port while the table holds it."""
    import tempfile

    from drivers.emulated.shoe import ShoeEmulator
    from firmware_bridge import BridgeClient, BridgeError, Expectation, PortInUseError

    refused = connected = 0
    catalogue = load_catalogue(CATALOGUE)
    with tempfile.TemporaryDirectory(prefix="shoectl-bench-") as workdir, \
            ShoeEmulator(link_dir=Path(workdir), pairing=BENCH_KEY) as board, \
            BridgeClient(board.path, catalogue, Expectation("shoe"), pairing=BENCH_KEY) as table:
        table.connect()
        for _ in range(tries):
            second = BridgeClient(board.path, catalogue, Expectation("shoe"), pairing=BENCH_KEY)
            try:
                second.connect(timeout=1.0)
                connected += 1
            except PortInUseError:
                refused += 1
            except BridgeError:
                pass  # it got the port but not a session: not refused, not through either
            finally:
                second.close()
    return Figure("second opener of the live port (the console)",
                  f"tried {tries}, refused {refused}, took the session {connected}")


@section("faults")
def fault_figures(options: Options) -> list[Figure]:
    return [fault_run(seed) for seed in range(1, 6)]


def fault_run(seed: int, orders: int = 40, per_second: float = 20.0) -> Figure:
    """`orders` fault orders at `per_second` on the emulated rig; the fault holds they cause."""
    import random
    import tempfile

    from drivers.events import DeviceFault, LinkUp
    from drivers.registry import BuildOptions, build_devices
    from firmware_bridge import LinkTiming

    dice = random.Random(seed)
    events: list[object] = []
    devices_config = {
        "shoe": {"kind": "emulated", "seed": seed},
        "layout": {"kind": "emulated", "lamps": {"fault": 0, "seat1": 1},
                   "bet_sensors": {"seat1": 0}},
        "sign": {"kind": "emulated"},
    }
    timing = LinkTiming(retransmit_timeout=0.02, max_retransmit_timeout=0.1)
    with tempfile.TemporaryDirectory(prefix="shoectl-bench-") as workdir:
        devices = build_devices(devices_config, events.append, allow_emulated=True,
                                options=BuildOptions(timing=timing, workdir=Path(workdir)))
        devices.start()
        try:
            for _ in range(orders):
                FAULT_ORDERS[dice.randrange(len(FAULT_ORDERS))](devices, dice)
                time.sleep(1 / per_second)
            heal(devices)
            deadline = time.monotonic() + 60
            while not all(d.link_up for d in devices.all()) and time.monotonic() < deadline:
                time.sleep(0.05)
            up = all(d.link_up for d in devices.all())
        finally:
            devices.close()
    holds = sum(isinstance(event, DeviceFault) for event in events)
    reconnections = sum(isinstance(event, LinkUp) for event in events) - 3
    return Figure(f"seed {seed}: {orders} fault orders at {per_second:g}/s",
                  f"fault holds {holds}, reconnections {reconnections}, "
                  f"all links up again: {'yes' if up else 'NO'}")


def _unplug(devices: Any, dice: Any) -> None:
    emulator = devices.emulators[dice.choice(["shoe", "layout", "sign"])]
    emulator.unplug() if emulator.plugged else emulator.replug()


def _mute_state_request(devices: Any, dice: Any) -> None:
    """A board stops answering its state request (a reconciliation times out)."""
    name, request, answer = dice.choice([("sign", "get_sign_state", "_on_get_sign_state"),
                                         ("layout", "get_input_state", "_on_get_inputs"),
                                         ("shoe", "get_shoe_state", "_answer_state")])
    emulator = devices.emulators[name]
    muted = dice.random() < 0.5
    emulator.endpoint.on(request, (lambda message: None) if muted else getattr(emulator, answer))
    if muted:
        emulator.unplug()
        emulator.replug()  # the set-up after this reconnect finds the request unanswered


def _noise(devices: Any, dice: Any) -> None:
    emulator = devices.emulators[dice.choice(["shoe", "layout", "sign"])]
    rate_ = dice.choice([0.0, 0.02, 0.05])
    emulator.set_fault_rates(corrupt=rate_, drop=rate_, seed=dice.randrange(1000))


def _forge(devices: Any, dice: Any) -> None:
    """Forged frames with valid CRCs and likely sequence numbers, towards the host."""
    emulator = devices.emulators[dice.choice(["shoe", "layout", "sign"])]
    for seq in range(dice.randrange(4), 256, 64):
        emulator.send_garbage(encode_frame(Frame(FrameKind.DATA, seq, 0, b"\x10\x00",
                                                 dice.randrange(1 << 32), dice.randbytes(8))))


def _restart(devices: Any, dice: Any) -> None:
    devices.emulators[dice.choice(["layout", "sign"])].restart()


FAULT_ORDERS: list[Callable[[Any, Any], None]] = [_unplug, _mute_state_request, _noise, _forge,
                                                   _restart]


def heal(devices: Any) -> None:
    """Every cable in, every request answered, the line clean."""
    for name, request, answer in (("sign", "get_sign_state", "_on_get_sign_state"),
                                  ("layout", "get_input_state", "_on_get_inputs"),
                                  ("shoe", "get_shoe_state", "_answer_state")):
        emulator = devices.emulators[name]
        emulator.endpoint.on(request, getattr(emulator, answer))
        emulator.set_fault_rates(0.0, 0.0)
        emulator.faults.resume()
        if not emulator.plugged:
            emulator.replug()


@section("interleavings")
def interleaving_figures(options: Options) -> list[Figure]:
    """The shoe link's property over many seeded interleavings (tests/support/shoe_link_rig)."""
    from tests.support.shoe_link_rig import run_many, summary

    started = time.monotonic()
    runs, failures = run_many(range(options.interleavings))
    totals = summary(runs)
    figures = [Figure(f"{options.interleavings} interleavings of a two-deck shoe",
                      f"every card journalled once, in order: {len(runs)}; failed: "
                      f"{len(failures)}"),
               Figure("what they did", f"{totals['cards']} cards, {totals['host kills']} host "
                                       f"kills, {totals['failed starts']} starts failed and "
                                       f"tried again, {totals['board power cycles']} board "
                                       f"power cycles, 2% flipped and 2% dropped frames"),
               Figure("time", f"{time.monotonic() - started:.0f} s wall, "
                              f"{totals['seconds'] / max(len(runs), 1):.2f} s a run")]
    figures += [Figure("failed", failure[:300]) for failure in failures[:3]]
    return figures


@section("swap")
def swap_figures(options: Options) -> list[Figure]:
    """A board swapped for one with another key on a running link, until the device fault."""
    import tempfile

    from drivers.board import LinkOptions, link_timing, table_catalogue
    from drivers.emulated.shoe import ShoeEmulator
    from drivers.events import DeviceFault, LinkUp
    from drivers.shoe import BridgeShoe

    events: list[object] = []
    changed = threading.Condition()

    def sink(event: object) -> None:
        with changed:
            events.append(event)
            changed.notify_all()

    took: list[float] = []
    with tempfile.TemporaryDirectory(prefix="shoectl-bench-") as workdir, \
            ShoeEmulator(link_dir=Path(workdir), pairing=BENCH_KEY) as board:
        shoe = BridgeShoe("shoe", LinkOptions(board.path, table_catalogue(), link_timing(750),
                                              pairing=BENCH_KEY), sink)
        shoe.start()
        try:
            for swap in range(options.swaps):
                mark = len(events)
                swapped = time.monotonic()
                board.swap(PairingKey(bytes(range(swap % 200, swap % 200 + 32))))
                wait_for(events, changed, DeviceFault, mark)
                took.append(time.monotonic() - swapped)
                mark = len(events)
                board.swap(BENCH_KEY)  # the genuine board back before the next swap
                wait_for(events, changed, LinkUp, mark)
        finally:
            shoe.close()
    took.sort()
    p50, p99 = took[len(took) // 2], took[min(len(took) - 1, round(0.99 * len(took)))]
    return [Figure(f"board swapped on a running link ({options.swaps} swaps)",
                   f"to the device fault: p50 {p50 * 1e3:.0f} ms, p99 {p99 * 1e3:.0f} ms, "
                   f"max {took[-1] * 1e3:.0f} ms (750 ms link timeout; goal 3 s)")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/bridge.py", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="time per case")
    parser.add_argument("--interleavings", type=int, default=10_000,
                        help="seeds of the interleavings section (default 10,000)")
    parser.add_argument("--swaps", type=int, default=50, help="swaps of the swap section")
    parser.add_argument("--section", action="append", choices=sorted(SECTIONS),
                        help="run only these sections (default: all)")
    args = parser.parse_args(argv)
    options = Options(args.seconds, args.interleavings, args.swaps)
    print(f"firmware_bridge throughput (wire time at {BAUD} baud, {BITS_PER_BYTE} bits/byte)")
    for name in args.section or list(SECTIONS):
        print(f"[{name}]")
        for row in SECTIONS[name](options):
            print(row.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
