"""The shipped table file's comments say what the rules do."""

import re

from controller.rules.blackjack import max_insurance
from controller.service.tableconfig import default_table_text, load_default_table


def _cents(text: str) -> int:
    whole, _, frac = text.partition(".")
    return int(whole) * 100 + int(frac or 0)


def test_the_insurance_chip_comment_matches_max_insurance() -> None:
    # RULES.md / seed 000: half the wager, or the closest chip amount when that is more
    # (ties go up): 7.50 -> 4.00, 12.50 -> 6.25.
    text = default_table_text()
    start = text.index("insurance_chip = 100")
    comment = text[start:text.index("\neven_money", start)]
    assert "rounds up" not in comment
    examples = re.findall(r"(\d+\.\d\d) -> (\d+\.\d\d)", comment)
    assert [(a, b) for a, b in examples] == [("7.50", "4.00"), ("12.50", "6.25")]
    chip = load_default_table().game.blackjack.insurance_chip
    for wager, limit in examples:
        assert max_insurance(_cents(wager), chip) == _cents(limit)
