"""The ceilings every money amount, pay line and name of a table file is held to.

Each bound comes from the hardware or from what a regulator would accept; none is a taste:

* `MAX_WAGER_CENTS`: no table limit, wager or fixed award may exceed 1,000,000.00. No rule
  we hold names a figure (58 Pa. Code 633a.13's "payout limitation" is an open item of the
  regulation notes); this ceiling is far above any table's posted limit and keeps every
  payout (wager x the highest pay line) inside a signed 64-bit integer, SQLite's.
* `SIGN_MAX_CENTS`: the progressive sign shows `amount_cents` as a u32
  (`firmware_bridge/PROTOCOL.md`, `drivers.sign.MAX_CENTS`): a meter's reset or limit above
  it could never be shown, and the sign would go blank while progressive play stays open.
* `DEFAULT_MAX_ODDS` / `MAX_ODDS_CEILING`: no pay line pays more than `[paytables] max_odds`
  to 1 (default 1,000,000:1; a "for 1" line returns at most max_odds + 1 for 1); the key
  itself is at most 100,000,000, so that the largest wager times the largest line still fits.
* `MAX_RATIO_TERM`: neither side of a ratio ("3:2") is more than 1,000.
* `MAX_NAME_LENGTH`: a table's name goes on reports, the console and the sign's text lines;
  32 printable characters (the board protocol's `str` fields hold 32).
"""

from __future__ import annotations

from typing import Final

MAX_WAGER_CENTS: Final = 100_000_000
SIGN_MAX_CENTS: Final = 0xFFFF_FFFF
DEFAULT_MAX_ODDS: Final = 1_000_000
MAX_ODDS_CEILING: Final = 100_000_000
MAX_RATIO_TERM: Final = 1_000
MAX_NAME_LENGTH: Final = 32


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a table (empty, too long, a control character), or None."""
    if not name.strip():
        return "must not be empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"at most {MAX_NAME_LENGTH} characters, got {len(name)}"
    for index, char in enumerate(name):
        if not char.isprintable():
            return f"character {index + 1} ({char!r}) is a control character"
    return None
