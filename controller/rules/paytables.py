"""Pay tables as data: frozen values built from `[paytables.*]` mappings by pure validators.

Every pay table has the Mount Airy defaults of RULES.md (Hold'em Bonus, not dealt from the
shoe: the published pay table the shipped table file cites); a section in the table file
replaces the keys it sets. Unknown keys, wrong types and impossible values raise
`ConfigError` naming the section and the key. `controller/service/default_table.toml` lists
them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Final, Generic, TypeVar

from controller.rules.axman import AxManLine
from controller.rules.cards import ALLOWED_DECK_COUNTS
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.rules.limits import DEFAULT_MAX_ODDS, MAX_ODDS_CEILING
from controller.rules.money import ForOne, MeterShare, Odds
from controller.rules.reader import SectionReader
from controller.rules.roulette import RoulettePays
from controller.rules.sidebets import (
    Blazing7sLine,
    LuckyLadiesLine,
    Matches,
    PerfectPairsLine,
    Spanish21Bonus,
)

T = TypeVar("T")
LineT = TypeVar("LineT", bound=StrEnum)


class OddsPerLine(Generic[LineT]):
    """A pay table with one `Odds` field per line, named by the line's value."""

    __slots__ = ()

    def odds(self, line: LineT) -> Odds:
        """The odds `line` pays."""
        odds: Odds = getattr(self, line.value)
        return odds


@dataclass(frozen=True, slots=True)
class PerfectPairsPays(OddsPerLine[PerfectPairsLine]):
    """`[paytables.perfect-pairs]`: to-1 odds per line."""

    perfect_pair: Odds = Odds(25)
    coloured_pair: Odds = Odds(12)
    mixed_pair: Odds = Odds(6)


@dataclass(frozen=True, slots=True)
class LuckyLadiesPays(OddsPerLine[LuckyLadiesLine]):
    """`[paytables.lucky-ladies]`: to-1 odds per line."""

    queen_hearts_pair_dealer_blackjack: Odds = Odds(1000)
    queen_hearts_pair: Odds = Odds(200)
    matched_20: Odds = Odds(25)
    suited_20: Odds = Odds(10)
    any_20: Odds = Odds(4)


@dataclass(frozen=True, slots=True)
class MatchPays:
    """Match the Dealer odds per matching card; both cards can match, the wins add up."""

    unsuited: Odds
    suited: Odds

    def winnings(self, matches: Matches, wager: int) -> int:
        """The winnings for `matches` on `wager` cents (0 when nothing matches).

        The per-match odds are summed first and the one payout rounded down to the cent.
        """
        suited, unsuited = self.suited, self.unsuited
        numerator = (matches.suited * suited.win * unsuited.per
                     + matches.unsuited * unsuited.win * suited.per)
        return wager * numerator // (suited.per * unsuited.per)


@dataclass(frozen=True, slots=True)
class MatchTheDealerPays:
    """`[paytables.match-the-dealer.N]`: one `MatchPays` per deck count N (R18)."""

    section: str
    by_decks: tuple[tuple[int, MatchPays], ...]

    def for_decks(self, decks: int) -> MatchPays:
        """The table for a `decks`-deck shoe.

        Raises:
            ConfigError: no table is configured for that deck count.
        """
        for count, pays in self.by_decks:
            if count == decks:
                return pays
        known = ", ".join(str(count) for count, _ in self.by_decks) or "none"
        raise ConfigError(f"[{self.section}] {decks}: no pay table for a {decks}-deck shoe "
                          f"(configured: {known})")


def _mtd(*rows: tuple[int, int, int]) -> tuple[tuple[int, MatchPays], ...]:
    return tuple((decks, MatchPays(Odds(unsuited), Odds(suited)))
                 for decks, unsuited, suited in rows)


BLACKJACK_MATCH_DEFAULT: Final = _mtd((8, 3, 14), (6, 4, 11), (5, 3, 15), (4, 4, 12), (2, 4, 19))
# The seed's Spanish 21 table (3:1 and 12:1 per match: 6, 24 and 15 to 1 for two) names no
# deck count, so it is posted at every one.
SPANISH21_MATCH_DEFAULT: Final = _mtd(*((decks, 3, 12) for decks in sorted(ALLOWED_DECK_COUNTS,
                                                                          reverse=True)))


@dataclass(frozen=True, slots=True)
class Blazing7sPays:
    """`[paytables.blazing7s]`: the fixed wager (cents) and each line's "for 1" or meter share."""

    wager: int = 500
    three_7d: ForOne | MeterShare = MeterShare(100)
    three_suited_7s: ForOne | MeterShare = MeterShare(10)
    three_same_colour_7s: ForOne | MeterShare = ForOne(500)
    three_7s: ForOne | MeterShare = ForOne(200)
    two_7s: ForOne | MeterShare = ForOne(25)
    one_7: ForOne | MeterShare = ForOne(2)

    def pay(self, line: Blazing7sLine) -> ForOne | MeterShare:
        """What `line` pays."""
        pay: ForOne | MeterShare = getattr(self, line.value)
        return pay


@dataclass(frozen=True, slots=True)
class AxManPays(OddsPerLine[AxManLine]):
    """`[paytables.axman]`: to-1 odds per line and the player's `KD` multipliers."""

    straight_flush: Odds = Odds(1000)
    five_of_a_kind: Odds = Odds(500)
    flush: Odds = Odds(200)
    straight: Odds = Odds(100)
    four_of_a_kind: Odds = Odds(50)
    full_house: Odds = Odds(30)
    three_of_a_kind: Odds = Odds(20)
    two_pair: Odds = Odds(12)
    jacks_or_better: Odds = Odds(5)
    one_king_of_diamonds: int = 2
    two_kings_of_diamonds: int = 5

    def best(self, lines: frozenset[AxManLine]) -> AxManLine | None:
        """The best-paying of `lines` (ties go to the line listed first in `AxManLine`)."""
        order = list(AxManLine)
        ranked = sorted(lines, key=lambda line: (-self.odds(line).win / self.odds(line).per,
                                                 order.index(line)))
        return ranked[0] if ranked else None

    def multiplier(self, kings_of_diamonds: int) -> int:
        """The win multiplier for 0, 1 or 2 `KD` among the player's first two cards."""
        return (1, self.one_king_of_diamonds, self.two_kings_of_diamonds)[kings_of_diamonds]

    def winnings(self, line: AxManLine, wager: int, kings_of_diamonds: int) -> int:
        """The winnings of `line` on `wager` cents with the `KD` multiplier, rounded down once."""
        odds = self.odds(line)
        return wager * odds.win * self.multiplier(kings_of_diamonds) // odds.per


@dataclass(frozen=True, slots=True)
class SuperBonusTier:
    """A Spanish 21 super bonus award for original wagers of at least `min_wager` cents."""

    min_wager: int
    award: int


@dataclass(frozen=True, slots=True)
class Spanish21BonusPays(OddsPerLine[Spanish21Bonus]):
    """`[paytables.spanish21-bonus]`: bonus 21 odds, super bonus tiers and the envy award.

    A bonus line is paid at its odds instead of 1:1.
    """

    five_card_21: Odds = Odds(3, 2)
    six_card_21: Odds = Odds(2)
    seven_card_21: Odds = Odds(3)
    mixed_678: Odds = Odds(3, 2)
    suited_678: Odds = Odds(2)
    spades_678: Odds = Odds(3)
    mixed_777: Odds = Odds(3, 2)
    suited_777: Odds = Odds(2)
    spades_777: Odds = Odds(3)
    super_bonus: tuple[SuperBonusTier, ...] = field(default=(
        SuperBonusTier(500, 100_000), SuperBonusTier(2_500, 500_000)))
    envy: int = 5_000

    def super_bonus_award(self, wager: int) -> int:
        """The fixed super bonus for an original wager of `wager` cents (0 below every tier)."""
        awards = [tier.award for tier in self.super_bonus if wager >= tier.min_wager]
        return awards[-1] if awards else 0


@dataclass(frozen=True, slots=True)
class DragonBonusPays:
    """`[paytables.dragon-bonus]`: a natural win, and a non-natural win by 4-9 points."""

    natural_win: Odds = Odds(1)
    win_by_9: Odds = Odds(30)
    win_by_8: Odds = Odds(10)
    win_by_7: Odds = Odds(6)
    win_by_6: Odds = Odds(4)
    win_by_5: Odds = Odds(2)
    win_by_4: Odds = Odds(1)

    def margin_odds(self, margin: int) -> Odds | None:
        """The odds of a non-natural win by `margin` points (None below 4: the wager loses)."""
        if margin < 4:
            return None
        odds: Odds = getattr(self, f"win_by_{min(margin, 9)}")
        return odds


class HoldemBonusLine(StrEnum):
    """Texas Hold'em Bonus lines, best first, keyed as in `[paytables.holdem-bonus]`.

    The rules do not deal Hold'em (it is not dealt from a shoe); `controller.odds.holdem`
    classifies hole cards into these lines for the par sheet.
    """

    ACES_WITH_DEALER_ACES = "aces_with_dealer_aces"
    PAIR_OF_ACES = "pair_of_aces"
    ACE_KING_SUITED = "ace_king_suited"
    ACE_QUEEN_OR_JACK_SUITED = "ace_queen_or_jack_suited"
    ACE_KING_UNSUITED = "ace_king_unsuited"
    KINGS_QUEENS_OR_JACKS = "kings_queens_or_jacks"
    ACE_QUEEN_OR_JACK_UNSUITED = "ace_queen_or_jack_unsuited"
    PAIR_2_TO_10 = "pair_2_to_10"


@dataclass(frozen=True, slots=True)
class HoldemBonusPays(OddsPerLine[HoldemBonusLine]):
    """`[paytables.holdem-bonus]`: to-1 odds per line of the Bonus wager on the hole cards."""

    aces_with_dealer_aces: Odds = Odds(1000)
    pair_of_aces: Odds = Odds(30)
    ace_king_suited: Odds = Odds(25)
    ace_queen_or_jack_suited: Odds = Odds(20)
    ace_king_unsuited: Odds = Odds(15)
    kings_queens_or_jacks: Odds = Odds(10)
    ace_queen_or_jack_unsuited: Odds = Odds(5)
    pair_2_to_10: Odds = Odds(3)


@dataclass(frozen=True, slots=True)
class Paytables:
    """Every pay table of the table file."""

    perfect_pairs: PerfectPairsPays = PerfectPairsPays()
    lucky_ladies: LuckyLadiesPays = LuckyLadiesPays()
    match_the_dealer: MatchTheDealerPays = MatchTheDealerPays(
        "paytables.match-the-dealer", BLACKJACK_MATCH_DEFAULT)
    match_the_dealer_spanish21: MatchTheDealerPays = MatchTheDealerPays(
        "paytables.match-the-dealer-spanish21", SPANISH21_MATCH_DEFAULT)
    blazing7s: Blazing7sPays = Blazing7sPays()
    axman: AxManPays = AxManPays()
    spanish21_bonus: Spanish21BonusPays = Spanish21BonusPays()
    dragon_bonus: DragonBonusPays = DragonBonusPays()
    holdem_bonus: HoldemBonusPays = HoldemBonusPays()
    roulette: RoulettePays = RoulettePays()

    def match_the_dealer_for(self, game: Game) -> MatchTheDealerPays:
        """The Match the Dealer tables of `game` (Spanish 21 has its own)."""
        if game is Game.SPANISH21:
            return self.match_the_dealer_spanish21
        return self.match_the_dealer


def read_fields(reader: SectionReader, defaults: T, *, skip: tuple[str, ...] = ()) -> T:
    """Override `defaults` (a frozen dataclass) with the section's keys, by field type.

    Handles `Odds`, progressive pays, bools and non-negative ints (at most the money
    ceiling, `limits.MAX_WAGER_CENTS`); `finish()` is the caller's, so it can read further
    keys first.
    """
    values: dict[str, object] = {}
    for item in fields(defaults):  # type: ignore[arg-type]
        if item.name in skip:
            continue
        default = getattr(defaults, item.name)
        if isinstance(default, Odds):
            values[item.name] = reader.odds(item.name, default)
        elif isinstance(default, ForOne | MeterShare):
            values[item.name] = reader.pay(item.name, default)
        elif isinstance(default, bool):
            values[item.name] = reader.flag(item.name, default)
        elif isinstance(default, int):
            values[item.name] = reader.money(item.name, default)
    return replace(defaults, **values)  # type: ignore[type-var]


def _simple(name: str, data: object, defaults: T, max_odds: int,
            check: Callable[[SectionReader, T], None] | None = None) -> T:
    """Read `[paytables.<name>]` over `defaults`; `check` refuses impossible values."""
    reader = SectionReader(f"paytables.{name}", data, max_odds=max_odds)
    result = read_fields(reader, defaults)
    if check is not None:
        check(reader, result)
    reader.finish()
    return result


def _match_the_dealer(name: str, tables: Mapping[str, object],
                      default: MatchTheDealerPays, max_odds: int) -> MatchTheDealerPays:
    """`[paytables.<name>.N]` per deck count N (none set: `default`; some: only those)."""
    if name not in tables:
        for decks, pays in default.by_decks:  # the ceiling holds for the default lines too
            for key, odds in (("unsuited", pays.unsuited), ("suited", pays.suited)):
                if odds.win > max_odds * odds.per:
                    raise ConfigError(f"[paytables.{name}.{decks}] {key}: {odds} (the default) "
                                      f"is above the ceiling {max_odds:,}:1 ([paytables] "
                                      "max_odds)")
        return default
    reader = SectionReader(f"paytables.{name}", tables[name], max_odds=max_odds)
    rows: list[tuple[int, MatchPays]] = []
    for key in reader.names():
        if not key.isdigit() or int(key) not in ALLOWED_DECK_COUNTS:
            raise reader.error(key, "expected a deck count (1, 2, 4, 5, 6 or 8) naming a table "
                                    "of unsuited and suited odds")
        table = reader.section(key)
        pays = MatchPays(table.odds("unsuited", Odds(0)), table.odds("suited", Odds(0)))
        for needed in ("unsuited", "suited"):
            if not table.has(needed):
                raise table.error(needed, 'missing; expected a ratio like "3:1"')
        table.finish()
        rows.append((int(key), pays))
    return MatchTheDealerPays(reader.name, tuple(rows))


def _spanish21_bonus(data: object, max_odds: int) -> Spanish21BonusPays:
    reader = SectionReader("paytables.spanish21-bonus", data, max_odds=max_odds)
    pays = read_fields(reader, Spanish21BonusPays(), skip=("super_bonus",))
    if reader.has("super_bonus"):
        pays = replace(pays, super_bonus=_super_bonus_tiers(reader))
    reader.finish()
    return pays


def _super_bonus_tiers(reader: SectionReader) -> tuple[SuperBonusTier, ...]:
    raw = reader.raw("super_bonus")
    if not isinstance(raw, list) or not raw:
        raise reader.error("super_bonus", "expected a list like "
                           "[{ min_wager = 500, award = 100000 }, ...], got " + repr(raw))
    tiers = []
    for index, item in enumerate(raw):
        tier = SectionReader(f"paytables.spanish21-bonus.super_bonus[{index}]", item)
        tiers.append(SuperBonusTier(tier.money("min_wager", -1, minimum=1),
                                    tier.money("award", -1, minimum=1)))
        for needed in ("min_wager", "award"):
            if not tier.has(needed):
                raise tier.error(needed, "missing (cents)")
        tier.finish()
    if [t.min_wager for t in tiers] != sorted({t.min_wager for t in tiers}):
        raise reader.error("super_bonus", "tiers must be listed by rising min_wager, each once")
    return tuple(tiers)


_TABLES: Final = ("perfect-pairs", "lucky-ladies", "match-the-dealer",
                  "match-the-dealer-spanish21", "blazing7s", "axman", "spanish21-bonus",
                  "dragon-bonus", "holdem-bonus", "roulette")


MAX_ODDS_KEY: Final = "max_odds"
"""`[paytables] max_odds`: the ceiling of every pay line (default 1,000,000:1)."""


def paytables_from_mapping(data: Mapping[str, object] | None) -> Paytables:
    """Build the pay tables from the `[paytables]` mapping (None: every default).

    `[paytables] max_odds` (1..100,000,000, default 1,000,000) caps every line: no "to 1"
    line pays more than max_odds:1, no "for 1" line more than max_odds + 1 for 1.

    Raises:
        ConfigError: an unknown table or key, a wrong type or an impossible value.
    """
    reader = SectionReader("paytables", data)
    for key in reader.names():
        if key not in (*_TABLES, MAX_ODDS_KEY):
            raise reader.error(key, f"unknown pay table (known: {', '.join(_TABLES)}; and the "
                                    f"ceiling {MAX_ODDS_KEY})")
    ceiling = reader.integer(MAX_ODDS_KEY, DEFAULT_MAX_ODDS, minimum=1, maximum=MAX_ODDS_CEILING)
    raw = dict(data or {})
    defaults = Paytables()
    return Paytables(
        perfect_pairs=_simple("perfect-pairs", raw.get("perfect-pairs"), defaults.perfect_pairs,
                              ceiling),
        lucky_ladies=_simple("lucky-ladies", raw.get("lucky-ladies"), defaults.lucky_ladies,
                             ceiling),
        match_the_dealer=_match_the_dealer("match-the-dealer", raw, defaults.match_the_dealer,
                                           ceiling),
        match_the_dealer_spanish21=_match_the_dealer("match-the-dealer-spanish21", raw,
                                                     defaults.match_the_dealer_spanish21,
                                                     ceiling),
        blazing7s=_simple("blazing7s", raw.get("blazing7s"), defaults.blazing7s, ceiling,
                          _check_blazing7s),
        axman=_simple("axman", raw.get("axman"), defaults.axman, ceiling, _check_axman),
        spanish21_bonus=_spanish21_bonus(raw.get("spanish21-bonus"), ceiling),
        dragon_bonus=_simple("dragon-bonus", raw.get("dragon-bonus"), defaults.dragon_bonus,
                             ceiling),
        holdem_bonus=_simple("holdem-bonus", raw.get("holdem-bonus"), defaults.holdem_bonus,
                             ceiling),
        roulette=_simple("roulette", raw.get("roulette"), defaults.roulette, ceiling),
    )


def _check_blazing7s(reader: SectionReader, pays: Blazing7sPays) -> None:
    if pays.wager <= 0:
        raise reader.error("wager", f"the fixed wager must be at least 1 cent, got {pays.wager}")


AXMAN_MAX_MULTIPLIER: Final = 100
"""The highest `KD` multiplier of `[paytables.axman]` (the posted table's are 2 and 5)."""


def _check_axman(reader: SectionReader, pays: AxManPays) -> None:
    for key in ("one_king_of_diamonds", "two_kings_of_diamonds"):
        if not 1 <= getattr(pays, key) <= AXMAN_MAX_MULTIPLIER:
            raise reader.error(key, f"a multiplier is 1..{AXMAN_MAX_MULTIPLIER}, got "
                                    f"{getattr(pays, key)}")
