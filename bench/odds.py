"""Time every `shoectl odds` wager at its usual deck counts; print time and house edge.

Run: .venv/bin/python bench/odds.py
Each figure is one cold computation (caches cleared), as `shoectl odds BET --decks N` does it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.odds import baccarat_sheets
from controller.odds.registry import BETS, Settings


def main() -> int:
    rows = [("bet", "decks", "options", "seconds", "house edge", "command")]
    for bet in BETS.values():
        variants = [()] if "soft17" not in bet.options else [(), ("--soft17", "hit")]
        for decks in bet.usual_decks:
            for extra in variants:
                baccarat_sheets.coups.cache_clear()
                settings = Settings(decks=decks, hits_soft_17=bool(extra))
                start = time.perf_counter()
                sheet = bet.build(settings)
                seconds = time.perf_counter() - start
                edge = sheet.house_edge
                command = " ".join(("shoectl odds", bet.name, "--decks", str(decks), *extra))
                rows.append((bet.name, str(decks), " ".join(extra) or "-", f"{seconds:.2f}",
                             "n/a" if edge is None else f"{float(edge) * 100:.4f}%", command))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for number, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
        if number == 0:
            print("  ".join("-" * width for width in widths))
    print("blazing7s at the default meter: 2000 x the 5.00 wager (10,000.00)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
