"""`shoectl vision enroll` and `shoectl vision read`, end to end through the dispatcher."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import shoectl
from vision.build.synth import CardStyle, Placement, compose, scatter
from vision.cards import all_codes

from .conftest import SYNTHETIC_DECK


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = shoectl.main(["vision", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def table_images(tmp_path: Path) -> list[tuple[Path, list[str]]]:
    rng = np.random.default_rng(8)
    images = []
    for number, codes in enumerate([["QH"], ["7S", "AD", "KC"]]):
        scene = compose(scatter(codes, (800, 600), rng, (0.22, 0.28), 0.03), (800, 600),
                        CardStyle(), "felt-green", seed=number)
        path = tmp_path / f"table_{number}.png"
        cv2.imwrite(str(path), scene.frame)
        images.append((path, scene.codes))
    return images


def test_read_prints_one_json_object_per_image(capsys: pytest.CaptureFixture[str],
                                               table_images: list[tuple[Path, list[str]]]
                                               ) -> None:
    status, out, err = run(capsys, "read", *(str(p) for p, _ in table_images), "--json")
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["file"] for line in lines] == [str(p) for p, _ in table_images]
    for line, (_, codes) in zip(lines, table_images, strict=True):
        assert sorted(card["card"] for card in line["cards"]) == sorted(codes)
        for card in line["cards"]:
            assert 0.0 <= card["confidence"] <= 1.0
            assert len(card["corners"]) == 4
            assert len(card["box"]) == 4


def test_read_without_json_is_for_people(capsys: pytest.CaptureFixture[str],
                                         table_images: list[tuple[Path, list[str]]]) -> None:
    status, out, _ = run(capsys, "read", str(table_images[0][0]))
    assert status == 0
    assert out.startswith(f"{table_images[0][0]}: QH (")


def test_read_names_an_unreadable_image_and_carries_on(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path,
                                                       table_images: list[tuple[Path, list[str]]]
                                                       ) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"garbage")
    status, out, err = run(capsys, "read", str(broken), str(table_images[0][0]), "--json")
    assert status == 1
    first, second = (json.loads(line) for line in out.splitlines())
    assert first == {"file": str(broken), "error": f"{broken}: not a readable image "
                                                   "(JPEG, PNG, BMP, ...)"}
    assert second["cards"][0]["card"] == "QH"
    assert f"{broken}: not a readable image" in err


def test_read_refuses_a_missing_profile(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        table_images: list[tuple[Path, list[str]]]) -> None:
    status, _, err = run(capsys, "read", "--profile", str(tmp_path / "none.npz"),
                         str(table_images[0][0]))
    assert status == 1
    assert "none.npz: no such profile file" in err


def test_enroll_then_read_with_the_profile(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           deck_folder: Path) -> None:
    profile = tmp_path / "deck.npz"
    status, out, err = run(capsys, "enroll", str(deck_folder), "--out", str(profile),
                           "--augment", "1")
    assert status == 0, err
    assert "enrolled 104 of 104 photos" in out
    assert re.search(r"; (answers by one corner from 0\.\d{3} \(\d+ held-out answers so, 0 "
                     r"wrong\)|never answers by one corner); wrote ", out), out
    assert profile.is_file()
    scene = compose([Placement("9D", (400, 300), 200, 30.0)], (800, 600), SYNTHETIC_DECK,
                    "felt-red")
    image = tmp_path / "nine.png"
    cv2.imwrite(str(image), scene.frame)
    status, out, _ = run(capsys, "read", "--profile", str(profile), str(image), "--json")
    assert status == 0
    assert json.loads(out)["cards"][0]["card"] == "9D"


def test_enroll_names_a_bad_label_line(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((20, 20, 3), np.uint8))
    (tmp_path / "labels.csv").write_text("filename,rank,suit\na.png,Z,H\n")
    status, _, err = run(capsys, "enroll", str(tmp_path), "--out", str(tmp_path / "p.npz"))
    assert status == 1
    assert "labels.csv: line 2: rank 'Z' is not a card rank" in err
    assert not (tmp_path / "p.npz").exists()


def test_enroll_refuses_an_output_folder_that_does_not_exist(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, deck_folder: Path) -> None:
    status, _, err = run(capsys, "enroll", str(deck_folder), "--out",
                         str(tmp_path / "nowhere" / "p.npz"))
    assert status == 1
    assert "does not exist" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        shoectl.main(["vision", "read"])
    assert caught.value.code == 2
    assert len(all_codes()) == 52
