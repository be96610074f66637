"""Commands typed on an emulator's standard input, one per line (`shoectl emulate ...`)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

Command = Callable[[list[str]], str]
"""A command: its words after the name -> the one-line reply."""


def read_commands(commands: dict[str, Command], stop: threading.Event) -> None:
    """Answer each line of standard input; `quit` sets `stop`.

    When standard input closes (the emulator runs in the background) the emulator keeps
    running: only `quit` or a signal stops it.
    """
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        command = commands.get(words[0])
        reply = command(words[1:]) if command else f"unknown command; try: {' '.join(commands)}"
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()
    else:
        return
    stop.set()
