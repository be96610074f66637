"""Hypothesis strategies for stacked shoes and wagers, biased toward the cards rules turn on.

A stacked shoe never holds more copies of a card than its decks do (a real shoe could not,
and the controller refuses such a card): the generator draws from what is left.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import strategies as st

from controller.rules.cards import shoe

from .dealer import MATCH_TABLES, Seat

SUITS = "SHDC"
# Palettes: each position of the shoe first picks a palette, then a card from it.
PALETTES: tuple[tuple[str, ...], ...] = (
    (*(f"{r}{s}" for r in "A2345" for s in SUITS), "KD"),  # long dealer hands
    ("7D", "7D", "7D", "7S", "7H", "7C", "7C"),  # Blazing 7's and Match the Dealer
    ("AS", "AH", "AD", "AC", "KD", "KD", "QH", "QH", "QH", "TS", "JD", "KS", "QC", "TH"),
    ("KD", "KD", "QH", "JS", "JC", "QS", "AD", "AS", "9D", "TD", "2D", "3D", "4D", "5D"),
    ("AD", "2D", "3D", "4D", "5D", "6D", "KD", "2C", "3C"),  # AxMan flushes and straights
    tuple(f"{r}{s}" for r in "A23456789TJQK" for s in SUITS),
)


@st.composite
def stacked_shoes(draw: st.DrawFn, decks: int, spanish: bool, max_cards: int = 60) -> list[str]:
    """A stacked shoe of up to `max_cards` cards a `decks`-deck shoe could hold.

    The shoe has a theme palette that three cards in four come from.
    """
    left = Counter(str(card) for card in shoe(decks, spanish=spanish))
    size = draw(st.integers(min_value=4, max_value=min(max_cards, sum(left.values()))))
    theme = draw(st.sampled_from(PALETTES))
    cards: list[str] = []
    while len(cards) < size:
        on_theme = draw(st.booleans()) or draw(st.booleans())
        palette = theme if on_theme else draw(st.sampled_from(PALETTES))
        card = draw(st.sampled_from(palette))
        if left[card] == 0:
            card = draw(st.sampled_from(sorted(c for c, n in left.items() if n)))
        left[card] -= 1
        cards.append(card)
    return cards


MAIN_WAGERS = (500, 1000, 1001, 2500, 555, 100_000)


@dataclass(frozen=True)
class BlackjackCase:
    """One generated blackjack-family table and shoe."""

    game: str
    decks: int
    h17: bool
    seats: tuple[Seat, ...]
    meter: int
    reset: int
    increment: int
    shoe: tuple[str, ...]


def offered_side_bets(game: str, decks: int) -> tuple[str, ...]:
    """The side wagers the game offers at this deck count."""
    if game == "spanish21":
        return ("match-the-dealer",) if decks in MATCH_TABLES["spanish21"] else ()
    offered = ["perfect-pairs", "lucky-ladies", "blazing7s"]
    if decks in MATCH_TABLES["blackjack"]:
        offered.append("match-the-dealer")
    if decks in (6, 8):
        offered.append("axman")
    return tuple(offered)


@st.composite
def seat_bets(draw: st.DrawFn, number: int, offered: tuple[str, ...]) -> Seat:
    """A seat with a main wager and any of the offered side wagers."""
    side = {}
    for name in offered:
        if draw(st.booleans()) or draw(st.booleans()):
            side[name] = 500 if name == "blazing7s" else draw(st.sampled_from((100, 500, 2500)))
    return Seat(number, draw(st.sampled_from(MAIN_WAGERS)), side)


@st.composite
def blackjack_cases(draw: st.DrawFn, games: tuple[str, ...] = ("blackjack", "spanish21"),
                    max_cards: int = 60) -> BlackjackCase:
    """A game, a deck count, seats 1-7 with wagers, a meter and a stacked shoe."""
    game = draw(st.sampled_from(games))
    decks = draw(st.sampled_from((1, 2, 4, 5, 6, 8)))
    numbers = draw(st.sets(st.integers(1, 7), min_size=1, max_size=7))
    offered = offered_side_bets(game, decks)
    seats = tuple(draw(seat_bets(n, offered)) for n in sorted(numbers))
    meter = draw(st.sampled_from((1_000_000, 1_234_567, 999, 5_000_001)))
    reset = draw(st.sampled_from((1_000_000, 250_003)))
    increment = draw(st.sampled_from((100, 37, 1)))
    cards = draw(stacked_shoes(decks, game == "spanish21", max_cards))
    return BlackjackCase(game, decks, draw(st.booleans()), seats, meter, reset, increment,
                         tuple(cards))


BACCARAT_BETS = ("banker", "player", "tie", "dragon-banker", "dragon-player")


@st.composite
def baccarat_seats(draw: st.DrawFn) -> dict[int, dict[str, int]]:
    """Seats 1-7, each with a Player or Banker wager and any of tie and the Dragon Bonuses."""
    seats = {}
    for number in sorted(draw(st.sets(st.integers(1, 7), min_size=1, max_size=7))):
        bets = {draw(st.sampled_from(("banker", "player"))): draw(st.sampled_from(MAIN_WAGERS))}
        for name in BACCARAT_BETS:
            if name not in bets and draw(st.booleans()):
                bets[name] = draw(st.sampled_from((100, 1001, 2500, 1999)))
        seats[number] = bets
    return seats
