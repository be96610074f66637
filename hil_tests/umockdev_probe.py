"""Run inside `umockdev-run`: the USB transport against the real libusb on a fake device tree.

Prints one JSON line of what happened; `test_usb_umockdev.py` checks it.
"""

import json
import sys
import threading

from drivers.config import UsbPortConfig
from drivers.usb import UsbTransport
from firmware_bridge import TransportError


def probe(vid: int, pid: int) -> dict:
    """Open the USB transport to `vid`:`pid` and say what happened.

    Returns:
        `url`; then `open_error` if opening failed, else `opened` and the `reader_errors`
        the reader thread reported within 5 seconds.
    """
    failed = threading.Event()
    errors: list[str] = []
    transport = UsbTransport(UsbPortConfig(vid, pid))
    result: dict = {"url": transport.url}
    try:
        transport.open(lambda data: None, lambda: None,
                       lambda error: (errors.append(repr(error)), failed.set()))
    except TransportError as exc:
        result["open_error"] = str(exc)
        return result
    result["opened"] = True
    failed.wait(5.0)
    result["reader_errors"] = errors
    transport.close()
    return result


if __name__ == "__main__":
    vid, pid = (int(value, 16) for value in sys.argv[1:3])
    sys.stdout.write(json.dumps(probe(vid, pid)) + "\n")
