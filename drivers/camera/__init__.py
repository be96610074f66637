"""Camera sources: frames of the table layout for the card-recognition cross-check.

Every source satisfies `CameraSource` (and the common `Device` life cycle): `open()` and
`close()` are idempotent, `read()` returns a `CapturedFrame` (BGR pixels, a monotonic timestamp
and a running number) or raises a `DriverError` naming the device. A read never blocks for
longer than the source's read timeout (`read_timeout_ms`): the camera is read on a thread of
its own, and a read it does not finish in time raises `FrameReadError` (the cross-check then
applies `[vision] on_camera_down`); the camera stays closed until the blocked read returns.
Kinds, as configured in `[devices.camera]`, one module each:

* `v4l2` (`OpenCVCamera`): a USB/UVC camera through OpenCV's V4L2 backend, by index or path;
  it keeps one frame buffered and discards `flush_frames` frames before each read, so a read
  returns a frame taken after it was asked for, never one queued since the last read;
* `picamera2` (`Picamera2Camera`, module `picam`): a Raspberry Pi CSI camera; picamera2 is
  imported only when the camera opens, and a missing picamera2 is an error, never a fallback
  to another kind;
* `file` (`FileCamera`), `folder` (`FolderCamera`), `video` (`VideoFileCamera`), module
  `recorded`: one still image, the images of a folder in name order, the frames of a video;
* `emulated` (`EmulatedLayoutCamera`): frames drawn from the cards currently dealt onto each
  layout position, by a `render` callable injected by the composition root (drivers do not
  import `vision`; `vision.build.synth.LayoutRenderer` is the renderer).

`file`, `folder` and `video` replay recorded frames: like `emulated` they stand in for a
camera, so they need `--allow-emulated` and every status line calls them EMULATED.

`source` holds the contract and the life cycle every kind shares; each kind's module holds
its keys' schema beside its class; `build.build_camera` validates a section's options and
builds the source; `CAMERA_KINDS` lists the kinds for the device registry.
"""

from drivers.camera.build import CAMERA_KINDS, build_camera
from drivers.camera.emulated import (
    EMULATED_RENDER_KEYS,
    EmulatedLayoutCamera,
    emulated_render_options,
)
from drivers.camera.options import CameraPhrases
from drivers.camera.picam import PICAMERA2_MISSING, Picamera2Camera
from drivers.camera.recorded import IMAGE_SUFFIXES, FileCamera, FolderCamera, VideoFileCamera
from drivers.camera.source import (
    CAMERA_READ_TIMEOUT,
    FILE_READ_TIMEOUT,
    CameraSource,
    CapturedFrame,
    EndOfFramesError,
    FrameReadError,
    Image,
    Render,
)
from drivers.camera.v4l2 import MAX_FLUSH_FRAMES, OpenCVCamera

__all__ = ["CAMERA_KINDS", "CAMERA_READ_TIMEOUT", "EMULATED_RENDER_KEYS", "FILE_READ_TIMEOUT",
           "IMAGE_SUFFIXES", "MAX_FLUSH_FRAMES", "PICAMERA2_MISSING", "CameraPhrases",
           "CameraSource", "CapturedFrame", "EmulatedLayoutCamera", "EndOfFramesError",
           "FileCamera", "FolderCamera", "FrameReadError", "Image", "OpenCVCamera",
           "Picamera2Camera", "Render", "VideoFileCamera", "build_camera",
           "emulated_render_options"]
