"""Money and payout ratios. Money is integer cents everywhere.

A payout that comes to a fraction of a cent is rounded down; a commission is rounded up.
Three kinds of pay appear in the pay tables:

* `Odds` "to 1" (`"3:2"`, `"25:1"`): the winnings; the stake is returned on top.
* `ForOne` "for 1" (`"500 for 1"`): the whole amount returned, the stake included.
* `MeterShare` (`"100%"`, `"10%"`): a share of the progressive meter, returned for the stake.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_ODDS: Final = re.compile(r"^\s*(\d+)\s*(?::|\s+to\s+)\s*(\d+)\s*$")
_FOR_ONE: Final = re.compile(r"^\s*(\d+)\s+for\s+1\s*$")
_SHARE: Final = re.compile(r"^\s*(\d+)\s*%\s*$")


@dataclass(frozen=True, slots=True)
class Odds:
    """A "to 1" payout: `win` cents won for every `per` cents wagered (3:2 is win=3, per=2)."""

    win: int
    per: int = 1

    def __post_init__(self) -> None:
        if self.win < 0 or self.per <= 0:
            raise ValueError(f"impossible odds {self.win}:{self.per}")

    @classmethod
    def parse(cls, text: str) -> Odds:
        """Parse `"3:2"` or `"25 to 1"`.

        Raises:
            ValueError: the text is no ratio.
        """
        match = _ODDS.match(text)
        if match is None:
            raise ValueError(f"not a ratio: {text!r}")
        return cls(int(match[1]), int(match[2]))

    def winnings(self, wager: int) -> int:
        """The winnings on `wager` cents, rounded down to the cent (the stake not included)."""
        return wager * self.win // self.per

    def __str__(self) -> str:
        return f"{self.win}:{self.per}"


@dataclass(frozen=True, slots=True)
class ForOne:
    """A "for 1" payout: `times` x the wager returned in all (the stake is not returned on top)."""

    times: int

    def __post_init__(self) -> None:
        if self.times < 0:
            raise ValueError(f"impossible payout {self.times} for 1")

    @classmethod
    def parse(cls, text: str) -> ForOne:
        """Parse `"500 for 1"`.

        Raises:
            ValueError: the text is no "N for 1".
        """
        match = _FOR_ONE.match(text)
        if match is None:
            raise ValueError(f"not an 'N for 1' payout: {text!r}")
        return cls(int(match[1]))

    def returned(self, wager: int) -> int:
        """The amount returned for `wager` cents."""
        return self.times * wager

    def __str__(self) -> str:
        return f"{self.times} for 1"


@dataclass(frozen=True, slots=True)
class MeterShare:
    """A share of the progressive meter, `percent` of it rounded down to the cent."""

    percent: int

    def __post_init__(self) -> None:
        if not 0 < self.percent <= 100:
            raise ValueError(f"a meter share is 1-100%, not {self.percent}%")

    @classmethod
    def parse(cls, text: str) -> MeterShare:
        """Parse `"10%"`.

        Raises:
            ValueError: the text is no percentage of 1-100.
        """
        match = _SHARE.match(text)
        if match is None:
            raise ValueError(f"not a meter share: {text!r}")
        return cls(int(match[1]))

    def of(self, meter: int) -> int:
        """This share of `meter` cents, rounded down to the cent."""
        return meter * self.percent // 100

    def __str__(self) -> str:
        return f"{self.percent}%"


def commission(amount: int, percent: int) -> int:
    """`percent`% of `amount` cents, rounded UP to the cent (a commission favours no one)."""
    return -(-amount * percent // 100)


def half_rounded_down(amount: int) -> int:
    """Half of `amount` cents, rounded down (what a surrender returns)."""
    return amount // 2


def format_cents(cents: int) -> str:
    """`-123456` -> `"-1,234.56"`."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{part:02d}"
