"""When the loop fails: what is kept of the error, and the exception that ends the run.

An exception that escapes the loop (a bug in the runtime, a watcher or a timer, a journal that
refuses a write, the event queue at its bound) stops the table: `TableApp.run_forever` drives
the outputs safe, journals `system:crash` with this report and raises `TableCrashError`, and
`shoectl run` exits non-zero. The report holds the exception's type, its message with every
card code masked, and where it was raised (file, line, function: no values), so it can reach
the operational log without carrying a card (the hole card included, R5).
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

CARD_CODE: Final = re.compile(r"\b(?:10|[2-9TJQKA])[CDHS]\b")
"""A card code as the controller writes it (`7S`, `TH`, `10D`): masked in a crash report."""
MASK: Final = "??"
MAX_MESSAGE: Final = 300
"""Characters of the exception's message kept (after masking)."""
MAX_FRAMES: Final = 8
"""Innermost stack frames kept."""


@dataclass(frozen=True, slots=True)
class CrashReport:
    """What a crash record says about the exception.

    Attributes:
        error: The exception's type name (`KeyError`, `JournalError`, `EventQueueFullError`).
        message: Its message, card codes masked, at most `MAX_MESSAGE` characters.
        stack: The innermost frames, outermost first, as `path:line in function`.
    """

    error: str
    message: str
    stack: tuple[str, ...]

    def line(self) -> str:
        """One log line: the type, the message and where it was raised."""
        where = f" at {self.stack[-1]}" if self.stack else ""
        return f"{self.error}: {self.message}{where}"

    def record(self, state: str, round_number: int) -> dict[str, Any]:
        """The data of the `system:crash` journal record."""
        return {"error": self.error, "message": self.message, "stack": list(self.stack),
                "state": state, "round": round_number}


def mask_cards(text: str) -> str:
    """`text` with every card code replaced by `??`."""
    return CARD_CODE.sub(MASK, text)


def crash_report(exc: BaseException) -> CrashReport:
    """The report of an exception that escaped the loop."""
    frames = traceback.extract_tb(exc.__traceback__)[-MAX_FRAMES:]
    stack = tuple(f"{_short(frame.filename)}:{frame.lineno} in {frame.name}" for frame in frames)
    message = mask_cards(str(exc))[:MAX_MESSAGE]
    return CrashReport(type(exc).__name__, message, stack)


def _short(filename: str) -> str:
    """A source path from the installed packages' root (`controller/service/runtime.py`)."""
    path = Path(filename)
    return str(path.relative_to(_ROOT)) if path.is_relative_to(_ROOT) else path.name


_ROOT: Final = Path(__file__).resolve().parents[2]
"""Where the product's packages lie (the repository, or site-packages)."""


class TableCrashError(RuntimeError):
    """The loop stopped on an exception; the outputs were driven safe.

    Attributes:
        report: What the crash record says.
        journal_failed: The exception was the journal refusing a write.
        journalled: `system:crash` reached the journal.
    """

    def __init__(self, report: CrashReport, *, journal_failed: bool, journalled: bool) -> None:
        kept = "journalled as system:crash" if journalled else "the journal did not take it"
        super().__init__(f"the table stopped on {report.line()} ({kept})")
        self.report = report
        self.journal_failed = journal_failed
        self.journalled = journalled
