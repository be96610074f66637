"""The pit view's object as the secrecy tests compare it across two deals.

Two deals that differ only in a hidden card must publish the same pit object. The journal's
head and count hash every record (the hole card's included) and are shown as a digest, not
the card; today's figures carry the wall clock (times, paces, the day). Both are left out;
today's counts and money stay compared.
"""

from __future__ import annotations

from typing import Any, Final

CLOCK_FIGURES: Final = ("day", "from", "to", "rounds_per_hour", "seconds_per_round",
                        "shuffle_seconds", "fault_seconds", "decisions_per_minute",
                        "rounds_by_hour")


def comparable(pit: dict[str, Any]) -> dict[str, Any]:
    """`pit` less the journal's digest and today's clock-derived figures."""
    today = pit.get("today")
    if isinstance(today, dict):
        today = {key: value for key, value in today.items() if key not in CLOCK_FIGURES}
    return {**pit, "journal": None, "today": today}
