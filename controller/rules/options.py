"""Game options as data: `[table]`, `[rules.*]`, `[paytables.*]` and `[progressive]`.

`game_config_from_mapping` validates the sections the game rules own and leaves every other
section of the table file (`[devices.*]`, `[journal]`, `[vision]`, ...) to its owner.
Missing keys take the Mount Airy defaults of RULES.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

from controller.rules.axman import AXMAN_DECK_COUNTS
from controller.rules.cards import ALLOWED_DECK_COUNTS
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.rules.limits import name_problem
from controller.rules.meter import (
    ProgressiveSettings,
    check_progressive_wager,
    progressive_from_mapping,
)
from controller.rules.money import Odds
from controller.rules.paytables import Paytables, paytables_from_mapping, read_fields
from controller.rules.reader import SectionReader
from controller.rules.roulette import RouletteRules, roulette_rules_from_mapping
from controller.rules.sidebets import SideBet


@dataclass(frozen=True, slots=True)
class BlackjackRules:
    """`[rules.blackjack]`, `[rules.spanish21]` or `[rules.community]`.

    Attributes:
        game: which game these rules are for (set by the section, not a key).
        dealer_hits_soft_17: H17 instead of S17.
        blackjack_pays: a player blackjack's odds (3:2; 6:5 on the community game).
        insurance: offered under an ace; `insurance_pays` its odds.
        insurance_chip: cents; insurance may go up to half the wager, or to the closest
            multiple of this chip when that is more (7.50 -> 4.00; 12.50 -> 6.25, not 7.00).
        even_money: offered to a player blackjack under an ace.
        surrender: late surrender, first action, not after a split.
        double_for_less: a double may be less than the hand's wager.
        double_any_cards: double on any number of cards (Spanish 21), not only the first two.
        double_after_split: double on split hands; `double_split_aces` on split aces too.
        hit_split_aces: split aces may draw more than their one card.
        max_hands: hands a seat may split into (3 = one re-split); `max_hands_aces` for aces.
        double_rescue: after the doubled card, take back the double, forfeit the wager.
        charlie_cards: a hand of this many cards without busting wins 1:1 (0 = no Charlie).
        bonuses_after_split: Spanish 21 bonus 21s also on split hands.
        decision_seconds: the community game only: a station's limit for one round of
            decisions (and for its insurance answer), whole seconds, 5..120.
        stations: the community game only: the player stations at the table, 1..200.
        side_bets: the community game only: the side wagers each spot offers (some of
            `COMMUNITY_SIDE_BETS`; all of them unless the file says otherwise, `[]` for none).
        side_min_wager / side_max_wager: the community game only: the limits of one side
            wager on one spot, cents.
    """

    game: Game = Game.BLACKJACK
    dealer_hits_soft_17: bool = False
    blackjack_pays: Odds = Odds(3, 2)
    insurance: bool = True
    insurance_pays: Odds = Odds(2)
    insurance_chip: int = 100
    even_money: bool = True
    surrender: bool = True
    double_for_less: bool = True
    double_any_cards: bool = False
    double_after_split: bool = True
    double_split_aces: bool = False
    hit_split_aces: bool = False
    max_hands: int = 3
    max_hands_aces: int = 2
    double_rescue: bool = False
    charlie_cards: int = 0
    bonuses_after_split: bool = False
    decision_seconds: int = 15
    stations: int = 3
    side_bets: tuple[str, ...] = ()
    side_min_wager: int = 100
    side_max_wager: int = 50_000


COMMUNITY_ONLY: Final = ("decision_seconds", "stations", "side_bets", "side_min_wager",
                         "side_max_wager")
"""Keys of `[rules.community]` that the other blackjack-family sections do not have."""

COMMUNITY_SIDE_BETS: Final = (SideBet.PERFECT_PAIRS, SideBet.LUCKY_LADIES,
                               SideBet.MATCH_THE_DEALER)
"""The side wagers a community spot may offer (`[rules.community] side_bets`): those settled
on the spot's two starting cards and the dealer's up card (or blackjack), the same for every
station; decision 144 "Community side wagers"."""

BLACKJACK_RULES: Final = BlackjackRules()
SPANISH21_RULES: Final = replace(BLACKJACK_RULES, game=Game.SPANISH21, even_money=False,
                                 double_any_cards=True, double_rescue=True)
COMMUNITY_RULES: Final = replace(BLACKJACK_RULES, game=Game.COMMUNITY,
                                 blackjack_pays=Odds(6, 5), even_money=False, surrender=False,
                                 max_hands=2, charlie_cards=10, side_bets=COMMUNITY_SIDE_BETS)
_RULE_DEFAULTS: Final = {Game.BLACKJACK: BLACKJACK_RULES, Game.SPANISH21: SPANISH21_RULES,
                         Game.COMMUNITY: COMMUNITY_RULES}


def blackjack_rules_from_mapping(game: Game, data: Mapping[str, object] | None) -> BlackjackRules:
    """Validate `[rules.<game>]` for a blackjack-family game.

    Raises:
        ConfigError: unknown key, wrong type or impossible value (naming section and key).
    """
    reader = SectionReader(f"rules.{game.value}", data)
    skip = ("game", "side_bets") if game is Game.COMMUNITY else ("game", *COMMUNITY_ONLY)
    rules = read_fields(reader, _RULE_DEFAULTS[game], skip=skip)
    if game is Game.COMMUNITY:
        rules = replace(rules, side_bets=reader.strings("side_bets", rules.side_bets,
                                                        COMMUNITY_SIDE_BETS))
    reader.finish()
    if game is Game.COMMUNITY:
        _check_range(reader, "decision_seconds", rules.decision_seconds, 5, 120)
        _check_range(reader, "stations", rules.stations, 1, 200)
        _check_range(reader, "side_min_wager", rules.side_min_wager, 1, rules.side_max_wager)
    _check_range(reader, "max_hands", rules.max_hands, 1, 4)
    _check_range(reader, "max_hands_aces", rules.max_hands_aces, 1, 4)
    _check_range(reader, "insurance_chip", rules.insurance_chip, 1, 100_000)
    if rules.charlie_cards:
        _check_range(reader, "charlie_cards", rules.charlie_cards, 5, 21)
    return rules


def _check_range(reader: SectionReader, key: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise reader.error(key, f"must be {low}..{high}, got {value}")


@dataclass(frozen=True, slots=True)
class BaccaratRules:
    """`[rules.baccarat]`: main-wager odds and the banker commission (percent, rounded up)."""

    banker_pays: Odds = Odds(1)
    commission_percent: int = 5
    player_pays: Odds = Odds(1)
    tie_pays: Odds = Odds(8)


def baccarat_rules_from_mapping(data: Mapping[str, object] | None) -> BaccaratRules:
    """Validate `[rules.baccarat]`.

    Raises:
        ConfigError: unknown key, wrong type or impossible value.
    """
    reader = SectionReader("rules.baccarat", data)
    rules = read_fields(reader, BaccaratRules())
    reader.finish()
    _check_range(reader, "commission_percent", rules.commission_percent, 0, 100)
    return rules


SIDE_BETS_BY_GAME: Final[dict[Game, tuple[str, ...]]] = {
    Game.BLACKJACK: (SideBet.PERFECT_PAIRS, SideBet.LUCKY_LADIES, SideBet.MATCH_THE_DEALER,
                     SideBet.BLAZING7S, SideBet.AXMAN),
    Game.SPANISH21: (SideBet.MATCH_THE_DEALER,),
    Game.COMMUNITY: (),
    Game.BACCARAT: ("dragon-bonus",),
    Game.ROULETTE: (),
    Game.HOLDEM: (),
}
"""The side wagers each game can offer (`[table] side_bets`)."""


@dataclass(frozen=True, slots=True)
class TableSettings:
    """`[table]`: what this table deals.

    Attributes:
        name: the table's name on reports (e.g. "BJ-07").
        game: blackjack, spanish21, community, baccarat, roulette or holdem (a `Game`, as a
            table file names it); in code, the game object of a family registered from
            outside (`controller.procedure.families.register`), its own `StrEnum` member.
        decks: decks in the shoe (1, 2, 4, 5, 6 or 8).
        seats: betting positions, numbered 1 (dealer's far left) up.
        penetration: percent of the shoe dealt before the cut card (blackjack family).
        cut_from_end: cards behind the cut card (baccarat).
        side_bets: the side wagers offered.
        min_wager / max_wager: main-wager table limits, cents.
        card_is_a_hit: a card drawn while a hand is due to act is a hit for it (the dealer
            draws for a player who signals a hit); False where decisions come only from
            the layout's or the console's buttons, and such a card is a card drawn in error.
        sensor_cents: hold'em only: the fixed amount, in cents, a chip on a bet sensor
            stands for (`seat<n>.ante` or `seat<n>.bonus`); an amount entered at the console
            takes its place for the round.
    """

    name: str = "table"
    game: StrEnum = Game.BLACKJACK
    decks: int = 6
    seats: int = 7
    penetration: int = 75
    cut_from_end: int = 14
    side_bets: tuple[str, ...] = SIDE_BETS_BY_GAME[Game.BLACKJACK]
    min_wager: int = 500
    max_wager: int = 500_000
    card_is_a_hit: bool = True
    sensor_cents: tuple[tuple[str, int], ...] = ()


SENSOR_BETS: Final = ("ante", "bonus")
"""The hold'em wagers a bet sensor may stand for (`[table] sensor_cents`)."""


def _sensor_cents(reader: SectionReader, game: Game, seats: int, low: int,
                  high: int) -> tuple[tuple[str, int], ...]:
    """`[table] sensor_cents`: `{ "seat1.ante" = 1000, ... }`, each within the limits."""
    if not reader.has("sensor_cents"):
        return ()
    if game is not Game.HOLDEM:
        reader.raw("sensor_cents")
        raise reader.error("sensor_cents", "a fixed amount per bet sensor is for a holdem "
                                           f"table, not {game.value}")
    section = reader.section("sensor_cents")
    amounts = []
    for name in section.names():
        seat, _, bet = name.removeprefix("seat").partition(".")
        if not (seat.isdigit() and 1 <= int(seat) <= seats and bet in SENSOR_BETS):
            raise section.error(name, f"not a sensor of this table: seat1.ante to "
                                      f"seat{seats}.bonus (seat<n>.ante or seat<n>.bonus)")
        amounts.append((name, section.money(name, 0, minimum=low, maximum=high)))
    section.finish()
    return tuple(amounts)


def table_from_mapping(data: Mapping[str, object] | None) -> TableSettings:
    """Validate `[table]`.

    Raises:
        ConfigError: unknown key, wrong type or impossible value.
    """
    reader = SectionReader("table", data)
    defaults = TableSettings()
    game = Game(reader.text("game", defaults.game.value, [g.value for g in Game]))
    decks = reader.integer("decks", 8 if game is Game.BACCARAT else defaults.decks, minimum=1)
    if decks not in ALLOWED_DECK_COUNTS:
        raise reader.error("decks", f"a shoe holds 1, 2, 4, 5, 6 or 8 decks, not {decks}")
    name = reader.text("name", defaults.name)
    problem = name_problem(name)
    if problem is not None:
        raise reader.error("name", problem)
    seats = reader.integer("seats", defaults.seats, minimum=1, maximum=9)
    min_wager = reader.money("min_wager", defaults.min_wager, minimum=1)
    max_wager = reader.money("max_wager", defaults.max_wager, minimum=1)
    settings = TableSettings(
        name=name, game=game, decks=decks, seats=seats,
        penetration=reader.integer("penetration", defaults.penetration, minimum=10, maximum=95),
        cut_from_end=reader.integer("cut_from_end", defaults.cut_from_end, minimum=6,
                                    maximum=200),
        side_bets=reader.strings("side_bets", SIDE_BETS_BY_GAME[game], SIDE_BETS_BY_GAME[game]),
        min_wager=min_wager, max_wager=max_wager,
        card_is_a_hit=reader.flag("card_is_a_hit", defaults.card_is_a_hit),
        sensor_cents=_sensor_cents(reader, game, seats, min_wager, max_wager),
    )
    reader.finish()
    if settings.max_wager < settings.min_wager:
        raise reader.error("max_wager", f"{settings.max_wager} is below min_wager "
                                        f"{settings.min_wager}")
    return settings


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything the game rules take from the table file."""

    table: TableSettings = TableSettings()
    blackjack: BlackjackRules = BLACKJACK_RULES
    spanish21: BlackjackRules = SPANISH21_RULES
    community: BlackjackRules = COMMUNITY_RULES
    baccarat: BaccaratRules = BaccaratRules()
    paytables: Paytables = Paytables()
    progressive: ProgressiveSettings = ProgressiveSettings()
    roulette: RouletteRules = RouletteRules()

    def rules_for(self, game: Game) -> BlackjackRules:
        """The blackjack-family rules of `game`."""
        return {Game.BLACKJACK: self.blackjack, Game.SPANISH21: self.spanish21,
                Game.COMMUNITY: self.community}[game]


TABLE_FILE_SECTIONS: Final = ("table", "rules", "paytables", "progressive", "devices", "vision",
                               "journal", "console")
"""Every top-level section a table file may have (the first four are the game rules')."""


def check_sections(document: Mapping[str, object]) -> None:
    """Refuse a top-level section no one reads (`[progresive]`, `[vison]`, `[tabel]`).

    Raises:
        ConfigError: naming the section and every known one.
    """
    for name in document:
        if name not in TABLE_FILE_SECTIONS:
            raise ConfigError(f"[{name}]: unknown section (known sections: "
                              f"{', '.join(TABLE_FILE_SECTIONS)})")


def game_config_from_mapping(document: Mapping[str, object]) -> GameConfig:
    """Validate the game sections of a parsed table file; other sections are left alone.

    Raises:
        ConfigError: naming the section and key of the first problem found.
    """
    rules = SectionReader("rules", document.get("rules"))
    for key in rules.names():
        if key not in [g.value for g in Game]:
            raise rules.error(key, f"unknown game (known: {', '.join(g.value for g in Game)})")
    raw_rules = dict(document.get("rules") or {})  # type: ignore[call-overload]
    config = GameConfig(
        table=table_from_mapping(_section(document, "table")),
        blackjack=blackjack_rules_from_mapping(Game.BLACKJACK, raw_rules.get("blackjack")),
        spanish21=blackjack_rules_from_mapping(Game.SPANISH21, raw_rules.get("spanish21")),
        community=blackjack_rules_from_mapping(Game.COMMUNITY, raw_rules.get("community")),
        baccarat=baccarat_rules_from_mapping(raw_rules.get("baccarat")),
        paytables=paytables_from_mapping(_section(document, "paytables")),
        progressive=progressive_from_mapping(meter_keys(_section(document, "progressive"))),
        roulette=roulette_rules_from_mapping(raw_rules.get("roulette")),
    )
    check_consistency(config)
    return config


LINK_KEYS = ("link", "group", "ca", "cert", "key")
"""`[progressive]` keys of a linked meter's link, read by `controller.floor.settings`."""


def meter_keys(section: Mapping[str, object] | None) -> Mapping[str, object] | None:
    """`[progressive]` without the link keys: what the table's own meter reads."""
    if section is None:
        return None
    return {key: value for key, value in section.items() if key not in LINK_KEYS}


def _section(document: Mapping[str, object], name: str) -> Mapping[str, object] | None:
    value = document.get(name)
    if value is not None and not isinstance(value, Mapping):
        raise ConfigError(f"[{name}]: expected a table of keys, got {value!r}")
    return value


def check_consistency(config: GameConfig) -> None:
    """Check across sections: AxMan, Match the Dealer and the meter against the rest.

    AxMan is offered at 6 or 8 decks only; Match the Dealer needs a pay table for the shoe;
    the meter's increment and reserve fit in the Blazing 7's fixed wager.

    Raises:
        ConfigError: naming the offending key.
    """
    table = config.table
    check_progressive_wager(config.progressive, config.paytables.blazing7s.wager)
    if SideBet.AXMAN in table.side_bets and table.decks not in AXMAN_DECK_COUNTS:
        raise ConfigError(f"[table] side_bets: AxMan is offered only at 6- or 8-deck tables "
                          f"(58 Pa. Code 633c.12(a)); this table has {table.decks}")
    if SideBet.MATCH_THE_DEALER in table.side_bets:
        config.paytables.match_the_dealer_for(Game(table.game)).for_decks(table.decks)
