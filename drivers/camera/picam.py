"""`picamera2`: a Raspberry Pi CSI camera, picamera2 imported only when it opens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from drivers.camera.options import CameraOptions, refuse_render
from drivers.camera.source import (
    CAMERA_READ_TIMEOUT,
    CameraSource,
    FrameReadError,
    Image,
    Render,
    _Source,
)
from drivers.errors import DeviceUnavailableError
from firmware_bridge.clock import Clock

PICAMERA2_MISSING: Final = (
    "picamera2 is not installed: on Raspberry Pi OS run `apt install python3-picamera2` and "
    "create the venv with --system-site-packages (there is no fallback to another camera kind)")


class Picamera2Camera(_Source):
    """A Raspberry Pi camera module through picamera2 (libcamera).

    picamera2 is imported when the camera opens; if it is not installed, `open()` fails with
    `DeviceUnavailableError` saying how to install it.

    Args:
        name: Device name for messages.
        camera: Camera number (0 for the first CSI camera).
        width: CapturedFrame width.
        height: CapturedFrame height.
        clock: Timestamp source (monotonic seconds).
        factory: Builds the `Picamera2` object from the camera number (tests inject a fake;
            None imports picamera2).
        read_timeout: Seconds a read may take before it fails (the camera is blocked).
    """

    def __init__(self, name: str, camera: int = 0, *, width: int = 1280, height: int = 960,
                 clock: Clock | None = None, factory: Callable[[int], Any] | None = None,
                 read_timeout: float = CAMERA_READ_TIMEOUT) -> None:
        super().__init__(name, clock, read_timeout)
        self.camera = camera
        self.size = (width, height)
        self._factory = factory
        self._device: Any = None

    def _acquire(self) -> None:
        factory = self._factory or _import_picamera2(self._name)
        try:
            device = factory(self.camera)
            # "RGB888" is stored blue-green-red per pixel: OpenCV's BGR order.
            config = device.create_video_configuration(
                main={"size": self.size, "format": "RGB888"})
            device.configure(config)
            device.start()
        except (RuntimeError, OSError, IndexError, ValueError) as error:
            raise DeviceUnavailableError(
                self._name, f"cannot open Raspberry Pi camera {self.camera}: {error}") from None
        self._device = device

    def _release(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            try:
                device.stop()
            finally:
                device.close()

    def _grab(self) -> Image:
        try:
            image = self._device.capture_array("main")
        except (RuntimeError, OSError) as error:
            raise FrameReadError(self._name, f"Raspberry Pi camera {self.camera}: {error}"
                                 ) from None
        return np.asarray(image)


def _import_picamera2(name: str) -> Callable[[int], Any]:
    try:
        from picamera2 import Picamera2
    except ImportError:
        raise DeviceUnavailableError(name, PICAMERA2_MISSING) from None
    factory: Callable[[int], Any] = Picamera2
    return factory


def build_picamera2(options: CameraOptions, render: Render | None,
                 clock: Clock | None) -> CameraSource:
    """Build a `picamera2` camera from its section."""
    refuse_render(options, render)
    return Picamera2Camera(options.name, options.get("camera", (int,), 0),
                           width=options.positive("width", 1280) or 1280,
                           height=options.positive("height", 960) or 960, clock=clock,
                           read_timeout=options.read_timeout(CAMERA_READ_TIMEOUT))
