"""The real photos of one casino deck (`shared/cards-dev`): enrolled and generic reading.

Enrolment uses three of each card's four photos; the fourth photo of every card is read
with the resulting profile (the bench rotates over all four folds). The generic profile has
never seen this deck at all.
"""

from __future__ import annotations

from pathlib import Path

from vision import Recognizer
from vision.build.evaluate import Tally
from vision.dataset import read_image, read_labels
from vision.enroll import EnrolReport
from vision.profile import DeckProfile

from .conftest import dev_fold


def test_an_enrolled_profile_reads_the_held_out_photo_of_every_card(
        dev_photos: Path, dev_enrolled: tuple[DeckProfile, EnrolReport]) -> None:
    test = [(read_image(i.path), i.code) for i in read_labels(dev_photos)
            if dev_fold(i.path) == 4]
    profile, report = dev_enrolled
    assert report.problems == []
    recognizer = Recognizer(profile)
    tally = Tally()
    for image, code in test:
        tally.add_photo(recognizer.recognize(image), code)
    assert tally.cards == 52
    assert tally.wrong == 0, tally.summary()
    assert tally.right >= 51, tally.summary()  # measured 52 / 52


def test_the_generic_profile_reads_a_deck_it_never_saw(dev_photos: Path,
                                                       generic: Recognizer) -> None:
    tally = Tally()
    for item in read_labels(dev_photos):
        tally.add_photo(generic.recognize(read_image(item.path)), item.code)
    assert tally.cards == 208
    assert tally.found == 208
    assert tally.wrong == 0, tally.summary()
    assert tally.right >= 190, tally.summary()  # measured 192 / 208 = 92.3%
