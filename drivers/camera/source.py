"""Camera sources: frames of the table layout for the card-recognition cross-check.

Every source satisfies `CameraSource` (and the common `Device` life cycle): `open()` and
`close()` are idempotent, `read()` returns a `CapturedFrame` (BGR pixels, a monotonic timestamp and
a running number) or raises a `DriverError` naming the device. A read never blocks for longer
than the source's read timeout (`read_timeout_ms`): the camera is read on a thread of its
own, and a read it does not finish in time raises `FrameReadError` (the cross-check then
applies `[vision] on_camera_down`); the camera stays closed until the blocked read returns.
Kinds, as configured in `[devices.camera]`:

* `v4l2` (`OpenCVCamera`): a USB/UVC camera through OpenCV's V4L2 backend, by index or path;
  it keeps one frame buffered and discards `flush_frames` frames before each read, so a read
  returns a frame taken after it was asked for, never one queued since the last read;
* `picamera2` (`Picamera2Camera`): a Raspberry Pi CSI camera; picamera2 is imported only when
  the camera opens, and a missing picamera2 is an error, never a fallback to another kind;
* `file` (`FileCamera`): one still image, returned on every read;
* `folder` (`FolderCamera`): the images of a folder in name order;
* `video` (`VideoFileCamera`): the frames of a video file;
* `emulated` (`EmulatedLayoutCamera`): frames drawn from the cards currently dealt onto each
  layout position, by a `render` callable injected by the composition root (drivers do not
  import `vision`; `vision.build.synth.LayoutRenderer` is the renderer).

`file`, `folder` and `video` replay recorded frames: like `emulated` they stand in for a
camera, so they need `--allow-emulated` and every status line calls them EMULATED.

`build_camera` validates a section's options and builds the source; `CAMERA_KINDS` lists the
kinds for the device registry.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from confkeys import DevicePhrases, Section
from drivers.device import Device
from drivers.errors import DeviceClosedError, DeviceConfigError, DeviceUnavailableError, DriverError
from firmware_bridge.clock import Clock

_LOG = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]
Render = Callable[[Mapping[str, Sequence[str]]], Image]
"""Draws the layout: position name -> the card codes there, in the order dealt."""

CAMERA_KINDS: Final = ("v4l2", "picamera2", "file", "folder", "video", "emulated")
IMAGE_SUFFIXES: Final = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})
CAMERA_READ_TIMEOUT: Final = 2.0
"""Seconds a camera (`v4l2`, `picamera2`) may take for one frame before the read fails."""
FILE_READ_TIMEOUT: Final = 30.0
"""The same for sources that read files or draw frames (a slow disk, a busy processor)."""
MAX_FLUSH_FRAMES: Final = 8


class FrameReadError(DriverError, OSError):
    """A frame could not be read from an open camera (the message names device and cause)."""


class EndOfFramesError(FrameReadError, EOFError):
    """A folder or video source has no more frames (and was not asked to loop)."""


@dataclass(frozen=True, slots=True)
class CapturedFrame:
    """One captured frame.

    Attributes:
        image: BGR pixels (height x width x 3, uint8).
        timestamp: The camera clock (monotonic seconds) when the frame was taken.
        number: Frames read since the source was opened, from 1.
    """

    image: Image
    timestamp: float
    number: int


@runtime_checkable
class CameraSource(Device, Protocol):
    """A source of frames (and a `Device`).

    As a `Device`: `start()` is `open()`, `link_up` is `is_open`, `emulated` is true only for
    the emulated layout camera, and `close()` releases the camera (nothing happens if it is
    closed).
    """

    @property
    def is_open(self) -> bool:
        """True between `open()` and `close()`."""

    def open(self) -> None:
        """Open the camera (nothing happens if it is open).

        Raises:
            DeviceUnavailableError: The camera, file or library is not there.
        """

    def read(self) -> CapturedFrame:
        """Take one frame.

        Raises:
            DeviceClosedError: The source is not open.
            FrameReadError: The camera or file gave no frame.
        """


class _Grabber:
    """Takes images on a thread of its own, so that a camera that blocks cannot block its reader.

    A grab that does not finish in time is abandoned by its reader (it may still finish
    later); until it does, no other grab starts.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._busy = False
        self._after: list[Callable[[], None]] = []
        self._thread = threading.Thread(target=self._run, name=f"camera-grab {name}",
                                        daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """True while a grab is running (or blocked)."""
        with self._lock:
            return self._busy

    def grab(self, take: Callable[[], Image], timeout: float) -> Image:
        """Run `take` on the grabbing thread; its image, or its error.

        Raises:
            FrameReadError: `take` did not finish within `timeout` seconds, or an earlier
                grab is still blocked.
        """
        done = threading.Event()
        result: list[Image | BaseException] = []

        def job() -> None:
            try:
                result.append(take())
            except BaseException as error:  # noqa: BLE001 - handed to the reader as is
                result.append(error)
            done.set()

        with self._lock:
            if self._busy:
                raise FrameReadError(self._name, "the camera is still blocked in an earlier "
                                     "read")
            self._busy = True
        self._jobs.put(job)
        if not done.wait(timeout):
            raise FrameReadError(self._name, f"the camera gave no frame within {timeout:g} s "
                                 "(blocked)")
        (outcome,) = result
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def after_grab(self, action: Callable[[], None]) -> bool:
        """Run `action` once the running grab ends; False (nothing kept) if none runs."""
        with self._lock:
            if not self._busy:
                return False
            self._after.append(action)
            return True

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            job()
            with self._lock:
                self._busy = False
                after, self._after = self._after, []
            for action in after:
                action()


class _Source(ABC):
    """Life cycle, frame numbering and the read timeout shared by every source."""

    def __init__(self, name: str, clock: Clock | None,
                 read_timeout: float = FILE_READ_TIMEOUT) -> None:
        self._name = name
        self._clock = clock or time.monotonic
        self._open = False
        self._count = 0
        self._lock = threading.Lock()
        self.read_timeout = read_timeout
        self._grabber: _Grabber | None = None

    @property
    def name(self) -> str:
        """The configured device name."""
        return self._name

    @property
    def emulated(self) -> bool:
        """False: this source is real (a camera or recorded frames)."""
        return False

    @property
    def is_open(self) -> bool:
        """True between `open()` and `close()`."""
        return self._open

    @property
    def link_up(self) -> bool:
        """True while open."""
        return self._open

    def start(self) -> None:
        """Same as `open()`."""
        self.open()

    def open(self) -> None:
        """Open the source (idempotent).

        Raises:
            DeviceUnavailableError: The camera is not there, or an earlier read is still
                blocked in it.
        """
        with self._lock:
            if self._open:
                return
            if self._grabber is not None and self._grabber.busy:
                raise DeviceUnavailableError(self._name, "the camera is still blocked in a "
                                             "read; it opens again once that read returns")
            self._acquire()
            self._open = True
            self._count = 0

    def close(self) -> None:
        """Release the source (idempotent; after a blocked read, once that read returns)."""
        with self._lock:
            if not self._open:
                return
            self._open = False
            if self._grabber is None or not self._grabber.after_grab(self._release_later):
                self._release()

    def read(self) -> CapturedFrame:
        """Take the next frame, waiting at most `read_timeout` seconds for it.

        Raises:
            DeviceClosedError: The source is not open.
            FrameReadError: No frame came in time, or the camera gave none.
        """
        with self._lock:
            if not self._open:
                raise DeviceClosedError(self._name, "camera is not open")
            if self._grabber is None:
                self._grabber = _Grabber(self._name)
            grabber = self._grabber
        image = grabber.grab(self._grab, self.read_timeout)
        with self._lock:
            self._count += 1
            return CapturedFrame(_checked(self._name, image), self._clock(), self._count)

    def _release_later(self) -> None:
        with self._lock:
            if not self._open:
                self._release()

    @abstractmethod
    def _acquire(self) -> None:
        """Open the underlying device (called once per open, under the lock)."""

    @abstractmethod
    def _release(self) -> None:
        """Release the underlying device (called once per close, under the lock)."""

    @abstractmethod
    def _grab(self) -> Image:
        """Take one image (called under the lock while open)."""

    def __enter__(self) -> _Source:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _checked(name: str, image: object) -> Image:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise FrameReadError(name, f"camera gave no usable image ({type(image).__name__})")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    if image.shape[2] == 4:
        image = np.ascontiguousarray(image[:, :, :3])
    if image.shape[2] != 3 or image.shape[0] == 0 or image.shape[1] == 0:
        raise FrameReadError(name, f"camera gave an image of shape {image.shape}")
    return image


def _cv2() -> Any:
    import cv2

    return cv2


class _CaptureSource(_Source):
    """A source read through an OpenCV `VideoCapture` (a camera or a video file)."""

    def __init__(self, name: str, clock: Clock | None, read_timeout: float,
                 capture_factory: Callable[..., Any] | None = None) -> None:
        super().__init__(name, clock, read_timeout)
        self._capture: Any = None
        self._capture_factory = capture_factory

    def _open_capture(self, unavailable: str, *target: object) -> Any:
        """Open `VideoCapture(*target)`, or raise `DeviceUnavailableError(unavailable)`."""
        capture = (self._capture_factory or _cv2().VideoCapture)(*target)
        if not capture.isOpened():
            capture.release()
            raise DeviceUnavailableError(self._name, unavailable)
        self._capture = capture
        return capture

    def _release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    def _next_image(self) -> Image | None:
        """The capture's next image; None when it gave none."""
        ok, image = self._capture.read()
        return np.asarray(image, np.uint8) if ok and image is not None else None


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


class EmulatedLayoutCamera(_Source):
    """An overhead camera over an emulated layout: it shows the cards dealt so far.

    The controller's emulation (or a test) tells it what lies where with `deal`, `clear`
    or `show`; each read draws the current layout with the injected `render`.

    Args:
        name: Device name for messages.
        render: Draws a frame from {position: [codes in the order dealt]}.
        clock: Timestamp source.
    """

    def __init__(self, name: str, render: Render, *, clock: Clock | None = None,
                 read_timeout: float = FILE_READ_TIMEOUT) -> None:
        super().__init__(name, clock, read_timeout)
        self._render = render
        self._layout: dict[str, list[str]] = {}

    @property
    def emulated(self) -> bool:
        """True: frames are drawn, not captured."""
        return True

    def deal(self, position: str, code: str) -> None:
        """Put card `code` on `position` (after the cards already there)."""
        with self._lock:
            self._layout.setdefault(position, []).append(code)

    def clear(self, position: str | None = None) -> None:
        """Take the cards off one position, or off the whole layout."""
        with self._lock:
            if position is None:
                self._layout.clear()
            else:
                self._layout.pop(position, None)

    def show(self, layout: Mapping[str, Sequence[str]]) -> None:
        """Replace the whole layout."""
        with self._lock:
            self._layout = {position: list(codes) for position, codes in layout.items()}

    def layout(self) -> dict[str, list[str]]:
        """What lies where now (a copy)."""
        with self._lock:
            return {position: list(codes) for position, codes in self._layout.items()}

    def _acquire(self) -> None:
        _LOG.warning("%s: EMULATED camera (frames are drawn, not captured)", self._name)

    def _release(self) -> None:
        """Nothing to release."""

    def _grab(self) -> Image:
        with self._lock:
            snapshot = {position: tuple(codes) for position, codes in self._layout.items()}
        try:
            return self._render(snapshot)
        except (ValueError, KeyError, TypeError) as error:
            raise FrameReadError(self._name, f"emulated camera could not draw the layout: "
                                 f"{error}") from None


def build_camera(name: str, kind: str, options: Mapping[str, Any], *,
                 render: Render | None = None, clock: Clock | None = None) -> CameraSource:
    """Validate a `[devices.camera]` section's options and build its source (not opened).

    Args:
        name: The section name (for messages).
        kind: One of `CAMERA_KINDS`.
        options: The section's keys other than `kind`.
        render: The layout renderer; required for the emulated kind, refused otherwise.
        clock: Timestamp source (monotonic seconds by default).

    Raises:
        DeviceConfigError: Unknown kind, unknown or missing key, or a value of the wrong type,
            naming the key.
    """
    if kind not in CAMERA_KINDS:
        raise DeviceConfigError(name, "kind",
                                f"{kind!r}: expected one of {', '.join(CAMERA_KINDS)}")
    reader = _Options(name, kind, options)
    source = _BUILDERS[kind](reader, render, clock)
    reader.finish()
    return source


class CameraPhrases(DevicePhrases):
    """The camera section's wording: Python type names, and the kind named."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def expected(self, kinds: Sequence[type]) -> str:
        """`int or str`."""
        return " or ".join(kind.__name__ for kind in kinds)

    def wrong_type(self, kinds: Sequence[type], value: object) -> str:
        """The value quoted."""
        return f"expected {self.expected(kinds)}, got {value!r}"

    def missing(self) -> str:
        """A key this kind needs."""
        return f"required for kind {self.kind!r}"

    def unknown_key(self, known: Sequence[str]) -> str:
        """A key this kind does not take."""
        return f"unknown key for kind {self.kind!r}"


class _Options(Section):
    """A camera section's keys (other than `kind`), read for one camera kind."""

    def __init__(self, name: str, kind: str, options: Mapping[str, Any]) -> None:
        super().__init__(name, options, phrases=CameraPhrases(kind), error=DeviceConfigError)
        self.kind = kind

    def read_timeout(self, default: float) -> float:
        """`read_timeout_ms` in seconds (50 ms to 60 s), or `default`."""
        if not self.has("read_timeout_ms"):
            self.raw("read_timeout_ms")
            return default
        return float(self.integer("read_timeout_ms", minimum=50, maximum=60_000)) / 1000

    def positive(self, key: str, default: int | None = None) -> int | None:
        """A positive integer, or `default` when absent."""
        value: int | None = self.get(key, int, default)
        if value is not None and value <= 0:
            raise self.error(key, f"must be positive, got {value}")
        return value


def _v4l2(options: _Options, render: Render | None, clock: Clock | None) -> CameraSource:
    _no_render(options, render)
    device = options.get("device", (int, str))
    fps = options.get("fps", (int, float), None)
    flush = options.integer("flush_frames", 1, minimum=0, maximum=MAX_FLUSH_FRAMES)
    return OpenCVCamera(options.name, device, width=options.positive("width"),
                        height=options.positive("height"), fps=fps, clock=clock,
                        read_timeout=options.read_timeout(CAMERA_READ_TIMEOUT),
                        flush_frames=flush)


def _picamera2(options: _Options, render: Render | None, clock: Clock | None) -> CameraSource:
    _no_render(options, render)
    return Picamera2Camera(options.name, options.get("camera", (int,), 0),
                           width=options.positive("width", 1280) or 1280,
                           height=options.positive("height", 960) or 960, clock=clock,
                           read_timeout=options.read_timeout(CAMERA_READ_TIMEOUT))


def _file(options: _Options, render: Render | None, clock: Clock | None) -> CameraSource:
    _no_render(options, render)
    return FileCamera(options.name, options.get("path", str), clock=clock,
                      read_timeout=options.read_timeout(FILE_READ_TIMEOUT))


def _folder(options: _Options, render: Render | None, clock: Clock | None) -> CameraSource:
    _no_render(options, render)
    return FolderCamera(options.name, options.get("path", str),
                        pattern=options.get("pattern", (str,), "*"),
                        loop=options.get("loop", (bool,), False), clock=clock,
                        read_timeout=options.read_timeout(FILE_READ_TIMEOUT))


def _video(options: _Options, render: Render | None, clock: Clock | None) -> CameraSource:
    _no_render(options, render)
    return VideoFileCamera(options.name, options.get("path", str),
                           loop=options.get("loop", (bool,), False), clock=clock,
                           read_timeout=options.read_timeout(FILE_READ_TIMEOUT))


EMULATED_RENDER_KEYS: Final = ("width", "height", "card_width", "background", "seed")
"""Keys of an emulated camera section that configure its renderer (the composition root
passes them to `vision.build.synth.LayoutRenderer`; see `emulated_render_options`)."""


def _emulated(options: _Options, render: Render | None, clock: Clock | None) -> CameraSource:
    emulated_render_options(options.name, {key: options.raw(key)
                                           for key in EMULATED_RENDER_KEYS if options.has(key)})
    if render is None:
        raise DeviceConfigError(options.name, "kind", "the emulated camera needs a layout renderer "
                          "from the composition root (vision.build.synth.LayoutRenderer)")
    return EmulatedLayoutCamera(options.name, render, clock=clock,
                                read_timeout=options.read_timeout(FILE_READ_TIMEOUT))


def emulated_render_options(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The renderer settings of an emulated camera section, validated.

    Returns:
        Keyword arguments for `vision.build.synth.LayoutRenderer`: `size`, `card_width`,
        `background`, `seed` (only those present in the section).

    Raises:
        DeviceConfigError: A value of the wrong type or range, naming the key.
    """
    reader = _Options(name, "emulated", options)
    found: dict[str, Any] = {}
    width, height = reader.positive("width"), reader.positive("height")
    if (width is None) != (height is None):
        raise DeviceConfigError(name, "width" if width is None else "height",
                          "give both width and height, or neither")
    if width is not None:
        found["size"] = (width, height)
    card_width = reader.get("card_width", (int, float), None)
    if card_width is not None:
        if card_width <= 0:
            raise DeviceConfigError(name, "card_width", f"must be positive, got {card_width}")
        found["card_width"] = float(card_width)
    for key, types in (("background", (str,)), ("seed", (int,))):
        value = reader.get(key, types, None)
        if value is not None:
            found[key] = value
    return found


def _no_render(options: _Options, render: Render | None) -> None:
    if render is not None:
        raise DeviceConfigError(options.name, "kind", f"kind {options.kind!r} takes no renderer")


_BUILDERS: Final[dict[str, Callable[[_Options, Render | None, Clock | None], CameraSource]]] = {
    "v4l2": _v4l2, "picamera2": _picamera2, "file": _file, "folder": _folder,
    "video": _video, "emulated": _emulated,
}
