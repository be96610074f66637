"""No card lost or taken twice across any order of board power cycles and host kills.

200 seeded interleavings (`tests/support/shoe_link_rig.py`), each a two-deck shoe dealt from
the shoe board's byte-level emulator to the real shoe driver, with the host killed and
restarted, the board power-cycled, frames flipped and dropped (2% each, both ways) and cards
drawn while no host runs; after each, every card the board reported is in the journal exactly
once, in the order drawn, under consecutive numbers (PROTOCOL.md sections 9 and 12).
`bench/bridge.py --section interleavings` runs 10,000.
"""

from __future__ import annotations

from tests.support.shoe_link_rig import run_many, summary

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
