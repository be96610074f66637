"""After a commit the runtime tells its watchers (the console's and the pit's hubs) before it
drives the boards: the screens learn what was recorded without waiting for the lamp and sign
frames, and nothing reaches either before the journal holds it (R14)."""

from pathlib import Path

from controller.service.runtime import RecordingOutputs, TableRuntime
from tests.controller.helpers import runtime


def test_watchers_hear_of_a_commit_before_the_boards_are_driven(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "blackjack")
    outputs = rt.outputs
    assert isinstance(outputs, RecordingOutputs)
    seen: list[tuple[int, int, str]] = []

    def watcher(table: TableRuntime) -> None:
        assert table.shown is not None
        seen.append((table.journal.records, len(outputs.applied), table.shown.dealer_text))
    rt.watchers.append(watcher)

    records, applied = rt.journal.records, len(outputs.applied)
    rt.fire("shuffle_done")
    assert rt.journal.records > records
    assert len(outputs.applied) > applied, "the commit drives the boards (lamps, display)"
    assert seen, "the watcher heard of the commit"
    journalled, boards_then, display = seen[0]
    assert journalled > records, "the journal held the commit before the watcher heard"
    assert boards_then == applied, "no board was driven before the watcher heard"
    assert rt.shown is not None
    assert display == rt.shown.dealer_text, "the watcher read the display it was told of"
