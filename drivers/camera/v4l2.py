"""`v4l2`: a USB (UVC) camera through OpenCV's V4L2 backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from drivers.camera.options import CameraOptions, refuse_render
from drivers.camera.source import (
    CAMERA_READ_TIMEOUT,
    CameraSource,
    FrameReadError,
    Image,
    Render,
    _CaptureSource,
    _cv2,
)
from firmware_bridge.clock import Clock

MAX_FLUSH_FRAMES: Final = 8


class OpenCVCamera(_CaptureSource):
    """A USB (UVC) camera through OpenCV's V4L2 backend.

    Args:
        name: Device name for messages.
        device: Camera index (0 for /dev/video0) or device path ("/dev/video0",
            "/dev/v4l/by-id/...").
        width: Requested frame width (None: the camera's default).
        height: Requested frame height.
        fps: Requested frame rate.
        clock: Timestamp source (monotonic seconds).
        backend: OpenCV capture API (the V4L2 backend by default).
        read_timeout: Seconds a read may take before it fails (the camera is blocked).
        flush_frames: Frames discarded before each read: what the camera queued since the
            last read (one: it keeps one buffer), so the frame read is taken after the read
            was asked for.
        capture_factory: Makes the `VideoCapture` (tests pass a stand-in).
    """

    def __init__(self, name: str, device: int | str, *, width: int | None = None,  # noqa: PLR0913 - the camera's settings
                 height: int | None = None, fps: float | None = None,
                 clock: Clock | None = None, backend: int | None = None,
                 read_timeout: float = CAMERA_READ_TIMEOUT, flush_frames: int = 1,
                 capture_factory: Callable[..., Any] | None = None) -> None:
        super().__init__(name, clock, read_timeout, capture_factory)
        self.device = device
        self.size = (width, height)
        self.fps = fps
        self.flush_frames = flush_frames
        self._backend = backend

    def _acquire(self) -> None:
        cv2 = _cv2()
        backend = cv2.CAP_V4L2 if self._backend is None else self._backend
        capture = self._open_capture(f"cannot open camera {self.device!r} (V4L2): no such "
                                     "device, or it is busy", self.device, backend)
        for prop, value in ((cv2.CAP_PROP_FRAME_WIDTH, self.size[0]),
                            (cv2.CAP_PROP_FRAME_HEIGHT, self.size[1]),
                            (cv2.CAP_PROP_FPS, self.fps), (cv2.CAP_PROP_BUFFERSIZE, 1)):
            if value is not None:
                capture.set(prop, float(value))

    def _grab(self) -> Image:
        for _ in range(self.flush_frames):  # V4L2 hands out queued, older frames first
            if not self._capture.grab():
                break
        image = self._next_image()
        if image is None:
            raise FrameReadError(self._name, f"camera {self.device!r} returned no frame "
                                 "(unplugged or stalled?)")
        return image


def build_v4l2(options: CameraOptions, render: Render | None,
                 clock: Clock | None) -> CameraSource:
    """Build a `v4l2` camera from its section."""
    refuse_render(options, render)
    device = options.get("device", (int, str))
    fps = options.get("fps", (int, float), None)
    flush = options.integer("flush_frames", 1, minimum=0, maximum=MAX_FLUSH_FRAMES)
    return OpenCVCamera(options.name, device, width=options.positive("width"),
                        height=options.positive("height"), fps=fps, clock=clock,
                        read_timeout=options.read_timeout(CAMERA_READ_TIMEOUT),
                        flush_frames=flush)
