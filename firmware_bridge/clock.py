"""Time for the bridge: an injectable monotonic clock.

Everything in the bridge that needs the time takes a `Clock` (a function returning seconds
on a monotonic scale) instead of reading `time` itself, so tests and emulators can drive
timers by hand and never sleep.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

Clock = Callable[[], float]
"""Returns the current time in seconds on a monotonic scale."""

monotonic: Final[Clock] = time.monotonic
