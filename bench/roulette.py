"""Roulette figures: par sheets, the wheel feed read exactly, and how fast each part runs.

* The par sheet of every bet on both wheels: the exact win chance and house edge.
* The emulator's hard games over N seeded games: how many of each kind, and how many the
  real driver read differently from the game plan over a real pty (the figure must be 0).
* Lines per second through the pure tracker, and through the driver over the pty.
* `shoectl simulate --game roulette` spins per second (the whole table through the pty).
* Settlement: wagers settled per second; the bias monitor over its longest window.

Run: `.venv/bin/python bench/roulette.py [--games N]`. Figures, no pass or fail.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.cli import simulate_command  # noqa: E402
from controller.odds.registry import BETS, Settings  # noqa: E402
from controller.odds.wheel_bias import bias_report  # noqa: E402
from controller.rules import roulette as ro  # noqa: E402
from drivers.emulated.wheel import WheelPlay  # noqa: E402
from drivers.events import WheelResult, WheelVoid, WheelWarning  # noqa: E402
from drivers.registry import BuildOptions, build_devices  # noqa: E402
from drivers.wheel_protocol import LineSplitter, WheelTracker  # noqa: E402


def par_sheets() -> None:
    print("par sheets (one spin of a fair wheel, exact)")
    for wheel in ro.Wheel:
        for bet in ro.RouletteBet:
            name = f"roulette-{bet}"
            try:
                sheet = BETS[name].build(Settings(decks=0, wheel=wheel))
            except ValueError:
                print(f"  {wheel.value:<6} {name:<22} (no such bet on this wheel)")
                continue
            edge = sheet.house_edge
            assert edge is not None
            win = sheet.lines[0]
            print(f"  {wheel.value:<6} {name:<22} pays {win.payout.label:<5} win "
                  f"{win.probability.numerator}/{win.probability.denominator:<3} house edge "
                  f"{edge.numerator}/{edge.denominator} = {float(edge) * 100:.4f}%")


class Sink:
    def __init__(self) -> None:
        self.facts: list[object] = []
        self.lock = threading.Lock()

    def __call__(self, fact: object) -> None:
        with self.lock:
            self.facts.append(fact)


def spins_of(facts: list[object]) -> list[tuple[int, str | None, tuple[str, ...]]]:
    warned: dict[int, list[str]] = defaultdict(list)
    found = []
    for fact in facts:
        if isinstance(fact, WheelWarning):
            warned[fact.game].append(fact.warning)
        elif isinstance(fact, WheelResult | WheelVoid):
            number = fact.number if isinstance(fact, WheelResult) else None
            found.append((fact.game, number, tuple(warned.pop(fact.game, []))))
    return found


def feed_exactness(games: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        sink = Sink()
        devices = build_devices({"wheel": {"kind": "emulated", "pace_ms": 0, "seed": 2024,
                                           "spins": games}}, sink, allow_emulated=True,
                                options=BuildOptions(workdir=Path(tmp)))
        devices.start()
        emulator, wheel = devices.emulators["wheel"], devices.wheel
        started = time.perf_counter()
        while emulator.send_step():  # each run of lines read before the next, as the
            wheel.wait_handled(emulator.sent, 30)  # simulation sends them
        seconds = time.perf_counter() - started
        dropped = emulator.stats()["dropped"]
        plan = [(e.game, e.number, e.warnings) for e in emulator.expected]
        read = spins_of(sink.facts)
        wrong = sum(a != b for a, b in zip(plan, read, strict=False)) + abs(len(plan) - len(read))
        kinds = Counter(e.scenario for e in emulator.expected)
        lines = emulator.lines_sent
        devices.close()
    print(f"\nwheel feed over a pty: {games} games, {lines} lines, {emulator.sent} bytes")
    print("  games by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"  voids {sum(e is None for _, e, _ in plan)}, warned games "
          f"{sum(bool(w) for _, _, w in plan)}; read differently from the plan: {wrong} "
          f"(bytes the pty dropped: {dropped})")
    print(f"  driver over the pty: {lines / seconds:,.0f} lines/s ({seconds:.2f} s)")
    play = WheelPlay(2024, spins=games)
    data = b"".join(play.lines())
    tracker, splitter = WheelTracker("wheel", lambda: 0.0), LineSplitter()
    started = time.perf_counter()
    for line in splitter.feed(data):
        tracker.feed(line)
    seconds = time.perf_counter() - started
    print(f"  pure tracker: {tracker.lines / seconds:,.0f} lines/s")


def simulation(spins: int) -> None:
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    with redirect_stdout(out), redirect_stderr(err):
        status = simulate_command.main(["--game", "roulette", "--spins", str(spins),
                                        "--seed", "3", "--json"])
    seconds = time.perf_counter() - started
    print(f"\nshoectl simulate --game roulette --spins {spins}: exit {status}, "
          f"{spins / seconds:.1f} spins/s ({seconds:.1f} s)")
    print(f"  {err.getvalue().strip()}")


def settlement_and_bias() -> None:
    wheel, pays = ro.Wheel.DOUBLE, ro.RoulettePays()
    wagers = [ro.RouletteWager(1 + i % 7, bet, spot, 500)
              for i, (bet, spot) in enumerate((b, s) for b in ro.RouletteBet
                                              for s in ro.spots(b, wheel))]
    started = time.perf_counter()
    rounds = 200
    for n in range(rounds):
        ro.settle_spin(wagers, wheel.pockets[n % 38], wheel, pays)
    seconds = time.perf_counter() - started
    print(f"\nsettlement: {len(wagers) * rounds / seconds:,.0f} wagers/s "
          f"({len(wagers)} wagers, every spot of the layout, a spin)")
    draw = random.Random(1)
    numbers = [draw.choice(wheel.pockets) for _ in range(ro.MAX_HISTORY)]
    started = time.perf_counter()
    report = bias_report(numbers, wheel, ro.MAX_HISTORY)
    seconds = time.perf_counter() - started
    print(f"bias monitor over {report.spins} spins: chi-square {report.chi_square:.2f}, "
          f"p {report.p_value:.4g}, {seconds * 1000:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    par_sheets()
    feed_exactness(args.games)
    simulation(200)
    settlement_and_bias()
    return 0


if __name__ == "__main__":
    sys.exit(main())
