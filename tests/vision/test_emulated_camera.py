"""The emulated layout camera (drivers) drawing with the layout renderer (vision), read back by
the recogniser: what the composition root wires for the demo and the HIL suite."""

from __future__ import annotations

from drivers.camera import EmulatedLayoutCamera, build_camera, emulated_render_options
from vision import Recognizer
from vision.build.synth import BACK, LayoutRenderer


def test_cards_dealt_to_the_emulated_layout_are_read_back(generic: Recognizer) -> None:
    options = {"width": 1280, "height": 960, "card_width": 120, "seed": 4}
    renderer = LayoutRenderer(**emulated_render_options("camera", options))
    camera = build_camera("camera", "emulated", options, render=renderer)
    assert isinstance(camera, EmulatedLayoutCamera)
    dealt = {"seat1": ["QH", "7S"], "seat2": ["AD", "TC"], "dealer": ["KS", BACK]}
    with camera:
        for position, codes in dealt.items():
            for code in codes:
                camera.deal(position, code)
        frame = camera.read()
    readings = generic.recognize(frame.image)
    assert len(readings) == 6
    answered = sorted(r.card for r in readings if r.card is not None)
    assert answered == sorted(["QH", "7S", "AD", "TC", "KS"])
