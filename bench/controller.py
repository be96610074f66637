"""Controller figures.

* Peek latency over the pseudo-terminals: from the shoe emulator writing the hole card's
  frames to the blackjack lamp command leaving for the layout board (the driver has written
  its frame), p50 and p99, next to the wire time of those frames at 115200 baud.
* Rounds per second through the pseudo-terminals (real drivers, firmware_bridge, emulators)
  and in-process (the loop fed directly), both with the durable journal; and over the
  pseudo-terminals with the emulated camera cross-checking every card (`--camera`).
* The camera cross-check's frame: drawing the emulated 1280x960 layout, and recognising it
  (generic profile) as the camera worker does, p50 and p95.
* Peak RSS of this process.
"""

from __future__ import annotations

import contextlib
import io
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

# This script is named like the package it measures: keep its folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from controller.cli import simulate_command  # noqa: E402
from controller.service.app import TableApp  # noqa: E402
from controller.service.runtime import ControllerEvent  # noqa: E402
from controller.sim import options as sim_options  # noqa: E402
from controller.sim import rig  # noqa: E402
from drivers.emulated.board import table_catalogue  # noqa: E402
from drivers.emulated.shoe_model import ShoeContents  # noqa: E402
from firmware_bridge.codec import Codec  # noqa: E402
from firmware_bridge.framing import Frame, FrameKind, encode_frame  # noqa: E402

BAUD = 115200
SAMPLES = 200


def options(extra: list[str]) -> sim_options.Options:
    return simulate_command.parse_options(extra)


def peek_app(workdir: Path) -> TableApp:
    return rig.start_rig_app("bench", options([]).config,
                                  rig.RigSpec(1, 1, burn=False),
                                  state_dir=workdir / "state", ports=workdir / "ports")


def peek_latencies(app: TableApp) -> list[float]:
    layout, shoe = app.devices.layout, app.devices.emulators["shoe"]
    runtime = app.runtime
    assert layout is not None
    assert runtime is not None
    sent: list[float] = []
    original = layout.set_lamp

    def timed(lamp: str, state: object) -> None:
        original(lamp, state)  # type: ignore[arg-type]
        if lamp == "blackjack" and str(state) == "on":
            sent.append(time.perf_counter())

    layout.set_lamp = timed  # type: ignore[method-assign]
    times = []
    for _ in range(SAMPLES):
        shoe.load(ShoeContents.scripted(["9C", "KS", "7D", "AH"]))
        # The emptied four-card shoe has already sent the table back to shoe loading.
        start_round = [("new_shoe", {})] if runtime.model.state != "shoe_loading" else []
        for trigger, kwargs in (*start_round, ("shuffle_done", {}),
                                ("wager", {"seat": 1, "bet": "main", "cents": 1000}),
                                ("no_more_bets", {})):
            app.loop.post(ControllerEvent(trigger, kwargs))
        drawn = runtime.handled_kinds.get("CardDrawn", 0)
        for _ in range(3):
            shoe.draw()
        app.loop.run_until(lambda d=drawn: runtime.handled_kinds.get("CardDrawn", 0) >= d + 3,
                           10)
        before = len(sent)
        start = time.perf_counter()
        shoe.draw()  # the hole card: AH under KS
        app.loop.run_until(lambda b=before: len(sent) > b, 10)
        times.append(sent[-1] - start)
        app.loop.run_until_idle()
        if runtime.model.state == "round_over":
            app.loop.post(ControllerEvent("clear_round", {}))
            app.loop.run_until_idle()
    return times


def hole_card_wire_ms() -> tuple[int, float]:
    codec = Codec(table_catalogue().board("shoe"))
    payloads = [codec.encode("card_read", {"count": 3, "card_no": 3, "code": "AH",
                                           "quality": 100}),
                codec.encode("card_out", {"count": 4, "card_no": 3, "tick_ms": 123456})]
    wire = sum(len(encode_frame(Frame(FrameKind.DATA, 1, 1, p))) for p in payloads)
    return wire, wire * 10 / BAUD * 1000


def rounds_per_second(extra: list[str], state_dir: Path, rounds: int = 200) -> float:
    start = time.perf_counter()
    code = simulate_command.main(["--rounds", str(rounds), "--json", "--state-dir", str(state_dir),
                          *extra])
    assert code == 0
    return rounds / (time.perf_counter() - start)


def camera_frame_ms(frames: int = 20) -> tuple[list[float], list[float], int]:
    """Draw and recognise frames of a dealt 7-seat layout; (draw ms, recognise ms, cards)."""
    import random

    from controller.camera.crosscheck import table_zones
    from controller.camera.emulated import TableRenderer
    from controller.rules.cards import shoe
    from controller.rules.hands import Game
    from vision import Recognizer, load_generic_profile

    zones = table_zones(Game.BLACKJACK, 7)
    renderer = TableRenderer(zones, size=(1280, 960), seed=1)
    recognizer = Recognizer(load_generic_profile())
    cards = [str(c) for c in shoe(6)]
    random.Random(2).shuffle(cards)
    layout = {zone: cards[3 * n:3 * n + 3] for n, zone in enumerate(zones)}
    draw, read = [], []
    for _ in range(frames):
        start = time.perf_counter()
        image = renderer(layout)
        middle = time.perf_counter()
        recognizer.recognize(image)
        draw.append((middle - start) * 1e3)
        read.append((time.perf_counter() - middle) * 1e3)
    return sorted(draw), sorted(read), sum(len(v) for v in layout.values())


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = peek_app(Path(tmp) / "peek")
        try:
            times = sorted(peek_latencies(app))
        finally:
            app.devices.close()
        with contextlib.redirect_stdout(io.StringIO()):  # the rounds' JSON
            pty = rounds_per_second([], Path(tmp) / "pty")
            direct = rounds_per_second(["--in-process"], Path(tmp) / "direct")
            camera = rounds_per_second(["--camera"], Path(tmp) / "camera", rounds=10)
    frame_bytes, wire_ms = hole_card_wire_ms()
    draw, read, cards = camera_frame_ms()
    p50, p99 = statistics.median(times) * 1e3, times[int(len(times) * 0.99) - 1] * 1e3
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peek latency over ptys (hole card frames written -> blackjack lamp frame written), "
          f"{len(times)} samples: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    print(f"wire time of the hole card's frames ({frame_bytes} bytes at {BAUD} baud): "
          f"{wire_ms:.2f} ms")
    print(f"rounds/s, blackjack, 5 seats, all side wagers, durable journal: "
          f"over ptys {pty:.1f}, in-process {direct:.1f}, over ptys with the camera "
          f"cross-check {camera:.2f}")
    print(f"camera frame, 1280x960, {cards} cards on 8 positions, {len(read)} frames: "
          f"draw (emulated) p50 {statistics.median(draw):.0f} ms, "
          f"recognise p50 {statistics.median(read):.0f} ms, "
          f"p95 {read[int(len(read) * 0.95) - 1]:.0f} ms")
    print(f"peak RSS: {rss:.1f} MiB")


if __name__ == "__main__":
    main()
