"""The generic build's table cards: synthetic decks drawn small on a table, as a hold'em camera
sees a board, in training and in the tuning decks; and the corners read faint level first."""

from __future__ import annotations

import numpy as np
import pytest

import vision.build.generic as generic_build
from vision.build.generic import (
    GENERIC_LAYOUT,
    Drawing,
    GenericBuildOptions,
    build,
    main,
    synthetic_samples,
    table_card,
)
from vision.build.synth import random_card_style
from vision.build.training import TrainOptions
from vision.enroll import TABLE_CARD_WIDTH
from vision.index import read_corners
from vision.locate import find_cards

pytestmark = pytest.mark.usefixtures("typefaces")


def test_a_table_card_is_small_on_a_table_and_its_index_reads() -> None:
    widths, found, read = [], 0, 0
    for number in range(30):
        rng = np.random.default_rng([5, number])
        style = random_card_style(rng)
        scene, width = table_card("9H", style, number, rng)
        quad = scene.quads[0]
        seen = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
        widths.append(width)
        assert abs(seen - width) <= 0.1 * width  # the outline is the card drawn
        border = np.concatenate([scene.frame[:3].reshape(-1, 3), scene.frame[-3:].reshape(-1, 3)])
        assert float(border.min(axis=1).mean()) < 200  # table, not paper, around the card
        found += bool(find_cards(scene.frame))
        read += sum(c is not None for c in read_corners(scene.frame, quad, GENERIC_LAYOUT))
    assert TABLE_CARD_WIDTH[0] <= min(widths)
    assert max(widths) <= TABLE_CARD_WIDTH[1]
    assert max(widths) - min(widths) > 20  # the whole range, not one size
    assert found >= 27
    assert read >= 45  # of 60 corners


def test_table_share_sets_how_many_cards_are_table_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []
    real = generic_build.table_card

    def counting(*args: object) -> object:
        drawn.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(generic_build, "table_card", counting)
    synthetic_samples(80, 3, drawing=Drawing(table_share=0.25))
    assert 10 <= len(drawn) <= 30
    drawn.clear()
    synthetic_samples(40, 3)
    assert not drawn


def test_a_build_without_table_cards_draws_the_cards_it_drew_before() -> None:
    plain = synthetic_samples(30, 4)
    with_tables = synthetic_samples(30, 4, drawing=Drawing(table_share=0.5))
    by_card = {s.photo: s.features.rank.tobytes() for s in plain if s.corner == 0}
    table = {n for n in range(30) if generic_build._table_rng(4, n, Drawing(0.5)) is not None}
    assert 5 <= len(table) <= 25
    kept = changed = 0
    for sample in with_tables:
        if sample.corner != 0 or sample.photo not in by_card:
            continue
        same = sample.features.rank.tobytes() == by_card[sample.photo]
        if sample.photo in table:
            changed += not same
        else:
            assert same, f"card {sample.photo} is drawn otherwise than without table cards"
            kept += 1
    assert kept >= 5
    assert changed >= 3


def test_the_drawing_is_built_into_the_profile_and_recorded() -> None:
    drawing = Drawing(table_share=0.5, faint_first=True)
    options = GenericBuildOptions(cards=80, validation_cards=30, seed=9, drawing=drawing,
                                  train=TrainOptions(hidden=16, epochs=4, members=1,
                                                     references=50))
    profile = build(options)
    assert profile.layout.faint_first
    assert Drawing.of(dict(profile.info)) == drawing
    assert Drawing.of({}) == Drawing()  # a profile built before table cards


def test_a_table_share_outside_zero_to_one_is_refused_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--table-share", "1.5", "--out", "unused.npz"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--table-share 1.5 must lie between 0 and 1" in error
