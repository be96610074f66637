"""Enrol a deck: learn a profile from labelled photos of its cards.

`enrol` reads each photo's corners into samples and builds the profile (with the settings
of `options`); `copies` makes the altered copies of each photo (nudged, relit, on a drawn
table, under glare); `samples` holds the sample records and their grouping; `tuning` sets
the confidence model by cross-validation inside the enrolment set.
"""

from vision.enroll.copies import (
    GLARE_PEAK,
    GLARE_RADIUS,
    TABLE_CARD_WIDTH,
    alter,
    drawn_table,
    glare_copy,
    table_copy,
)
from vision.enroll.enrol import EnrolReport, Progress, collect_samples, enroll, photo_samples
from vision.enroll.options import EnrolOptions
from vision.enroll.samples import Sample, by_photo, class_arrays
from vision.enroll.tuning import (
    ONE_CORNER_CEILING,
    fit_colour,
    fit_temperature,
    novelty_limit,
    one_corner_threshold,
)

__all__ = ["GLARE_PEAK", "GLARE_RADIUS", "ONE_CORNER_CEILING", "TABLE_CARD_WIDTH", "EnrolOptions",
           "EnrolReport", "Progress", "Sample", "alter", "by_photo", "class_arrays",
           "collect_samples", "drawn_table", "enroll", "fit_colour", "fit_temperature",
           "glare_copy", "novelty_limit", "one_corner_threshold", "photo_samples", "table_copy"]
