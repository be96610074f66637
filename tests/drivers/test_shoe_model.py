"""What goes into an emulated shoe."""

from collections import Counter

import pytest

from drivers.emulated.shoe_model import (
    CUT_CARD,
    ShoeContents,
    ShoeModelError,
    ShoePlan,
    deck,
    normalise_code,
)


def drain(contents: ShoeContents) -> list[str]:
    items = []
    while (item := contents.take()) is not None:
        items.append(item)
    return items


@pytest.mark.parametrize(("kind", "size", "tens"), [("standard", 52, 4), ("spanish", 48, 0)])
def test_decks(kind: str, size: int, tens: int):
    cards = deck(kind)
    assert len(cards) == len(set(cards)) == size
    assert sum(card[0] == "T" for card in cards) == tens


def test_a_shuffled_shoe_holds_every_card_of_its_decks_and_one_cut_card():
    contents = ShoeContents.shuffled(ShoePlan(decks=8, deck="spanish", seed=3))
    items = drain(contents)
    assert Counter(item for item in items if item != CUT_CARD) == Counter(deck("spanish") * 8)
    assert items.count(CUT_CARD) == 1
    assert contents.dealt == 384


def test_the_cut_card_sits_at_the_penetration():
    items = drain(ShoeContents.shuffled(ShoePlan(decks=6, seed=1, penetration=75)))
    assert items.index(CUT_CARD) == 234  # 75% of 312 cards come out before it


def test_the_cut_card_can_sit_a_number_of_cards_from_the_end():
    items = drain(ShoeContents.shuffled(ShoePlan(decks=8, seed=1, cut_card_from_end=14)))
    assert len(items) - 1 - items.index(CUT_CARD) == 14


def test_the_same_seed_gives_the_same_shoe():
    first = drain(ShoeContents.shuffled(ShoePlan(seed=42)))
    assert first == drain(ShoeContents.shuffled(ShoePlan(seed=42)))
    assert first != drain(ShoeContents.shuffled(ShoePlan(seed=43)))


def test_a_scripted_shoe_is_exactly_the_listed_cards():
    contents = ShoeContents.scripted(["as", "10h", "KD"])
    assert not contents.has_cut_card
    assert contents.remaining == 3
    assert drain(contents) == ["AS", "TH", "KD"]
    assert contents.take() is None


@pytest.mark.parametrize("code", ["1S", "QX", "", "QHH", "JOKER"])
def test_bad_codes_are_refused(code: str):
    with pytest.raises(ShoeModelError, match="is not a card code"):
        normalise_code(code)


def test_a_cut_card_that_does_not_fit_is_refused():
    with pytest.raises(ShoeModelError, match="does not fit a 52-card shoe"):
        ShoeContents.shuffled(ShoePlan(decks=1, cut_card_from_end=60))
