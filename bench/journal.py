"""Journal figures: the attacks of the trust report rerun, single-byte flips, commit cost.

* Every attack in `tests/support/journal_attacks.py` on a fresh journal of a simulated table:
  the exit status of `shoectl journal verify` (3 = caught), its verdict line, and whether the
  check left every file byte for byte as it was.
* Random single-byte flips of the database, its WAL (a journal whose writer was killed) and
  the anchor: how many `verify` called damaged (exit 3), how many it called intact (exit 0,
  and then the records and meters read back are the original's), and tracebacks (0).
* Commits per second of the durable journal (two anchor writes and the WAL commit, each
  on storage) on this machine's disk.

Run: `.venv/bin/python bench/journal.py [--flips N]`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.cli import journal_command, meter_command  # noqa: E402
from controller.journal.store import JournalStore  # noqa: E402
from controller.procedure.core.effects import Journal  # noqa: E402
from tests.support import journal_attacks as attacks  # noqa: E402


def _cli(main, argv: list[str]) -> tuple[int | str, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: int | str = main(argv)
        except BaseException:  # noqa: BLE001 (a traceback is what the figure counts)
            code = "traceback"
            err.write(traceback.format_exc())
    return code, out.getvalue(), err.getvalue()


def _attacks(work: Path) -> None:
    base, other, killed = work / "base", work / "other", work / "killed"
    attacks.simulated_journal(base, rounds=6, seed=5)
    attacks.simulated_journal(other, rounds=6, seed=6)
    attacks.killed_journal(killed)
    print("attack                                                  verify  bytes kept  verdict")
    caught = 0
    for name, attack in attacks.ATTACKS.items():
        source = killed if name in attacks.NEEDS_KILLED else base
        target = work / "attacked"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)
        shutil.copy2(source.with_name(source.name + ".journal-key"),
                        target.with_name("attacked.journal-key"))
        attack(target, other)
        before = attacks.file_digests(target)
        code, _out, err = _cli(journal_command.main, ["verify", "--state-dir", str(target)])
        kept = attacks.file_digests(target) == before
        caught += code == journal_command.EXIT_INTEGRITY
        first = err.strip().splitlines()[0] if err.strip() else "(nothing on stderr)"
        print(f"{name:<55} {code!s:>6}  {'yes' if kept else 'NO':>10}  {first[:110]}")
        if name.startswith("forge a meter"):
            mcode, mout, merr = _cli(meter_command.main, ["show", "--json", "--state-dir",
                                                           str(target)])
            print(f"{'  meter show after that forgery':<55} {mcode!s:>6}  "
                  f"{'':>10}  {(merr or mout).strip()[:110]}")
    print(f"forgeries and damage caught: {caught} of {len(attacks.ATTACKS)}")


def _flips(work: Path, count: int) -> None:
    rng = random.Random(2024)
    print(f"\n{'file':<30} flips  damaged(3)  intact(0)  intact-but-changed  other  tracebacks")
    for journal, name in (("base", "journal.sqlite3"), ("killed", "journal.sqlite3-wal"),
                          ("base", "journal.anchor"), ("killed", "journal.anchor")):
        source = work / journal
        _, baseline, _ = _cli(journal_command.main, ["export", "--jsonl", "--state-dir",
                                                     str(source)])
        _, meters, _ = _cli(meter_command.main, ["show", "--json", "--state-dir", str(source)])
        tally = {"3": 0, "0": 0, "changed": 0, "other": 0, "traceback": 0}
        for _ in range(count):
            target = work / "flipped"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target)
            shutil.copy2(work / f"{journal}.journal-key", work / "flipped.journal-key")
            size = (target / name).stat().st_size
            attacks.flip_byte(target / name, rng.randrange(size), rng.randrange(1, 256))
            code, _out, err = _cli(journal_command.main, ["verify", "--state-dir", str(target)])
            if code == "traceback":
                tally["traceback"] += 1
            elif code == 0:
                _, exported, _ = _cli(journal_command.main,
                                      ["export", "--jsonl", "--state-dir", str(target)])
                _, shown, _ = _cli(meter_command.main,
                                   ["show", "--json", "--state-dir", str(target)])
                tally["0" if (exported, shown) == (baseline, meters) else "changed"] += 1
            elif code == 3 and err.strip():
                tally["3"] += 1
            else:
                tally["other"] += 1
        print(f"{journal + '/' + name:<30} {count:>5}  {tally['3']:>10}  {tally['0']:>9}  "
              f"{tally['changed']:>18}  {tally['other']:>5}  {tally['traceback']:>10}")


def _commit_rate(work: Path) -> None:
    store = JournalStore(work / "rate", clock=time.monotonic)
    started = time.perf_counter()
    n = 300
    for i in range(n):
        store.commit([Journal("card:dealt", {"card": "AS", "n": i})], {"n": i})
    elapsed = time.perf_counter() - started
    store.close()
    print(f"\ndurable commits: {n / elapsed:.0f}/s ({1000 * elapsed / n:.2f} ms each: anchor "
          "pending + WAL commit + anchor done, each fdatasync'd)")
    started = time.perf_counter()
    JournalStore(work / "rate", clock=time.monotonic).close()
    print(f"start-up check of {n} records: {1000 * (time.perf_counter() - started):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flips", type=int, default=300, help="flips per file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="shoectl-bench-journal-") as tmp:
        work = Path(tmp)
        _attacks(work)
        _flips(work, args.flips)
        _commit_rate(work)


if __name__ == "__main__":
    main()
