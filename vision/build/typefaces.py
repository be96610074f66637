"""Real typefaces for synthetic index glyphs, rasterised by OpenCV 5's own font engine.

OpenCV 5 renders text through `cv2.FontFace`: its built-in faces ("sans", a variable-weight
grotesque, its italic, and "uni", a humanist sans) and any TrueType or OpenType file it is
given. The other faces are read from the machine's font folders (`FONT_FOLDERS`), installed
from Debian packages (`.ci/sysdeps`): DejaVu (`fonts-dejavu-core`, `fonts-dejavu-extra`;
Bitstream Vera licence), Liberation (`fonts-liberation2`), Noto (`fonts-noto-core`), Carlito
(`fonts-crosextra-carlito`; these three SIL OFL 1.1), Caladea (`fonts-crosextra-caladea`),
Roboto (`fonts-roboto-unhinted`; both Apache 2.0) and TeX Gyre (`fonts-texgyre`; GUST Font
Licence), all allowing use and redistribution. Open Sans (`fonts-open-sans`) and the URW
faces (`fonts-urw-base35`, AGPL with a font exception) are only drawn for measuring. Only
rendered pixels feed the generic profile's training; no font data is kept or shipped.

Faces are grouped in design families (every cut of one design in one family). The generic
profile trains on `TRAINING_FAMILIES` (plus this package's stroke outlines, family "stroke")
and is measured on `HELD_OUT_FAMILIES`, designs it never saw: the held-out figures are
figures on unseen typefaces, not on fresh samples of trained ones.

Nothing here is needed to read cards: only the synthetic renderer uses it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import SceneError

STROKE: Final = "stroke"
"""Family name of this package's own stroke outlines (`vision.build.strokes`)."""
FONT_FOLDERS: Final = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"),
                       Path("/usr/share/texmf/fonts"))
_RENDER_HEIGHT: Final = 160


@dataclass(frozen=True, slots=True)
class Typeface:
    """One face a deck's index may be printed in.

    Attributes:
        name: Short name ("dejavu-serif-bold").
        family: Design family; held-out evaluation leaves whole families out.
        source: An OpenCV built-in face ("sans", "italic", "uni") or a font file name.
        variable: Whether the face has a weight axis (100 thin to 900 black).
    """

    name: str
    family: str
    source: str
    variable: bool = False


FACES: Final = (
    Typeface("cv-sans", "cv-sans", "sans", variable=True),
    Typeface("cv-italic", "cv-italic", "italic", variable=True),
    Typeface("cv-uni", "cv-uni", "uni"),
    Typeface("dejavu-sans", "dejavu-sans", "DejaVuSans.ttf"),
    Typeface("dejavu-sans-bold", "dejavu-sans", "DejaVuSans-Bold.ttf"),
    Typeface("dejavu-sans-condensed", "dejavu-sans", "DejaVuSansCondensed.ttf"),
    Typeface("dejavu-sans-condensed-bold", "dejavu-sans", "DejaVuSansCondensed-Bold.ttf"),
    Typeface("dejavu-sans-oblique", "dejavu-sans", "DejaVuSans-Oblique.ttf"),
    Typeface("dejavu-serif", "dejavu-serif", "DejaVuSerif.ttf"),
    Typeface("dejavu-serif-bold", "dejavu-serif", "DejaVuSerif-Bold.ttf"),
    Typeface("dejavu-serif-condensed", "dejavu-serif", "DejaVuSerifCondensed.ttf"),
    Typeface("dejavu-serif-condensed-bold", "dejavu-serif", "DejaVuSerifCondensed-Bold.ttf"),
    Typeface("dejavu-serif-italic", "dejavu-serif", "DejaVuSerif-Italic.ttf"),
    Typeface("dejavu-mono", "dejavu-mono", "DejaVuSansMono.ttf"),
    Typeface("dejavu-mono-bold", "dejavu-mono", "DejaVuSansMono-Bold.ttf"),
    Typeface("dejavu-math", "dejavu-math", "DejaVuMathTeXGyre.ttf"),
    # Grotesques (Arial- and Helvetica-like, regular and condensed).
    Typeface("liberation-sans", "grotesque", "LiberationSans-Regular.ttf"),
    Typeface("liberation-sans-bold", "grotesque", "LiberationSans-Bold.ttf"),
    Typeface("liberation-sans-italic", "grotesque", "LiberationSans-Italic.ttf"),
    Typeface("heros", "grotesque", "texgyreheros-regular.otf"),
    Typeface("heros-bold", "grotesque", "texgyreheros-bold.otf"),
    Typeface("heros-condensed", "grotesque", "texgyreheroscn-regular.otf"),
    Typeface("heros-condensed-bold", "grotesque", "texgyreheroscn-bold.otf"),
    # The Times design.
    Typeface("liberation-serif", "times", "LiberationSerif-Regular.ttf"),
    Typeface("liberation-serif-bold", "times", "LiberationSerif-Bold.ttf"),
    Typeface("liberation-serif-italic", "times", "LiberationSerif-Italic.ttf"),
    Typeface("termes", "times", "texgyretermes-regular.otf"),
    Typeface("termes-bold", "times", "texgyretermes-bold.otf"),
    # Century Schoolbook, the Clarendon-like book face of many card indices.
    Typeface("schola", "century", "texgyreschola-regular.otf"),
    Typeface("schola-bold", "century", "texgyreschola-bold.otf"),
    Typeface("schola-italic", "century", "texgyreschola-italic.otf"),
    # Noto Serif (book and display), Caladea (a Cambria-like serif).
    Typeface("noto-serif", "noto-serif", "NotoSerif-Regular.ttf"),
    Typeface("noto-serif-bold", "noto-serif", "NotoSerif-Bold.ttf"),
    Typeface("noto-serif-italic", "noto-serif", "NotoSerif-Italic.ttf"),
    Typeface("noto-serif-display", "noto-serif", "NotoSerifDisplay-Regular.ttf"),
    Typeface("noto-serif-display-bold", "noto-serif", "NotoSerifDisplay-Bold.ttf"),
    Typeface("caladea", "caladea", "Caladea-Regular.ttf"),
    Typeface("caladea-bold", "caladea", "Caladea-Bold.ttf"),
    # Open Sans and its Noto descendant (humanist sans, like OpenCV's "uni").
    Typeface("open-sans", "open-sans", "OpenSans-Regular.ttf"),
    Typeface("open-sans-semibold", "open-sans", "OpenSans-Semibold.ttf"),
    Typeface("open-sans-extrabold", "open-sans", "OpenSans-ExtraBold.ttf"),
    Typeface("open-sans-condensed-bold", "open-sans", "OpenSans-CondBold.ttf"),
    Typeface("open-sans-condensed-light", "open-sans", "OpenSans-CondLight.ttf"),
    Typeface("noto-sans", "open-sans", "NotoSans-Regular.ttf"),
    Typeface("noto-sans-bold", "open-sans", "NotoSans-Bold.ttf"),
    Typeface("noto-sans-display-bold", "open-sans", "NotoSansDisplay-Bold.ttf"),
    # Carlito (a Calibri-like rounded sans) and Roboto (regular and condensed).
    Typeface("carlito", "carlito", "Carlito-Regular.ttf"),
    Typeface("carlito-bold", "carlito", "Carlito-Bold.ttf"),
    Typeface("roboto", "roboto", "Roboto-Regular.ttf"),
    Typeface("roboto-light", "roboto", "Roboto-Light.ttf"),
    Typeface("roboto-bold", "roboto", "Roboto-Bold.ttf"),
    Typeface("roboto-black", "roboto", "Roboto-Black.ttf"),
    Typeface("roboto-condensed", "roboto", "RobotoCondensed-Regular.ttf"),
    Typeface("roboto-condensed-bold", "roboto", "RobotoCondensed-Bold.ttf"),
    # Palatino, Bookman, Avant Garde and Courier (TeX Gyre and URW cuts).
    Typeface("pagella", "palatino", "texgyrepagella-regular.otf"),
    Typeface("pagella-bold", "palatino", "texgyrepagella-bold.otf"),
    Typeface("pagella-italic", "palatino", "texgyrepagella-italic.otf"),
    Typeface("urw-p052", "palatino", "P052-Roman.otf"),
    Typeface("urw-p052-bold", "palatino", "P052-Bold.otf"),
    Typeface("bonum", "bookman", "texgyrebonum-regular.otf"),
    Typeface("bonum-bold", "bookman", "texgyrebonum-bold.otf"),
    Typeface("urw-bookman-light", "bookman", "URWBookman-Light.otf"),
    Typeface("urw-bookman-demi", "bookman", "URWBookman-Demi.otf"),
    Typeface("adventor", "avant-garde", "texgyreadventor-regular.otf"),
    Typeface("adventor-bold", "avant-garde", "texgyreadventor-bold.otf"),
    Typeface("urw-gothic", "avant-garde", "URWGothic-Book.otf"),
    Typeface("urw-gothic-demi", "avant-garde", "URWGothic-Demi.otf"),
    Typeface("cursor", "courier", "texgyrecursor-regular.otf"),
    Typeface("cursor-bold", "courier", "texgyrecursor-bold.otf"),
    Typeface("urw-nimbus-mono", "courier", "NimbusMonoPS-Regular.otf"),
    Typeface("urw-nimbus-mono-bold", "courier", "NimbusMonoPS-Bold.otf"),
)
TRAINING_FAMILIES: Final = (STROKE, "cv-sans", "cv-italic", "dejavu-sans")
"""Families the generic profile is trained on."""
HELD_OUT_FAMILIES: Final = ("cv-uni", "dejavu-mono", "dejavu-serif", "dejavu-math",
                            "grotesque", "times", "century", "noto-serif", "caladea",
                            "carlito", "roboto", "open-sans", "palatino", "bookman",
                            "avant-garde", "courier")
"""Families kept out of training, to measure the generic profile on unseen designs. Each
design is held out whole, in every cut of it (TeX Gyre Pagella and URW P052 are one
Palatino)."""
CALIBRATION_FAMILIES: Final = ("grotesque", "times", "century", "noto-serif", "caladea",
                               "carlito", "roboto")
"""Held-out families the generic pair's unsure threshold is set on
(`vision.build.learned_combined.calibrated_rule`): never trained on, every held-out family
drawn from files free to build with (not the URW faces, not Open Sans) but the four held out
since the first builds. Nothing of the build sees `UNTUNED_FAMILIES`."""
UNTUNED_FAMILIES: Final = tuple(family for family in HELD_OUT_FAMILIES
                                if family not in CALIBRATION_FAMILIES)
"""Held-out families neither trained nor calibrated on: the unseen designs' measure."""
ORIGINAL_HELD_OUT: Final = ("cv-uni", "dejavu-mono", "dejavu-serif", "dejavu-math")
"""The four families held out since the first builds (the others came with more fonts), for
figures comparable with earlier ones."""
_BUILT_IN: Final = frozenset({"sans", "italic", "uni"})


def faces_of(families: tuple[str, ...]) -> list[Typeface]:
    """The faces of `families` (the stroke family has none)."""
    return [face for face in FACES if face.family in families]


def face_named(name: str) -> Typeface:
    """The face called `name`.

    Raises:
        SceneError: No face has that name.
    """
    for face in FACES:
        if face.name == name:
            return face
    raise SceneError(f"unknown typeface {name!r}; known: {', '.join(f.name for f in FACES)}")


def missing(families: tuple[str, ...]) -> list[str]:
    """Why faces of `families` cannot be drawn here, one line each (empty when all can)."""
    if not hasattr(cv2, "FontFace"):
        return [f"OpenCV {cv2.__version__} has no FontFace (OpenCV 5 is needed)"]
    return [f"{face.name}: font file {face.source} not found under "
            f"{', '.join(str(p) for p in FONT_FOLDERS)}"
            for face in faces_of(families)
            if face.source not in _BUILT_IN and _font_file(face.source) is None]


@functools.cache
def _font_file(name: str) -> Path | None:
    for folder in FONT_FOLDERS:
        if folder.is_dir():
            for path in sorted(folder.rglob(name)):
                return path
    return None


@functools.cache
def _font(source: str) -> Any:
    """The OpenCV face for `source`, kept alive for the process (faces must outlive use)."""
    if not hasattr(cv2, "FontFace"):
        raise SceneError(f"typefaces need OpenCV 5's FontFace; OpenCV {cv2.__version__} "
                         "has none")
    if source in _BUILT_IN:
        return cv2.FontFace(source)
    path = _font_file(source)
    if path is None:
        raise SceneError(f"font file {source} not found under "
                         f"{', '.join(str(p) for p in FONT_FOLDERS)}")
    return cv2.FontFace(str(path))


def text_mask(text: str, face: Typeface, weight: int = 400) -> npt.NDArray[np.float32]:
    """Ink mask (1 = ink) of `text` in `face`, cropped to the ink.

    Args:
        text: The characters, e.g. "10".
        face: The typeface.
        weight: 100 (thin) to 900 (black); only variable faces use it.

    Raises:
        SceneError: The face cannot be drawn here (see `missing`).
    """
    size = _RENDER_HEIGHT
    canvas = np.zeros((2 * size, size * (len(text) + 1)), np.uint8)
    cv2.putText(canvas, text, (size // 4, round(1.4 * size)), 255, _font(face.source), size,
                weight if face.variable else 0)
    mask = canvas.astype(np.float32) / 255.0
    rows = np.flatnonzero(mask.max(axis=1) > 0.05)
    cols = np.flatnonzero(mask.max(axis=0) > 0.05)
    if rows.size == 0:
        raise SceneError(f"typeface {face.name} drew nothing for {text!r}")
    return np.ascontiguousarray(mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1])
