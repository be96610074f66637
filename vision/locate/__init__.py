"""Find the cards in a frame: bright, paper-white quadrilaterals of a card's proportions.

The finder (`finder`) reduces the frame, gathers candidate outlines from three generators
and keeps the card-like ones; `paper` measures how bright and colourless the table's paper
is; `refine` fits each outline's sides to the card's edge in the full frame; `split` cuts an
outline that a strip of table crosses into the two cards lying close; `geometry` orders and
measures quadrilaterals.
"""

from vision.edges import Quad
from vision.locate.finder import Located, LocateParams, find_cards, locate_cards, work_image
from vision.locate.geometry import long_over_short, order_corners
from vision.locate.paper import PaperLevels, neutral_paper, paper_contrast, paper_levels
from vision.locate.refine import fit_sides, meeting_point, refine_edges
from vision.locate.split import split_at_gap

__all__ = ["LocateParams", "Located", "PaperLevels", "Quad", "find_cards", "fit_sides",
           "locate_cards", "long_over_short", "meeting_point", "neutral_paper", "order_corners",
           "paper_contrast", "paper_levels", "refine_edges", "split_at_gap", "work_image"]
