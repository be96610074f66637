"""No card lost or taken twice across any order of board power cycles and host kills.

200 seeded interleavings (`tests/support/shoe_link_rig.py`), each a two-deck shoe dealt from
the shoe board's byte-level emulator to the real shoe driver, with the host killed and
restarted, the board power-cycled, frames flipped and dropped (2% each, both ways) and cards
drawn while no host runs; after each, every card the board reported is in the journal exactly
once, in the order drawn, under consecutive numbers (PROTOCOL.md sections 9 and 12).
`bench/bridge.py --section interleavings` runs 10,000.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from controller.journal.store import JournalStore
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_model import ShoeContents
from firmware_bridge import PairingKey
from tests.support.shoe_link_rig import FAST, WAIT, Host, MemoryLine, run_many, summary

INTERLEAVINGS = 200


def test_every_card_is_journalled_once_in_order_across_kills_and_power_cycles() -> None:
    runs, failures = run_many(range(INTERLEAVINGS))
    assert failures == []
    totals = summary(runs)
    assert totals["interleavings"] == INTERLEAVINGS
    # The interleavings did what they are for: many host kills and board power cycles.
    assert totals["host kills"] >= INTERLEAVINGS // 2
    assert totals["board power cycles"] >= INTERLEAVINGS // 2
    assert totals["cards"] == INTERLEAVINGS * 104


def test_records_committed_but_never_acknowledged_are_not_taken_again(tmp_path: Path) -> None:
    """The host dies between its commits and its acknowledgements: the board repeats
    `shoe_loaded` and the cards to the next host, which must take none of them again."""
    key = PairingKey.generate()
    line = MemoryLine()
    board = ShoeEmulator(ShoeContents.scripted(["AS", "KH", "7D", "2C"]), usb=line,
                         pairing=key, timing=FAST)  # type: ignore[arg-type]
    board.start()
    try:
        mute = Host(line, tmp_path / "state", key)
        mute.acknowledge = False  # commits, but its acknowledgements never leave
        board.load()
        board.draw()
        board.draw()
        wait_until(lambda: len(taken(mute)) == 2)
        mute.kill(line)
        host = Host(line, tmp_path / "state", key)
        wait_until(lambda: board.stats().events_pending == 0)
        board.draw()
        wait_until(lambda: board.stats().events_pending == 0)
        host.kill(line)
    finally:
        board.close()
    journal = JournalStore(tmp_path / "state", clock=time.monotonic)
    loaded = list(journal.entries(["shoe:loaded"]))
    cards = [e.data for e in journal.entries(["card:taken"])]
    journal.close()
    assert len(loaded) == 1  # the repeated shoe_loaded did not start the numbering again
    assert cards == [{"card_no": 1, "card": "AS"}, {"card_no": 2, "card": "KH"},
                     {"card_no": 3, "card": "7D"}]


def taken(host: Host) -> list[object]:
    return list(host.journal.entries(["card:taken"]))


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "not within the wait"
        time.sleep(0.002)
