"""Card recognition: a frame in, the cards in it out. Pure computation, no camera I/O.

    from vision import Recognizer, load_generic_profile, load_profile

    recognizer = Recognizer(load_profile(path))        # or load_generic_profile()
    for reading in recognizer.recognize(frame):        # frame: BGR uint8 numpy array
        reading.card        # "QH", or None when unsure (take another frame)
        reading.confidence  # estimated probability that the best guess is right
        reading.quad        # the card's four corners in frame pixels
        reading.index_box   # (x, y, w, h) of the index that was read

Cards lying apart are found by their outlines; cards of an overlapping hand (a blackjack hand
as dealt) by the corners of their outlines that show, and read by an index corner that shows.

A `Recognizer` holds no per-frame state and starts no threads; the caller decides where it
runs. Profiles are files: `shoectl vision enroll` makes one from labelled photos of a deck;
the generic profile shipped as `vision/generic_profile.npz` reads decks nobody enrolled.
"""

from vision.edges import Image
from vision.errors import DatasetError, ImageError, ProfileError, SceneError, VisionError
from vision.locate import Located, LocateParams, find_cards, locate_cards
from vision.profile import (
    DeckProfile,
    generic_profile_path,
    load_generic_profile,
    load_profile,
    save_profile,
)
from vision.recognize import CardReading, Recognizer

__all__ = [
    "CardReading",
    "DatasetError",
    "DeckProfile",
    "Image",
    "ImageError",
    "LocateParams",
    "Located",
    "ProfileError",
    "Recognizer",
    "SceneError",
    "VisionError",
    "find_cards",
    "generic_profile_path",
    "load_generic_profile",
    "load_profile",
    "locate_cards",
    "save_profile",
]
