"""The recogniser on the real photos of `shared/cards-train`, and how they are scored.

The scoring (`vision.build.real_sources.judge`) is checked on readings made up for it; then
the generic profile reads every 12th image of each source. The shared photos are required:
a checkout without them fails here, it does not skip (`bench/vision.py --section by-source`
reads them all). The floors and ceilings are the generic profile's measured figures on this
sample: a change that reads fewer of them right, or more of them wrong, fails. The shipped
pair learnt glyphs from the licensed sources' corners (`vision.build.real_build`), so on
those these are figures on seen photos; the measure-only ones (`designs`,
`templates/vedant`) it never saw, and the bench's `--pair-folds` leaves each licensed source
out in turn. The goal stays at none wrong (issue: the camera reads any deck).
"""

from __future__ import annotations

import pytest

from vision import Recognizer, load_generic_profile
from vision.build import real_sources
from vision.build.real_sources import LabelledBox, SourceImage, SourceTally, judge
from vision.recognize import CardReading

SAMPLE_EVERY = 12
MEASURED = {  # source: (right at least, wrong at most) of the cards of the sample
    "cardcounter": (17, 0),
    "pokercards": (142, 3),
    "designs": (11, 0),
    "templates/vedant": (1, 0),
    "templates/fourcorner": (3, 0),
}


def reading(card: str | None, guess: str, x: float, y: float) -> CardReading:
    quad = ((x - 20, y - 30), (x + 20, y - 30), (x + 20, y + 30), (x - 20, y + 30))
    return CardReading(card, 0.99 if card else 0.5, guess, quad, (int(x) - 5, int(y) - 5, 10, 10))


def test_a_card_is_right_wrong_or_unsure_by_the_readings_found_where_it_lies() -> None:
    image = SourceImage("cardcounter", "webcam", real_sources.data_root() / "x.jpg", (
        LabelledBox("AS", "index", (10, 10, 30, 40)),
        LabelledBox("AS", "index", (200, 200, 220, 230)),
        LabelledBox("KH", "index", (100, 10, 120, 40)),
        LabelledBox("2C", "index", (300, 10, 320, 40)),
        LabelledBox("9D", "index", (400, 10, 420, 40))))
    tally = judge(image, [
        reading("AS", "AS", 210, 215),   # one of its two corners: right
        reading("KD", "KD", 110, 25),    # another card answered where KH lies: wrong
        reading(None, "2C", 310, 25),    # found, not answered: unsure
        reading("QS", "QS", 600, 600),   # where no labelled card lies
    ])                                   # 9D: not found: unsure
    assert (tally.right, tally.wrong, tally.unsure, tally.elsewhere) == (1, 1, 2, 1)
    assert tally.wrong_cards == ["KH->KD"]


def test_a_single_card_is_judged_by_every_answer_and_its_margin_is_taken_away() -> None:
    image = SourceImage("designs", "many designs", real_sources.data_root() / "y.jpg",
                          (LabelledBox("7H", "none", None),))
    assert judge(image, [reading("7H", "7H", 60, 60)], real_sources.MARGIN).right == 1
    assert judge(image, [reading("7D", "7D", 60, 60)], real_sources.MARGIN).wrong == 1
    assert judge(image, [], real_sources.MARGIN).unsure == 1


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(load_generic_profile())


@pytest.mark.parametrize("source", list(MEASURED))
def test_the_generic_profile_on_a_sample_of_each_source(recognizer: Recognizer,
                                                         source: str) -> None:
    root = real_sources.data_root()
    assert (root / source / "labels.csv").is_file(), (
        f"{root / source}: the shared training photos are needed (shared/cards-train beside "
        f"the repository, or ${real_sources.ROOT_ENV})")
    images = real_sources.load_source(source)[::SAMPLE_EVERY]
    total = SourceTally()
    for tally in real_sources.evaluate(recognizer.recognize, images).values():
        total.add(tally)
    least_right, most_wrong = MEASURED[source]
    assert total.right >= least_right, total.line()
    assert total.wrong <= most_wrong, total.line()


def test_every_single_card_image_gives_its_card_for_composites() -> None:
    for source in real_sources.COMPOSITE_SOURCES:
        images = real_sources.load_source(source)
        cards = real_sources.cut_outs_of(images)
        assert [card.code for card in cards] == [next(iter(i.cards)) for i in images]
    vedant = real_sources.cut_outs_of(real_sources.load_source("templates/vedant")[:3])
    for card in vedant:  # cut to the card's alpha: no transparent margin is left around it
        height, width = card.image.shape[:2]
        assert width == 300
        assert 1.3 < height / width < 1.7
        assert card.image[height // 2, 2].mean() > 100  # the card's paper at its left edge
