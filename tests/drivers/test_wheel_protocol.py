"""The wheel's result feed as text (drivers/WHEEL.md): its grammar, its line ends, and what the
lines add up to: changes only, one result per game, voids, warnings, contradictions.

These feed `WheelTracker` line by line; `hil_tests/test_wheel.py` sends the same through a
real pty to the serial driver.
"""

from __future__ import annotations

import pytest

from drivers.events import (
    DeviceFault,
    WheelPhase,
    WheelResult,
    WheelStatus,
    WheelVoid,
    WheelWarning,
)
from drivers.wheel_protocol import (
    LineSplitter,
    NumberLine,
    OtherPacket,
    StatusLine,
    WheelTracker,
    parse_line,
    pocket_text,
)


def x(state: int, game: int, last: str = "  ", flags: str = "0", rpm: str = "163") -> str:
    return f"*X;{state};{game:03d};{last};{flags};{rpm};1"


def feed(lines: list[str], **options: object) -> list[object]:
    tracker = WheelTracker("wheel", lambda: 1.5, **options)  # type: ignore[arg-type]
    return [fact for line in lines for fact in tracker.feed(line)]


def kinds(facts: list[object]) -> list[str]:
    out = []
    for f in facts:
        if isinstance(f, WheelStatus):
            out.append(f"status {f.state}/{f.game}/{f.flags}")
        elif isinstance(f, WheelResult):
            out.append(f"result {f.game} {f.number} {'+'.join(f.sources)}")
        elif isinstance(f, WheelVoid):
            out.append(f"void {f.game}")
        elif isinstance(f, WheelWarning):
            out.append(f"warn {f.game} {f.warning}")
        elif isinstance(f, DeviceFault):
            out.append("fault")
    return out


GAME = [x(1, 30, "17"), x(2, 31, "17"), x(2, 31, "17"), x(3, 31, "17"), *[x(4, 31, "17")] * 50,
        " 7", *[x(5, 31, " 7")] * 6]


@pytest.mark.parametrize(("text", "read"), [
    ("*X;4;031;17;0;163;1", StatusLine(4, 31, "17", 0, 163, 1)),
    ("*X;5;256; 0;A;000;0", StatusLine(5, 256, "0", 10, 0, 0)),
    ("*X;6;001;00;0;154;1", StatusLine(6, 1, "00", 0, 154, 1)),
    ("*X;2;001;  ;c;154;1", StatusLine(2, 1, None, 12, 154, 1)),
    ("*X;4;012;36;0;154;0;0012;1f;1;0F000;23", StatusLine(4, 12, "36", 0, 154, 0)),
    ("*X;7;012;36;0;154;0", StatusLine(7, 12, "36", 0, 154, 0)),
    ("23", NumberLine("23")), (" 7", NumberLine("7")), ("00", NumberLine("00")),
    (" 0", NumberLine("0")),
    ("*P OK", OtherPacket("*P OK")), ("*P 1", OtherPacket("*P 1")),
    ("*T z 37", OtherPacket("*T z 37")),
])
def test_the_grammar_reads(text: str, read: object) -> None:
    assert parse_line(text) == read


@pytest.mark.parametrize("text", [
    "*X;4;03*X;*X;4;031;17;0;163;1", "7;0;163;1", "*X;8;031;17;0;163;1", "*X;4;31;17;0;163;1",
    "*X;4;031;37;0;163;1", "*X;4;031;07;0;163;1", "*X;4;031;17;G;163;1", "*X;4;031;17;0;163;2",
    "*X:4:031:17:0:163:1", "37", "07", "7", "017", "*X;4;031;17;0;163;1 ", "\x13\x37",
])
def test_a_line_off_the_grammar_is_no_line(text: str) -> None:
    assert parse_line(text) is None


def test_pockets_stay_strings_and_00_is_not_0() -> None:
    assert [pocket_text(t) for t in (" 0", "00", " 9", "10", "36")] == ["0", "00", "9", "10",
                                                                         "36"]
    assert [pocket_text(t) for t in ("37", "07", "0", "000", " 10")] == [None] * 5


@pytest.mark.parametrize("ends", [b"\r\n", b"\n\r", b"\r", b"\n", b"\r\n\r\n"])
def test_any_line_end_splits_and_empty_lines_are_dropped(ends: bytes) -> None:
    splitter = LineSplitter()
    data = ends.join([b"*X;4;031;17;0;163;1", b"17", b"*X;5;031;17;0;163;1"]) + ends
    lines = []
    for index in range(len(data)):  # one byte at a time: a read may end anywhere
        lines += splitter.feed(data[index:index + 1])
    assert lines == ["*X;4;031;17;0;163;1", "17", "*X;5;031;17;0;163;1"]


def test_an_overlong_line_cannot_pass_for_a_good_one() -> None:
    splitter = LineSplitter()
    lines = splitter.feed(b"*X;4;031;17;0;163;1" * 20 + b"\r\n")
    assert len(lines) == 1
    assert parse_line(lines[0]) is None


def test_repeats_are_no_changes_and_a_game_has_one_result() -> None:
    facts = feed(GAME)
    assert kinds(facts) == ["status 1/30/0", "status 2/31/0", "status 3/31/0", "status 4/31/0",
                            "status 5/31/0", "result 31 7 number_line+status"]
    status = facts[3]
    assert isinstance(status, WheelStatus)
    assert (status.phase, status.device, status.at) == (WheelPhase.NO_MORE_BETS, "wheel", 1.5)


def test_a_result_without_its_number_line_is_warned() -> None:
    facts = kinds(feed([line for line in GAME if line != " 7"]))
    assert facts[-2:] == ["warn 31 number_line_missing", "result 31 7 status"]
    quiet = kinds(feed([line for line in GAME if line != " 7"], expect_number_line=False))
    assert "warn 31 number_line_missing" not in quiet


def test_the_number_line_and_the_status_disagreeing_is_one_fault_and_no_result() -> None:
    lines = [*GAME[:-7], "23", *[x(5, 31, " 7")] * 6, "23"]
    facts = feed(lines)
    assert kinds(facts)[-2:] == ["status 5/31/0", "fault"]
    fault = facts[-1]
    assert isinstance(fault, DeviceFault)
    assert "game 031: the winning-number line says 23 but the status says 7" in fault.reason


def test_a_misfire_in_the_rim_voids_and_the_wheel_respins_the_same_game() -> None:
    lines = [x(2, 31), x(3, 31, flags="2"), x(3, 31, flags="2"), x(1, 31), x(2, 31),
             x(3, 31), x(4, 31), "12", x(5, 31, "12")]
    assert kinds(feed(lines)) == [
        "status 2/31/0", "status 3/31/2", "warn 31 misfire", "void 31", "status 1/31/0",
        "status 2/31/0", "status 3/31/0", "status 4/31/0", "status 5/31/0",
        "result 31 12 number_line+status"]


@pytest.mark.parametrize("count", [9, 10])
def test_no_ball_voids_after_exactly_ten_lines(count: int) -> None:
    lines = [x(2, 31), x(3, 31), *[x(4, 31, flags="1")] * count, x(4, 31)]
    facts = kinds(feed(lines))
    assert ("void 31" in facts) == (count >= 10)
    assert facts.count("warn 31 ball_not_detected") == 1


def test_state_2_flags_warn_but_do_not_void() -> None:
    lines = [x(2, 31), x(2, 31, flags="A"), x(2, 31, flags="8"), x(3, 31), x(4, 31), " 5",
             x(5, 31, " 5")]
    facts = kinds(feed(lines))
    assert "warn 31 misfire" in facts
    assert "warn 31 failed_launch" in facts
    assert facts[-1] == "result 31 5 number_line+status"
    assert not [f for f in facts if f.startswith("void")]


def test_the_stuck_sensor_pattern_is_warned_then_void_when_the_wheel_powers_down() -> None:
    lines = [x(2, 31), x(3, 31), x(4, 31), x(4, 31, rpm="000", flags="1"),
             *[x(4, 31, rpm="000")] * 3, *[x(4, 31, rpm="000", flags="4")] * 30,
             x(6, 31, rpm="000"), x(6, 0), x(1, 0), x(2, 1)]
    facts = kinds(feed(lines))
    assert facts[facts.index("status 4/31/4") + 1:] == [
        "warn 31 sensor_fault", "void 31", "status 6/31/0", "status 6/0/0", "status 1/0/0",
        "status 2/1/0"]
    assert facts.index("warn 31 ball_not_detected") < facts.index("void 31")


def test_a_game_left_for_another_without_a_result_is_void() -> None:
    assert kinds(feed([x(2, 31), x(3, 31), x(4, 31), x(2, 32)]))[-2:] == ["void 31",
                                                                          "status 2/32/0"]


def test_a_game_whose_status_was_lost_is_decided_by_its_number_line() -> None:
    facts = kinds(feed([x(2, 31), x(3, 31), x(4, 31), "19", x(2, 32)]))
    assert facts[-2:] == ["result 31 19 number_line", "status 2/32/0"]


def test_unknown_states_are_reported_never_acted_on() -> None:
    facts = feed([x(2, 31), x(7, 31), x(7, 31)])
    assert [f.phase for f in facts if isinstance(f, WheelStatus)] == [WheelPhase.PLACE_BETS,
                                                                       WheelPhase.OTHER]


def test_garbled_lines_are_warned_once_a_game_and_the_next_good_line_resyncs() -> None:
    lines = [x(2, 31), x(3, 31), x(4, 31), "*X;4;03*X;*X;4;031;17;0;163;1", "7;0;163;1",
             x(4, 31), "17", x(5, 31, "17")]
    assert kinds(feed(lines))[-3:] == ["warn 31 garbled_line", "status 5/31/0",
                                       "result 31 17 number_line+status"]


def test_replies_and_echoes_are_no_facts() -> None:
    assert kinds(feed(["*P 1", "*P OK", "*o 1157"])) == []


def test_mercury_voids_on_flag_8_in_play_and_slingshot_does_not() -> None:
    lines = [x(2, 31), x(3, 31, flags="8"), x(3, 31)]
    assert "void 31" in kinds(feed(lines, dialect="mercury"))
    assert "void 31" not in kinds(feed(lines))


def test_a_host_started_mid_result_takes_it_once() -> None:
    facts = kinds(feed([x(5, 31, "17"), x(5, 31, "17"), x(1, 31, "17"), x(2, 32, "17")]))
    assert facts == ["status 5/31/0", "warn 31 number_line_missing", "result 31 17 status",
                     "status 1/31/0", "status 2/32/0"]
