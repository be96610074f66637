"""The journal feed on a real table's journal: what it counts, what it judges, whom it flags."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from controller.analysis.advantage import Decided, Wagered
from controller.analysis.journal_feed import JournalFeed
from controller.journal.audit import export_entries
from controller.rules.cards import Card
from controller.rules.counting import hilo_tag
from controller.rules.options import BLACKJACK_RULES

REPO = Path(__file__).resolve().parents[2]


def simulate(state_dir: Path, *extra: str) -> None:
    """`shoectl simulate --in-process` over a 6-deck shoe, journalled in `state_dir`."""
    subprocess.run([sys.executable, "-m", "controller", "simulate", "--in-process",
                    "--decks", "6", "--seats", "3", "--rounds", "40", "--seed", "11",
                    "--pace", "0", "--json", "--state-dir", str(state_dir), *extra],
                   cwd=REPO, check=True, capture_output=True, timeout=600)


def test_the_feed_counts_what_a_player_saw_and_flags_no_flat_bettor(tmp_path: Path) -> None:
    simulate(tmp_path / "state")
    entries, report = export_entries(tmp_path / "state")
    assert report.ok
    feed = JournalFeed("T1", BLACKJACK_RULES, 6)
    seen: list[object] = []
    original = feed.watch.observe

    def spy(observation: object) -> object:
        seen.append(observation)
        return original(observation)  # type: ignore[arg-type]

    feed.watch.observe = spy  # type: ignore[method-assign]
    alerts = [alert for entry in entries for alert in feed.take(entry.kind, entry.data)]
    assert alerts == []
    rounds = [entry for entry in entries if entry.kind == "round:no_more_bets"]
    assert sum(isinstance(item, Wagered) for item in seen) == 3 * len(rounds)
    assert sum(isinstance(item, Decided) for item in seen) >= len(rounds)
    # The running count is every face-up card's tag plus each turned hole card's, counted
    # from the last shuffle, and never the burn card's.
    last_shuffle = max(index for index, entry in enumerate(entries)
                       if entry.kind == "shoe:shuffled")
    running = 0
    for entry in entries[last_shuffle:]:
        face_up = entry.kind == "card:dealt" and not entry.data["to"][2]
        if face_up or entry.kind == "card:hole_revealed":
            running += hilo_tag(Card.parse(entry.data["card"]))
    assert feed.watch.count.running == running
    burns = sum(entry.kind == "shoe:burn" for entry in entries[last_shuffle:])
    dealt = sum(entry.kind == "card:dealt" for entry in entries[last_shuffle:])
    assert feed.watch.count.out == burns + dealt
