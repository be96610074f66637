"""Camera sources: life cycle, frames, errors naming the device, and option validation."""

from __future__ import annotations

import itertools
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from drivers.camera import (
    CAMERA_KINDS,
    PICAMERA2_MISSING,
    CameraSource,
    EmulatedLayoutCamera,
    EndOfFramesError,
    FileCamera,
    FolderCamera,
    FrameReadError,
    OpenCVCamera,
    Picamera2Camera,
    VideoFileCamera,
    build_camera,
    emulated_render_options,
)
from drivers.errors import DeviceClosedError, DeviceConfigError, DeviceUnavailableError, DriverError


def ticking_clock() -> Any:
    counter = itertools.count()
    return lambda: float(next(counter))


def solid(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    image = np.zeros((size[1], size[0], 3), np.uint8)
    image[:] = (value, 255 - value, value // 2)
    return image


@pytest.fixture
def image_file(tmp_path: Path) -> Path:
    path = tmp_path / "still.png"
    assert cv2.imwrite(str(path), solid(90))
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    frames = tmp_path / "frames"
    frames.mkdir()
    for index, value in enumerate((10, 20, 30)):
        assert cv2.imwrite(str(frames / f"frame_{index:03d}.png"), solid(value))
    (frames / "notes.txt").write_text("not an image")
    return frames


@pytest.fixture
def video_file(tmp_path: Path) -> Path:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for value in (0, 100, 200):
        writer.write(solid(value))
    writer.release()
    return path


def test_every_source_satisfies_the_protocol(image_file: Path, folder: Path,
                                             video_file: Path) -> None:
    sources = [OpenCVCamera("camera", 0), Picamera2Camera("camera"),
               FileCamera("camera", image_file), FolderCamera("camera", folder),
               VideoFileCamera("camera", video_file),
               EmulatedLayoutCamera("camera", lambda layout: solid(0))]
    for source in sources:
        assert isinstance(source, CameraSource)
        assert source.name == "camera"
        assert not source.is_open
        assert not source.link_up
    # Recorded frames (a still, a folder, a video) stand in for a camera, like drawn ones.
    assert [s.emulated for s in sources] == [False, False, True, True, True, True]


def test_file_camera_repeats_its_image_with_numbers_and_timestamps(image_file: Path) -> None:
    camera = FileCamera("camera", image_file, clock=ticking_clock())
    camera.open()
    camera.open()  # idempotent
    first, second = camera.read(), camera.read()
    assert (first.number, second.number) == (1, 2)
    assert (first.timestamp, second.timestamp) == (0.0, 1.0)
    assert first.image.shape == (48, 64, 3)
    assert first.image.dtype == np.uint8
    assert np.array_equal(first.image, second.image)
    first.image[:] = 0  # a caller's change does not reach the next frame
    assert camera.read().image.max() > 0
    camera.close()
    camera.close()  # idempotent
    assert not camera.is_open


def test_reopening_restarts_the_frame_count(image_file: Path) -> None:
    camera = FileCamera("camera", image_file)
    with camera:
        camera.read()
        camera.read()
    with camera:
        assert camera.read().number == 1


def test_reading_a_closed_camera_is_refused(image_file: Path) -> None:
    camera = FileCamera("camera", image_file)
    with pytest.raises(DeviceClosedError, match=r"\[devices.camera\] camera is not open"):
        camera.read()


def test_missing_and_unreadable_files_name_device_and_file(tmp_path: Path) -> None:
    with pytest.raises(DeviceUnavailableError, match=r"\[devices.cam\].*nothing.png: no such"):
        FileCamera("cam", tmp_path / "nothing.png").open()
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"\xff\xd8 not really a jpeg")
    with pytest.raises(DeviceUnavailableError, match=r"junk.jpg: not a readable image"):
        FileCamera("cam", junk).open()


def test_folder_camera_reads_images_in_name_order_and_ends(folder: Path) -> None:
    camera = FolderCamera("camera", folder)
    with camera:
        values = [int(camera.read().image[0, 0, 0]) for _ in range(3)]
        assert values == [10, 20, 30]
        with pytest.raises(EndOfFramesError, match="no more images"):
            camera.read()
    with FolderCamera("camera", folder, pattern="frame_00[12]*") as camera:
        assert [p.name for p in camera.files] == ["frame_001.png", "frame_002.png"]


def test_folder_camera_loops_when_asked(folder: Path) -> None:
    with FolderCamera("camera", folder, loop=True) as camera:
        values = [int(camera.read().image[0, 0, 0]) for _ in range(5)]
    assert values == [10, 20, 30, 10, 20]


def test_folder_camera_names_a_corrupt_image(folder: Path) -> None:
    (folder / "frame_001.png").write_bytes(b"broken")
    with FolderCamera("camera", folder) as camera:
        camera.read()
        with pytest.raises(FrameReadError, match=r"frame_001.png: not a readable image"):
            camera.read()


def test_folder_camera_refuses_missing_or_empty_folders(tmp_path: Path) -> None:
    with pytest.raises(DeviceUnavailableError, match="no such folder"):
        FolderCamera("camera", tmp_path / "absent").open()
    with pytest.raises(DeviceUnavailableError, match="no images match"):
        FolderCamera("camera", tmp_path).open()


def test_video_file_camera_reads_frames_then_ends(video_file: Path) -> None:
    with VideoFileCamera("camera", video_file) as camera:
        levels = [int(camera.read().image[..., 0].mean()) for _ in range(3)]
        with pytest.raises(EndOfFramesError):
            camera.read()
    assert levels[0] < 20
    assert 80 < levels[1] < 120
    assert levels[2] > 180


def test_video_file_camera_loops(video_file: Path) -> None:
    with VideoFileCamera("camera", video_file, loop=True) as camera:
        frames = [camera.read() for _ in range(4)]
    assert frames[3].number == 4
    assert abs(int(frames[3].image.mean()) - int(frames[0].image.mean())) < 5


def test_video_file_camera_refuses_bad_files(tmp_path: Path) -> None:
    with pytest.raises(DeviceUnavailableError, match="no such video file"):
        VideoFileCamera("camera", tmp_path / "absent.avi").open()
    bogus = tmp_path / "bogus.avi"
    bogus.write_bytes(b"no video here")
    with pytest.raises(DeviceUnavailableError, match="not a readable video"):
        VideoFileCamera("camera", bogus).open()


def test_opencv_camera_reports_a_missing_device_by_name() -> None:
    camera = OpenCVCamera("camera", "/dev/video-that-does-not-exist")
    with pytest.raises(DeviceUnavailableError) as caught:
        camera.open()
    assert caught.value.device == "camera"
    assert "/dev/video-that-does-not-exist" in str(caught.value)
    assert not camera.is_open


def test_opencv_camera_capture_path_through_a_recorded_stream(video_file: Path) -> None:
    # The V4L2 backend needs a camera; the same capture code runs on a recorded stream.
    camera = OpenCVCamera("camera", str(video_file), width=64, height=48, fps=10,
                          backend=cv2.CAP_ANY, clock=ticking_clock(), flush_frames=0)
    with camera:
        frames = [camera.read() for _ in range(3)]
        with pytest.raises(FrameReadError, match="returned no frame"):
            camera.read()
    assert [f.number for f in frames] == [1, 2, 3]
    assert frames[0].image.shape == (48, 64, 3)


class FakePicamera2:
    """Stands in for picamera2.Picamera2: records calls, returns RGB888 (BGR-ordered) arrays."""

    def __init__(self, number: int, fail_capture: bool = False) -> None:
        self.number = number
        self.calls: list[str] = []
        self.fail_capture = fail_capture

    def create_video_configuration(self, main: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append(f"config {main['size']} {main['format']}")
        return {"main": dict(main)}

    def configure(self, config: Mapping[str, Any]) -> None:
        self.size = config["main"]["size"]
        self.calls.append("configure")

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, stream: str) -> np.ndarray:
        if self.fail_capture:
            raise RuntimeError("camera frontend timeout")
        return solid(50, self.size)

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


def test_picamera2_camera_configures_reads_and_releases() -> None:
    made: list[FakePicamera2] = []

    def factory(number: int) -> FakePicamera2:
        made.append(FakePicamera2(number))
        return made[-1]

    camera = Picamera2Camera("camera", 1, width=320, height=240, factory=factory)
    with camera:
        frame = camera.read()
    assert frame.image.shape == (240, 320, 3)
    assert made[0].number == 1
    assert made[0].calls == ["config (320, 240) RGB888", "configure", "start", "stop", "close"]


def test_picamera2_camera_errors_name_the_device() -> None:
    camera = Picamera2Camera("camera", factory=lambda n: FakePicamera2(n, fail_capture=True))
    with camera, pytest.raises(FrameReadError, match="frontend timeout"):
        camera.read()

    def no_camera(number: int) -> FakePicamera2:
        raise IndexError("list index out of range")

    with pytest.raises(DeviceUnavailableError, match=r"\[devices.camera\] cannot open Rasp"):
        Picamera2Camera("camera", factory=no_camera).open()


def test_picamera2_missing_is_an_error_not_a_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as if not installed
    camera = Picamera2Camera("camera")
    with pytest.raises(DeviceUnavailableError) as caught:
        camera.open()
    assert PICAMERA2_MISSING in str(caught.value)
    assert not camera.is_open


def test_emulated_camera_draws_what_was_dealt() -> None:
    seen: list[Mapping[str, Sequence[str]]] = []

    def render(layout: Mapping[str, Sequence[str]]) -> np.ndarray:
        seen.append(layout)
        return solid(10 * sum(len(codes) for codes in layout.values()))

    camera = EmulatedLayoutCamera("camera", render, clock=ticking_clock())
    camera.deal("seat1", "QH")
    camera.deal("seat1", "7S")
    camera.deal("dealer", "KD")
    with camera:
        frame = camera.read()
        camera.clear("seat1")
        camera.read()
        camera.show({"banker": ["9C"]})
        camera.read()
        camera.clear()
        camera.read()
    assert seen == [{"seat1": ("QH", "7S"), "dealer": ("KD",)}, {"dealer": ("KD",)},
                    {"banker": ("9C",)}, {}]
    assert int(frame.image[0, 0, 0]) == 30
    assert camera.layout() == {}


def test_emulated_camera_reports_a_renderer_refusal() -> None:
    def render(layout: Mapping[str, Sequence[str]]) -> np.ndarray:
        raise ValueError("'XX' is not a card")

    with EmulatedLayoutCamera("camera", render) as camera, pytest.raises(
            FrameReadError, match=r"\[devices.camera\] emulated camera could not draw"):
        camera.read()


def test_sources_convert_grey_and_four_channel_images() -> None:
    grey = np.full((10, 12), 7, np.uint8)
    bgra = np.zeros((10, 12, 4), np.uint8)
    for image in (grey, bgra):
        with EmulatedLayoutCamera("camera", lambda layout, image=image: image) as camera:
            assert camera.read().image.shape == (10, 12, 3)
    floats = EmulatedLayoutCamera("camera", lambda layout: np.zeros((4, 4), np.float32))
    with floats, pytest.raises(FrameReadError, match="no usable image"):
        floats.read()


@pytest.mark.parametrize(("kind", "options", "expected"), [
    ("v4l2", {"device": 0, "width": 1280, "height": 720, "fps": 30}, OpenCVCamera),
    ("v4l2", {"device": "/dev/video0"}, OpenCVCamera),
    ("picamera2", {"camera": 0, "width": 1640, "height": 1232}, Picamera2Camera),
    ("file", {"path": "frame.jpg"}, FileCamera),
    ("folder", {"path": "frames", "loop": True, "pattern": "*.jpg"}, FolderCamera),
    ("video", {"path": "clip.mp4", "loop": True}, VideoFileCamera),
])
def test_build_camera_makes_each_kind(kind: str, options: dict[str, Any],
                                      expected: type) -> None:
    camera = build_camera("camera", kind, options)
    assert isinstance(camera, expected)
    assert not camera.is_open


def test_build_camera_emulated_needs_the_renderer() -> None:
    camera = build_camera("camera", "emulated", {"width": 800, "height": 600, "seed": 3},
                          render=lambda layout: solid(0))
    assert isinstance(camera, EmulatedLayoutCamera)
    assert camera.emulated
    with pytest.raises(DeviceConfigError, match="needs a layout renderer"):
        build_camera("camera", "emulated", {})
    with pytest.raises(DeviceConfigError, match="takes no renderer"):
        build_camera("camera", "file", {"path": "x.png"}, render=lambda layout: solid(0))


@pytest.mark.parametrize(("kind", "options", "key", "message"), [
    ("webcam", {}, "kind", "expected one of v4l2"),
    ("v4l2", {}, "device", "required for kind 'v4l2'"),
    ("v4l2", {"device": 0, "width": -5}, "width", "must be positive"),
    ("v4l2", {"device": 0, "width": True}, "width", "expected int"),
    ("v4l2", {"device": 1.5}, "device", "expected int or str"),
    ("file", {"path": "a.png", "loop": True}, "loop", "unknown key for kind 'file'"),
    ("folder", {"path": "d", "loop": "yes"}, "loop", "expected bool"),
    ("picamera2", {"camera": "front"}, "camera", "expected int"),
    ("v4l2", {"device": 0, "read_timeout_ms": 10}, "read_timeout_ms", "10 is out of range"),
    ("v4l2", {"device": 0, "flush_frames": 9}, "flush_frames", "9 is out of range 0..8"),
    ("file", {"path": "a.png", "flush_frames": 1}, "flush_frames", "unknown key"),
])
def test_build_camera_names_the_bad_key(kind: str, options: dict[str, Any], key: str,
                                        message: str) -> None:
    with pytest.raises(DeviceConfigError) as caught:
        build_camera("camera", kind, options)
    assert caught.value.key == key
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"[devices.camera] {key}: ")
    assert isinstance(caught.value, DriverError)


def test_emulated_render_options_are_validated() -> None:
    assert emulated_render_options("camera", {"width": 640, "height": 480, "card_width": 90,
                                              "background": "felt-blue", "seed": 5}) == {
        "size": (640, 480), "card_width": 90.0, "background": "felt-blue", "seed": 5}
    assert emulated_render_options("camera", {}) == {}
    with pytest.raises(DeviceConfigError, match="give both width and height"):
        emulated_render_options("camera", {"width": 640})
    with pytest.raises(DeviceConfigError, match="card_width: must be positive"):
        emulated_render_options("camera", {"card_width": 0})
    with pytest.raises(DeviceConfigError, match="unknown key"):
        build_camera("camera", "emulated", {"zoom": 2}, render=lambda layout: solid(0))


def test_kinds_list_matches_the_builders() -> None:
    assert set(CAMERA_KINDS) == {"v4l2", "picamera2", "file", "folder", "video", "emulated"}


def test_build_camera_takes_the_read_timeout_and_flush_settings() -> None:
    camera = build_camera("camera", "v4l2", {"device": 0, "read_timeout_ms": 500,
                                             "flush_frames": 3})
    assert isinstance(camera, OpenCVCamera)
    assert (camera.read_timeout, camera.flush_frames) == (0.5, 3)
    assert build_camera("camera", "picamera2", {}).read_timeout == 2.0  # a camera's default


ASKED_AT = 10
"""The time a read is asked for, in the stand-in camera's clock."""


class QueuedCapture:
    """A V4L2 capture holding one frame it took at time 1 and queued since; a grab or read
    takes the oldest queued frame, or waits for the next one. A frame's value is its time."""

    def __init__(self, *target: object) -> None:
        self.now = ASKED_AT
        self.queue = [1]
        self.settings: dict[int, float] = {}

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop: int, value: float) -> bool:
        self.settings[prop] = value
        return True

    def _next(self) -> int:
        if self.queue:
            return self.queue.pop(0)
        self.now += 1
        return self.now

    def grab(self) -> bool:
        self._next()
        return True

    def read(self) -> tuple[bool, np.ndarray]:
        return True, solid(self._next())

    def release(self) -> None:
        """Nothing to release."""


def test_a_v4l2_read_discards_the_frames_queued_since_the_last_read() -> None:
    made: list[QueuedCapture] = []

    def capture(*target: object) -> QueuedCapture:
        made.append(QueuedCapture(*target))
        return made[-1]

    for flush, stale in ((1, False), (0, True)):
        camera = OpenCVCamera("camera", 0, capture_factory=capture, flush_frames=flush)
        with camera:
            taken = int(camera.read().image[0, 0, 0])
        assert made[-1].settings[cv2.CAP_PROP_BUFFERSIZE] == 1  # one buffer: one stale frame
        assert (taken < ASKED_AT) is stale, f"flush_frames={flush}: frame taken at {taken}"


def test_a_blocked_read_times_out_and_the_camera_reopens_once_it_returns(image_file: Path) -> None:
    release = threading.Event()
    camera = FileCamera("camera", image_file, read_timeout=0.2)
    real_grab = camera._grab
    camera._grab = lambda: (release.wait(), real_grab())[1]  # type: ignore[method-assign]
    camera.open()
    with pytest.raises(FrameReadError, match=r"gave no frame within 0\.2 s \(blocked\)"):
        camera.read()
    camera.close()  # never waits for the blocked read
    with pytest.raises(DeviceUnavailableError, match="still blocked in a read"):
        camera.open()
    release.set()  # the stuck read returns; the camera is released after it
    camera._grab = real_grab  # type: ignore[method-assign]
    deadline = time.monotonic() + 10
    while True:
        try:
            camera.open()
            break
        except DeviceUnavailableError:
            assert time.monotonic() < deadline, "the camera never reopened"
            time.sleep(0.01)
    assert camera.read().number == 1
    camera.close()
