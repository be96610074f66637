"""The camera cross-check through the real loop (R9).

The table runtime runs on a real `EventLoop`; the emulated layout camera (`drivers.camera`)
draws its frames with the injected `TableRenderer` (`vision.build.synth`); the real camera worker
reads them on its own thread and runs the generic-profile `vision.Recognizer`; its results
come back to the loop as events. The tests play the dealer: each card is laid on the camera
where the procedure's lamps say, then the shoe's event is posted.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from controller.camera.crosscheck import (
    CameraFrame,
    CameraPolicy,
    CrossCheck,
    Sighting,
    VisionSettings,
)
from controller.camera.emulated import TableRenderer
from controller.camera.worker import CameraWorker, FramePart, slot_boxes
from controller.procedure.core.effects import CameraCheck
from controller.service.loop import EventLoop
from controller.service.runtime import ControllerEvent, TableRuntime
from drivers import events as ev
from drivers.camera import EmulatedLayoutCamera
from vision import Recognizer, load_generic_profile
from vision.build.synth import BACK

from .helpers import open_round, runtime

ZONES = ("dealer", "seat1", "seat2")
SETTINGS = VisionSettings(frames=6, frame_interval_ms=10)


@dataclass
class Table:
    runtime: TableRuntime
    loop: EventLoop
    camera: EmulatedLayoutCamera
    renderer: Render
    worker: CameraWorker
    check: CrossCheck
    recognised_on: set[int]
    count: int = 0

    @property
    def model(self):
        return self.runtime.model

    def settle(self, timeout: float = 120.0) -> None:
        assert self.loop.run_until(lambda: self.check.idle and not self.loop.pending(), timeout)
        self.loop.run_until_idle()

    def post(self, event: object) -> None:
        self.loop.post(event)
        self.settle()

    def deal(self, code: str, on_camera: str | None = None) -> None:
        """The dealer lays the card where the lamps say, and the shoe reports it."""
        due = self.model.card_due_to()
        assert due is not None
        zone = "dealer" if due.is_dealer else f"seat{due.seat}"
        self.camera.deal(zone, BACK if due.hole else (on_camera or code))
        self.count += 1
        self.post(ev.CardDrawn("shoe", self.count, code, 100, 0.0))

    def turn_hole_over_and(self, trigger: str) -> None:
        """The decision that ends the players' turn; the dealer turns the hole card over."""
        self.loop.post(ControllerEvent(trigger, {}))
        layout = self.camera.layout()
        layout["dealer"][1] = str(self.model.game.dealer[1])
        self.camera.show(layout)
        self.settle()

    def journal(self, kind: str) -> list[dict]:
        return [e.data for e in self.runtime.journal.entries() if e.kind == kind]


class Render:
    """The renderer the camera is given, with hooks to inject what a test needs."""

    def __init__(self) -> None:
        self.base = TableRenderer(ZONES, size=(800, 600), card_width=90.0, seed=3)
        self.points = self.base.points
        self.swap: dict[str, str] = {}
        self.swap_once: dict[str, str] = {}
        self.face_down_first: set[str] = set()
        self.broken = False
        self.frames = 0

    def __call__(self, layout: Mapping[str, Sequence[str]]):
        self.frames += 1
        if self.broken:
            raise ValueError("lens cap on")
        shown = {zone: [self._shown(code) for code in codes] for zone, codes in layout.items()}
        once, self.swap_once = self.swap_once, {}
        return self.base({zone: [once.get(code, code) for code in codes]
                          for zone, codes in shown.items()})

    def _shown(self, code: str) -> str:
        if code in self.face_down_first:
            self.face_down_first.discard(code)  # unsure on this frame only
            return BACK
        return self.swap.get(code, code)


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(load_generic_profile())


def build(tmp_path: Path, recognizer: Recognizer,
          settings: VisionSettings = SETTINGS) -> Table:
    rt = runtime(tmp_path)
    loop = EventLoop(rt.handle)
    render = Render()
    camera = EmulatedLayoutCamera("camera", render)
    seen: set[int] = set()

    def recognize(image):
        seen.add(threading.get_ident())
        return recognizer.recognize(image)

    worker = CameraWorker(camera, recognize, loop.post, lambda w, h: render.points)
    check = CrossCheck(settings, worker, loop.call_later)
    rt.crosscheck = check
    worker.start()
    return Table(rt, loop, camera, render, worker, check, seen)


@pytest.fixture
def table(tmp_path: Path, recognizer: Recognizer) -> Iterator[Table]:
    built = build(tmp_path, recognizer)
    try:
        yield built
    finally:
        built.worker.close()
        built.camera.close()


def start_round(table: Table, seats: Sequence[int] = (1,)) -> None:
    open_round(table.runtime, {seat: {"main": 1000} for seat in seats})


def public_text(table: Table) -> str:
    return " ".join(str(effect) for effect in table.runtime.outputs.applied)


def test_every_card_is_matched_with_what_the_camera_sees(table: Table) -> None:
    start_round(table)
    for code in ("TS", "7C", "9H", "TD"):
        table.deal(code)
    assert table.model.state == "players"
    matched = table.journal("camera:match")
    assert [(m["zone"], m["card"]) for m in matched] == [
        ("seat1", "TS"), ("dealer", "7C"), ("seat1", "9H")]  # the hole card is face down
    table.turn_hole_over_and("stand")
    hole = table.journal("camera:match")[-1]
    assert (hole["ref"], hole["zone"], hole["card"]) == ("hole card", "dealer", "TD")
    assert table.model.state == "round_over"
    assert table.check.checked == 4
    assert threading.get_ident() not in table.recognised_on  # never on the loop thread
    assert table.loop.thread_id not in table.recognised_on


def test_a_wrong_card_on_the_layout_stops_the_table_for_the_supervisor(table: Table) -> None:
    start_round(table)
    table.renderer.swap = {"9H": "QS"}  # the camera sees QS where the shoe dealt 9H
    for code in ("TS", "7C", "9H"):
        table.deal(code)
    assert table.model.state == "fault"
    [mismatch] = table.journal("camera:mismatch")
    assert (mismatch["zone"], mismatch["shoe"], mismatch["camera"]) == ("seat1", "9H", ["QS"])
    hold = table.journal("procedure:hold")[-1]
    assert hold["reason"].startswith("camera mismatch: card 3 at seat1")
    assert not re.search(r"\b(9H|QS)\b", public_text(table))
    table.post(ControllerEvent("no_insurance", {}))  # a dealer button cannot clear it (R9)
    assert table.model.state == "fault"
    table.post(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    assert table.model.state == "dealing"


def test_a_card_the_shoe_never_dealt_is_a_phantom(table: Table) -> None:
    start_round(table)
    table.deal("TS")
    table.camera.deal("seat2", "KH")  # seat 2 has no wager, and the shoe gave no KH
    table.deal("7C")
    assert table.model.state == "fault"
    [phantom] = table.journal("camera:phantom")
    assert phantom["cards"] == {"seat2": ["KH"]}
    assert not re.search(r"\bKH\b", public_text(table))


def test_an_unsure_reading_takes_another_frame(table: Table) -> None:
    start_round(table)
    table.renderer.face_down_first = {"TS"}  # the first frame cannot read it
    table.deal("TS")
    [match] = table.journal("camera:match")
    assert match["card"] == "TS"
    assert match["frames"] >= 2
    assert table.model.state == "dealing"
    assert not table.journal("camera:unconfirmed")


@pytest.mark.parametrize("policy", [CameraPolicy.WARN, CameraPolicy.STOP])
def test_a_card_never_confirmed_warns_or_stops_by_configuration(
        tmp_path: Path, recognizer: Recognizer, policy: CameraPolicy) -> None:
    table = build(tmp_path, recognizer, replace(SETTINGS, frames=2, on_unsure=policy))
    try:
        start_round(table)
        table.renderer.swap = {"TS": BACK}  # never readable
        table.deal("TS")
        [unconfirmed] = table.journal("camera:unconfirmed")
        assert (unconfirmed["zone"], unconfirmed["card"], unconfirmed["frames"]) == (
            "seat1", "TS", 2)
        assert table.model.state == ("fault" if policy is CameraPolicy.STOP else "dealing")
    finally:
        table.worker.close()


@pytest.mark.parametrize("policy", [CameraPolicy.WARN, CameraPolicy.STOP])
def test_a_camera_that_is_down_is_shown_and_handled_by_configuration(
        tmp_path: Path, recognizer: Recognizer, policy: CameraPolicy) -> None:
    table = build(tmp_path, recognizer, replace(SETTINGS, on_camera_down=policy))
    try:
        start_round(table)
        table.renderer.broken = True
        table.deal("TS")
        assert table.check.down
        assert table.journal("camera:down")
        [unchecked] = table.journal("camera:unchecked")
        assert (unchecked["card"], unchecked["reason"]) == ("TS", "camera down")
        assert table.runtime.shown.dealer_text.startswith("CAMERA DOWN")
        if policy is CameraPolicy.STOP:
            assert table.model.state == "fault"
            table.post(ev.KeySwitchTurned("layout", "supervisor", 0.0))
        assert table.model.state == "dealing"
        table.renderer.broken = False  # the camera is back
        table.deal("7C")
        assert not table.check.down
        assert table.journal("camera:up")
        assert table.journal("camera:match")[-1]["card"] == "7C"
        assert not table.runtime.shown.dealer_text.startswith("CAMERA DOWN")
    finally:
        table.worker.close()


def test_no_card_identity_reaches_a_public_output_or_the_log(table: Table,
                                                             caplog: pytest.LogCaptureFixture,
                                                             ) -> None:
    start_round(table, seats=(1, 2))
    table.renderer.face_down_first = {"9H"}
    for code in ("TS", "QH", "7C", "9H", "2C", "KH"):
        table.deal(code)
    text = public_text(table) + caplog.text
    for code in ("TS", "QH", "7C", "9H", "2C", "KH"):
        assert not re.search(rf"\b{code}\b", text), code


def test_cards_of_a_round_that_ended_are_not_judged_against_the_next() -> None:
    asked: list[int] = []
    check = CrossCheck(SETTINGS, Requests(asked), lambda delay, callback: None)
    check.request([CameraCheck("seat1", "TS", "card 1")], round_no=1)
    # The round is settled and its cards collected before the frame taken for it arrives.
    frame = CameraFrame(asked[-1], 7, (Sighting("seat1", "TS", 0.99),
                                       Sighting("dealer", "7C", 0.99)))
    verdict = check.on_frame(frame, {}, [], round_no=2)
    assert verdict.triggers == []  # not a phantom: those cards belonged to round 1
    [unchecked] = [e.data for e in verdict.effects if getattr(e, "kind", "") == "camera:unchecked"]
    assert unchecked["reason"] == "the round ended before the camera confirmed it"
    assert check.idle


class Requests:
    def __init__(self, asked: list[int]) -> None:
        self.asked = asked

    def request(self, number: int) -> None:
        self.asked.append(number)


def test_a_reading_where_a_card_lies_face_down_is_recorded_not_judged() -> None:
    asked: list[int] = []
    check = CrossCheck(SETTINGS, Requests(asked), lambda delay, callback: callback())
    check.request([CameraCheck("dealer", "9S", "card 6")], round_no=1)
    layout = {"dealer": ["9S", None], "seat1": ["TS"]}
    once = CameraFrame(asked[-1], 3, (Sighting("dealer", "9S", 0.99),
                                      Sighting("dealer", "4D", 0.97),
                                      Sighting("seat1", "TS", 0.99)))
    verdict = check.on_frame(once, layout, [], round_no=1)
    assert verdict.triggers == []
    read = [e.data for e in verdict.effects if getattr(e, "kind", "") == "camera:face_down_read"]
    assert read == [{"cards": {"dealer": ["4D"]}, "frame": 3}]
    check.request([CameraCheck("seat1", "TS", "card 7")], round_no=1)
    stranger = CameraFrame(asked[-1], 4, (*once.sightings, Sighting("dealer", "KC", 0.98)))
    verdict = check.on_frame(stranger, layout, [], round_no=1)
    assert verdict.triggers == []  # one back and a stranger: look again first
    assert [e.kind for e in verdict.effects] == ["camera:stray_seen"]
    again = CameraFrame(asked[-1], 5, stranger.sightings)
    verdict = check.on_frame(again, layout, [], round_no=1)
    assert [t for t, _ in verdict.triggers] == ["camera_fault"]


def test_a_misreading_on_one_frame_only_is_journalled_not_a_fault(table: Table) -> None:
    start_round(table)
    table.deal("TS")
    table.renderer.swap_once = {"TS": "3H"}  # the next frame misreads it, the one after not
    table.deal("7C")
    assert table.model.state == "dealing"
    [seen] = table.journal("camera:stray_seen")
    assert seen["cards"] == {"seat1": ["3H"]}
    [gone] = table.journal("camera:stray_not_repeated")
    assert gone["cards"] == {"seat1": ["3H"]}
    assert [m["card"] for m in table.journal("camera:match")] == ["TS", "7C"]


def test_the_worker_passes_each_reading_with_its_guess(tmp_path: Path,
                                                       recognizer: Recognizer) -> None:
    render = TableRenderer(ZONES, size=(800, 600), seed=5)
    camera = EmulatedLayoutCamera("camera", render)
    worker = CameraWorker(camera, recognizer.recognize, lambda _event: None,
                          lambda w, h: render.points)
    camera.show({"seat1": ["QH"], "dealer": [BACK]})
    try:
        frame = worker.capture(1)
    finally:
        camera.close()
    by_zone = {s.zone: s for s in frame.sightings}
    assert (by_zone["seat1"].card, by_zone["seat1"].guess) == ("QH", "QH")
    assert by_zone["seat1"].likeness == "QH"
    assert (by_zone["dealer"].card, by_zone["dealer"].guess) == (None, None)  # a back: no index


def _recording_worker(recognizer: Recognizer, boxes: Mapping[str, FramePart]
                      ) -> tuple[EmulatedLayoutCamera, CameraWorker, list[tuple[int, ...]]]:
    """A worker on an 800x600 emulated layout with `boxes`; the list gets each shape read."""
    render = TableRenderer(ZONES, size=(800, 600), seed=5)
    camera = EmulatedLayoutCamera("camera", render)
    parts: list[tuple[int, ...]] = []

    def recognize(image):
        parts.append(image.shape[:2])
        return recognizer.recognize(image)

    worker = CameraWorker(camera, recognize, lambda _event: None, lambda w, h: render.points,
                          lambda w, h: boxes)
    return camera, worker, parts


def test_a_frame_asked_for_one_position_reads_only_its_part(tmp_path: Path,
                                                           recognizer: Recognizer) -> None:
    render = TableRenderer(ZONES, size=(800, 600), seed=5)
    boxes = slot_boxes(render.points, render.card_width, render.size)
    camera, worker, parts = _recording_worker(recognizer, boxes)
    camera.show({"seat1": ["QH"], "seat2": ["7C"], "dealer": ["AS"]})
    try:
        whole, seat2 = worker.capture(1), worker.capture(2, ("seat2",))
    finally:
        camera.close()
    left, top, right, bottom = boxes["seat2"]
    assert parts == [(600, 800), (bottom - top, right - left)]
    assert (right - left) * (bottom - top) < 800 * 600 / 3  # a part, not the frame
    assert {(s.zone, s.card) for s in whole.sightings} == {
        ("seat1", "QH"), ("seat2", "7C"), ("dealer", "AS")}
    assert [(s.zone, s.card) for s in seat2.sightings] == [("seat2", "7C")]  # placed right


def test_slot_boxes_hold_each_position_s_cards_and_stay_in_the_frame() -> None:
    render = TableRenderer(ZONES, size=(800, 600), seed=5)
    boxes = slot_boxes(render.points, render.card_width, render.size)
    assert set(boxes) == set(ZONES)
    width = render.card_width
    for name, (x, y) in render.points.items():
        left, top, right, bottom = boxes[name.partition(".")[0]]
        assert min(left, top) >= 0
        assert right <= 800
        assert bottom <= 600
        # a card on its slot, its corners turned or pushed, lies inside
        assert left <= max(0, x - width), name
        assert right >= min(800, x + width), name
        assert top <= max(0, y - 1.4 * width), name
        assert bottom >= min(600, y + 1.4 * width), name


def test_a_part_too_small_to_recognise_alone_gives_the_whole_frame(
        tmp_path: Path, recognizer: Recognizer) -> None:
    camera, worker, parts = _recording_worker(recognizer, {"seat1": (10, 10, 40, 300)})
    camera.show({"seat1": ["QH"]})
    try:
        frame = worker.capture(1, ("seat1",))
    finally:
        camera.close()
    assert parts == [(600, 800)]
    assert frame.error == ""
