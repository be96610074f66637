"""`file`, `folder`, `video`: recorded frames, stand-ins for a camera (EMULATED)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import numpy as np

from drivers.camera.options import CameraOptions, refuse_render
from drivers.camera.source import (
    FILE_READ_TIMEOUT,
    CameraSource,
    EndOfFramesError,
    FrameReadError,
    Image,
    Render,
    _CaptureSource,
    _cv2,
    _Source,
)
from drivers.errors import DeviceClosedError, DeviceUnavailableError, DriverError
from firmware_bridge.clock import Clock

IMAGE_SUFFIXES: Final = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})


def _read_image_file(name: str, path: Path,
                     error: type[DriverError] = FrameReadError) -> Image:
    """Decode one image file; a file that cannot be read or decoded raises `error`."""
    cv2 = _cv2()
    try:
        data = np.fromfile(path, np.uint8)
    except OSError as cause:
        raise error(name, f"{path}: cannot read ({cause.strerror or cause})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise error(name, f"{path}: not a readable image")
    return np.asarray(image, np.uint8)


class _RecordedSource(_Source):
    """A source of recorded frames: a stand-in for a camera, so EMULATED in status lines."""

    @property
    def emulated(self) -> bool:
        """True: the frames were recorded, not captured now."""
        return True


class FileCamera(_RecordedSource):
    """One still image, returned (as a fresh copy) on every read.

    Args:
        name: Device name for messages.
        path: The image file.
        clock: Timestamp source.
        read_timeout: Seconds a read may take.
    """

    def __init__(self, name: str, path: Path | str, *, clock: Clock | None = None,
                 read_timeout: float = FILE_READ_TIMEOUT) -> None:
        super().__init__(name, clock, read_timeout)
        self.path = Path(path)
        self._image: Image | None = None

    def _acquire(self) -> None:
        if not self.path.is_file():
            raise DeviceUnavailableError(self._name, f"{self.path}: no such image file")
        self._image = _read_image_file(self._name, self.path, DeviceUnavailableError)

    def _release(self) -> None:
        self._image = None

    def _grab(self) -> Image:
        if self._image is None:
            raise DeviceClosedError(self._name, "camera is not open")
        return self._image.copy()


class FolderCamera(_RecordedSource):
    """The images of a folder, one per read, in file-name order.

    Args:
        name: Device name for messages.
        folder: The folder.
        pattern: Glob pattern of the files to use (images by suffix only).
        loop: Start again after the last image (otherwise `EndOfFramesError`).
        clock: Timestamp source.
        read_timeout: Seconds a read may take.
    """

    def __init__(self, name: str, folder: Path | str, *, pattern: str = "*",
                 loop: bool = False, clock: Clock | None = None,
                 read_timeout: float = FILE_READ_TIMEOUT) -> None:
        super().__init__(name, clock, read_timeout)
        self.folder = Path(folder)
        self.pattern = pattern
        self.loop = loop
        self.files: list[Path] = []
        self._next = 0

    def _acquire(self) -> None:
        if not self.folder.is_dir():
            raise DeviceUnavailableError(self._name, f"{self.folder}: no such folder")
        self.files = sorted(p for p in self.folder.glob(self.pattern)
                            if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise DeviceUnavailableError(self._name, f"{self.folder}: no images match "
                                         f"{self.pattern!r}")
        self._next = 0

    def _release(self) -> None:
        self.files = []

    def _grab(self) -> Image:
        if self._next >= len(self.files):
            if not self.loop:
                raise EndOfFramesError(self._name, f"{self.folder}: no more images "
                                       f"(all {len(self.files)} read)")
            self._next = 0
        path = self.files[self._next]
        self._next += 1
        return _read_image_file(self._name, path)


class VideoFileCamera(_CaptureSource):
    """The frames of a video file (any format OpenCV's FFmpeg backend reads).

    Recorded frames: a stand-in for a camera, so EMULATED in status lines.

    Args:
        name: Device name for messages.
        path: The video file.
        loop: Start again after the last frame (otherwise `EndOfFramesError`).
        clock: Timestamp source.
        read_timeout: Seconds a read may take.
    """

    def __init__(self, name: str, path: Path | str, *, loop: bool = False,
                 clock: Clock | None = None, read_timeout: float = FILE_READ_TIMEOUT) -> None:
        super().__init__(name, clock, read_timeout)
        self.path = Path(path)
        self.loop = loop

    def _acquire(self) -> None:
        if not self.path.is_file():
            raise DeviceUnavailableError(self._name, f"{self.path}: no such video file")
        self._open_capture(f"{self.path}: not a readable video", str(self.path))

    @property
    def emulated(self) -> bool:
        """True: the frames were recorded, not captured now."""
        return True

    def _grab(self) -> Image:
        image = self._next_image()
        if image is None and self.loop:
            self._capture.set(_cv2().CAP_PROP_POS_FRAMES, 0)
            image = self._next_image()
        if image is None:
            raise EndOfFramesError(self._name, f"{self.path}: no more frames")
        return image


def _path(options: CameraOptions) -> str:
    """`path`, a relative one read from the table file's folder."""
    return options.resolve(options.get("path", str))


def build_file(options: CameraOptions, render: Render | None,
                 clock: Clock | None) -> CameraSource:
    """Build a `file` source from its section."""
    refuse_render(options, render)
    return FileCamera(options.name, _path(options), clock=clock,
                      read_timeout=options.read_timeout(FILE_READ_TIMEOUT))


def build_folder(options: CameraOptions, render: Render | None,
                 clock: Clock | None) -> CameraSource:
    """Build a `folder` source from its section."""
    refuse_render(options, render)
    return FolderCamera(options.name, _path(options),
                        pattern=options.get("pattern", (str,), "*"),
                        loop=options.get("loop", (bool,), False), clock=clock,
                        read_timeout=options.read_timeout(FILE_READ_TIMEOUT))


def build_video(options: CameraOptions, render: Render | None,
                 clock: Clock | None) -> CameraSource:
    """Build a `video` source from its section."""
    refuse_render(options, render)
    return VideoFileCamera(options.name, _path(options),
                           loop=options.get("loop", (bool,), False), clock=clock,
                           read_timeout=options.read_timeout(FILE_READ_TIMEOUT))
