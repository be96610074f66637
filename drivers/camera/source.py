"""What every camera source shares: its contract, frame, errors and life cycle.

`CameraSource` is the contract, `CapturedFrame` a frame; `_Source` runs the life cycle every
kind shares, each read on a thread of its own under the read timeout.
"""

from __future__ import annotations

import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from drivers.device import Device
from drivers.errors import DeviceClosedError, DeviceUnavailableError, DriverError
from firmware_bridge.clock import Clock

Image = npt.NDArray[np.uint8]


Render = Callable[[Mapping[str, Sequence[str]]], Image]
"""Draws the layout: position name -> the card codes there, in the order dealt."""


CAMERA_READ_TIMEOUT: Final = 2.0
"""Seconds a camera (`v4l2`, `picamera2`) may take for one frame before the read fails."""


FILE_READ_TIMEOUT: Final = 30.0
"""The same for sources that read files or draw frames (a slow disk, a busy processor)."""


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
