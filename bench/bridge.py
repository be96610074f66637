"""firmware_bridge throughput: what the host can decode and encode, against the wire's speed.

    .venv/bin/python bench/bridge.py [--seconds S] [--section NAME ...]

Each section prints one row per case: operations per second, microseconds per operation,
the frame's time on the wire at 115200 baud (10 bits per byte), and the headroom (wire time
divided by processing time: how many times faster than the line the host keeps up).

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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable without installing

from firmware_bridge import load_catalogue
from firmware_bridge.codec import Codec, FieldValue
from firmware_bridge.framing import Frame, FrameDecoder, FrameKind, encode_frame

BAUD = 115200
BITS_PER_BYTE = 10
CATALOGUE = Path(__file__).resolve().parents[1] / "drivers" / "catalogue.toml"
HOST_BENCH_EVENTS = 240  # the board's event queue in the host section: never the bottleneck


@dataclass(frozen=True)
class Options:
    seconds: float


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


Section = Callable[[Options], "list[Row] | list[LatencyRow]"]
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
        "largest frame (240-byte payload)": Frame(FrameKind.DATA, 1, 1, bytes(range(240))),
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
                            event_capacity=HOST_BENCH_EVENTS)
    host = HostEndpoint("bench", catalogue, Expectation("shoe"), clock, history=10)
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
            ShoeEmulator(ShoeContents.scripted(codes), link_dir=Path(workdir)) as emulator:
        link = LinkOptions(emulator.path, table_catalogue(), link_timing(750))
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/bridge.py", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="time per case")
    parser.add_argument("--section", action="append", choices=sorted(SECTIONS),
                        help="run only these sections (default: all)")
    args = parser.parse_args(argv)
    options = Options(args.seconds)
    print(f"firmware_bridge throughput (wire time at {BAUD} baud, {BITS_PER_BYTE} bits/byte)")
    for name in args.section or list(SECTIONS):
        print(f"[{name}]")
        for row in SECTIONS[name](options):
            print(row.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
