"""The wagers `shoectl odds` knows: deck counts, options, pay-table sections and builders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from controller.odds import (
    baccarat_sheets,
    dealer_sheets,
    first_cards,
    holdem,
    holdem_ante,
    roulette_sheets,
    spanish21,
)
from controller.odds.errors import OddsError
from controller.odds.parsheet import ParSheet
from controller.rules.axman import AXMAN_DECK_COUNTS
from controller.rules.cards import ALLOWED_DECK_COUNTS
from controller.rules.meter import ProgressiveSettings
from controller.rules.options import BaccaratRules
from controller.rules.paytables import Paytables
from controller.rules.roulette import RouletteBet, Wheel


def default_meter(paytables: Paytables,
                  progressive: ProgressiveSettings | None = None) -> Fraction:
    """The Blazing 7's meter at its reset amount, in units of the fixed wager (2000)."""
    reset = (progressive or ProgressiveSettings()).reset
    return Fraction(reset, paytables.blazing7s.wager)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a par sheet is computed from.

    Attributes:
        decks: decks in the shoe.
        paytables: the table's pay tables (rules' data model, validated; Hold'em Bonus too).
        baccarat: `[rules.baccarat]` (main-wager odds and commission).
        hits_soft_17: the dealer hits soft 17 (H17) instead of standing (S17).
        meter: the Blazing 7's meter in units of its fixed wager (default: the reset).
        wheel: the roulette wheel (double or single zero).
    """

    decks: int
    paytables: Paytables = Paytables()
    baccarat: BaccaratRules = BaccaratRules()
    hits_soft_17: bool = False
    meter: Fraction = field(default_factory=lambda: default_meter(Paytables()))
    wheel: Wheel = Wheel.DOUBLE


@dataclass(frozen=True, slots=True)
class Bet:
    """One wager `shoectl odds` can analyse.

    Attributes:
        name: the command-line name.
        summary: one line for `--help`.
        decks: deck counts the wager is dealt with (none: not dealt from a shoe).
        usual_decks: the deck counts the bench times (the first is the default).
        section: the table-file section holding its pay table (None: it has none).
        build: computes the par sheet.
        options: the optional flags it takes (`soft17`, `meter`, `wheel`).
    """

    name: str
    summary: str
    decks: tuple[int, ...]
    usual_decks: tuple[int, ...]
    section: str | None
    build: Callable[[Settings], ParSheet]
    options: frozenset[str] = frozenset()

    def check_decks(self, decks: int) -> None:
        """Refuse a deck count the wager is not dealt with.

        Raises:
            OddsError: naming `--decks` and the counts allowed.
        """
        if decks not in self.decks:
            allowed = ", ".join(str(d) for d in self.decks)
            plural = "s" if self.decks != (1,) else ""
            raise OddsError(f"--decks {decks}: {self.name} is dealt with {allowed} "
                            f"deck{plural} only{_WHY.get(self.name, '')}")


_WHY: Final = {
    "axman": " (58 Pa. Code 633c.12(a): six- or eight-deck tables)",
    "holdem-bonus": " (one hand-shuffled 52-card deck)",
    "holdem-ante": " (one hand-shuffled 52-card deck)",
}

_SHOE: Final = ALLOWED_DECK_COUNTS


def _roulette(bet: RouletteBet) -> Callable[[Settings], ParSheet]:
    def build(settings: Settings) -> ParSheet:
        try:
            return roulette_sheets.roulette_sheet(bet, settings.wheel,
                                                  settings.paytables.roulette)
        except ValueError as err:
            raise OddsError(f"--wheel {settings.wheel}: {err} (0-00-1-2-3 is a double-zero "
                            "bet)") from err
    return build


_ROULETTE_SUMMARIES: Final = {
    RouletteBet.STRAIGHT: "one number (0 and 00 included)",
    RouletteBet.SPLIT: "two adjacent numbers", RouletteBet.STREET: "a row of three",
    RouletteBet.CORNER: "four numbers that meet at a corner",
    RouletteBet.FIVE_NUMBER: "0-00-1-2-3 (double zero only)",
    RouletteBet.SIX_LINE: "two adjacent rows", RouletteBet.COLUMN: "one of the three columns",
    RouletteBet.DOZEN: "1-12, 13-24 or 25-36", RouletteBet.RED: "the red numbers",
    RouletteBet.BLACK: "the black numbers", RouletteBet.ODD: "the odd numbers",
    RouletteBet.EVEN: "the even numbers", RouletteBet.LOW: "1-18", RouletteBet.HIGH: "19-36",
}


def _mtd(settings: Settings) -> ParSheet:
    pays = settings.paytables.match_the_dealer.for_decks(settings.decks)
    return first_cards.match_the_dealer("match-the-dealer", settings.decks, pays, spanish=False)


def _mtd_spanish(settings: Settings) -> ParSheet:
    pays = settings.paytables.match_the_dealer_spanish21.for_decks(settings.decks)
    return first_cards.match_the_dealer("spanish21-match-the-dealer", settings.decks, pays,
                                      spanish=True)


BETS: Final[dict[str, Bet]] = {bet.name: bet for bet in (
    Bet("perfect-pairs", "player's first two cards: perfect, coloured or mixed pair",
        _SHOE, (6, 8), "paytables.perfect-pairs",
        lambda s: first_cards.perfect_pairs(s.decks, s.paytables.perfect_pairs)),
    Bet("lucky-ladies", "player's first two cards total 20 (QH pair with dealer blackjack)",
        _SHOE, (6, 8), "paytables.lucky-ladies",
        lambda s: first_cards.lucky_ladies(s.decks, s.paytables.lucky_ladies)),
    Bet("match-the-dealer", "player's two cards against the dealer's up card (per deck count)",
        _SHOE, (6, 8), "paytables.match-the-dealer", _mtd),
    Bet("spanish21-match-the-dealer", "Match the Dealer on Spanish 21 (48-card decks)",
        _SHOE, (6, 8), "paytables.match-the-dealer-spanish21", _mtd_spanish),
    Bet("blazing7s", "player's two cards and the dealer's up card, at a given --meter",
        _SHOE, (6, 8), "paytables.blazing7s",
        lambda s: first_cards.blazing7s(s.decks, s.paytables.blazing7s, s.meter),
        frozenset({"meter"})),
    Bet("axman", "dealer's final hand as a poker hand, KD wild (exact)",
        AXMAN_DECK_COUNTS, (6, 8), "paytables.axman",
        lambda s: dealer_sheets.axman(s.decks, s.paytables.axman, hits_soft_17=s.hits_soft_17),
        frozenset({"soft17"})),
    Bet("dealer-outcomes", "dealer's final total per up card, and blackjack per up card",
        _SHOE, (6, 8), None,
        lambda s: dealer_sheets.dealer_outcomes(s.decks, hits_soft_17=s.hits_soft_17),
        frozenset({"soft17"})),
    Bet("baccarat-banker", "Midi Baccarat: Banker (commission on the win)",
        _SHOE, (8, 6), "rules.baccarat", lambda s: baccarat_sheets.banker(s.decks, s.baccarat)),
    Bet("baccarat-player", "Midi Baccarat: Player",
        _SHOE, (8, 6), "rules.baccarat", lambda s: baccarat_sheets.player(s.decks, s.baccarat)),
    Bet("baccarat-tie", "Midi Baccarat: Tie",
        _SHOE, (8, 6), "rules.baccarat", lambda s: baccarat_sheets.tie(s.decks, s.baccarat)),
    Bet("dragon-player", "Dragon Bonus on the Player hand",
        _SHOE, (8, 6), "paytables.dragon-bonus",
        lambda s: baccarat_sheets.dragon(s.decks, s.paytables.dragon_bonus, side="player")),
    Bet("dragon-banker", "Dragon Bonus on the Banker hand",
        _SHOE, (8, 6), "paytables.dragon-bonus",
        lambda s: baccarat_sheets.dragon(s.decks, s.paytables.dragon_bonus, side="banker")),
    Bet("spanish21-bonus-cards", "Spanish 21: 6-7-8 / 7-7-7 first three cards, super bonus",
        _SHOE, (6, 8), "paytables.spanish21-bonus",
        lambda s: spanish21.bonus_cards(s.decks, s.paytables.spanish21_bonus)),
    Bet("holdem-bonus", "Texas Hold'em Bonus Poker: the Bonus wager (one deck)",
        (1,), (1,), "paytables.holdem-bonus",
        lambda s: holdem.holdem_bonus(s.decks, s.paytables.holdem_bonus)),
    Bet("holdem-ante", "Texas Hold'em Bonus Poker: the ante game, simulated (interval)",
        (1,), (1,), None, lambda s: holdem_ante.holdem_ante(s.decks)),
    *(Bet(f"roulette-{bet}", f"Roulette: {_ROULETTE_SUMMARIES[bet]} (--wheel double|single)",
          (), (), "paytables.roulette", _roulette(bet), frozenset({"wheel"}))
      for bet in RouletteBet),
)}
"""Every wager, in the order `--help` lists them."""
