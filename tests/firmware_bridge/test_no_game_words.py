"""firmware_bridge's code knows no game words: the catalogue (data) gives messages meaning."""

import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "firmware_bridge"
# Words with no meaning outside the game. ("table", "sign", "hand", "cut" and "round" have
# ordinary meanings in code, as in a TOML table or a signed integer, and are not listed.)
GAME_WORDS = {
    "card", "cards", "shoe", "shoes", "seat", "seats", "bet", "bets", "betting", "wager",
    "wagers", "dealer", "dealers", "jackpot", "jackpots", "meter", "meters", "lamp", "lamps",
    "blackjack", "baccarat", "progressive", "chip", "chips", "player", "players", "casino",
    "suit", "suits", "payout", "payouts", "paytable", "blazing", "peek", "shuffle",
    "shuffled", "deck", "decks", "croupier", "punter",
}
SOURCES = sorted(PACKAGE.glob("*.py"))


def words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)  # camelCase -> camel Case
    return re.findall(r"[a-z]+", spaced.replace("_", " ").lower())


def test_the_package_has_sources() -> None:
    assert len(SOURCES) >= 15


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_game_word_in_code_or_comments(path: Path) -> None:
    found = sorted({word for word in words(path.read_text(encoding="utf-8"))
                    if word in GAME_WORDS})
    assert found == [], f"{path.name} uses game words: {', '.join(found)}"


def test_the_check_catches_game_words() -> None:
    assert {"card", "seat", "lamp"} <= set(words("card_out seatNumber LAMP_STATE"))
    assert "bet" not in words("between alphabet")
