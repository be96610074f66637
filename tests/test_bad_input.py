"""Bad input gets one clear line naming what and where, and exit status 2: never a traceback,
a silent default or a half-started table.

Table-driven, through the real entry points: `shoectl run --config` (a table file), `shoectl
odds --paytable`, `shoectl simulate`, `shoectl emulate`, `shoectl diagram`, `shoectl selftest`;
each case is the input and the exact line on stderr. A few go through a subprocess, to show
that nothing else (no traceback) reaches stderr; Ctrl-C in `simulate` is a real SIGINT.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.cli import (
    diagram_command,
    journal_command,
    odds_command,
    run_command,
    selftest_command,
    simulate_command,
)
from controller.rules import limits
from controller.sim.options import read_shoe_file
from drivers import sign
from drivers.config import ShoeConfig, parse_device
from drivers.emulated import cli as emulate_cli
from drivers.emulated import shoe_file

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = "table, rules, paytables, progressive, devices, vision, journal, console"
NO_SHOE = ('[devices.shoe]: missing: a blackjack table deals from a shoe scanner (kind = '
           '"serial" or "usb" with its port; drivers/DEVICES.md)')
SIGN = "(the sign shows at most 4294967295 cents)"
MONEY = "cents (at most 1,000,000.00)"

CONFIG_CASES: list[tuple[str, str, str]] = [
    ("misspelt progressive", "[table]\nname = 'BJ-01'\n[progresive]\nreset = 1\n",
     f"[progresive]: unknown section (known sections: {SECTIONS})"),
    ("misspelt vision", "[vison]\nframes = 3\n",
     f"[vison]: unknown section (known sections: {SECTIONS})"),
    ("misspelt table", "[tabel]\nname = 'x'\n",
     f"[tabel]: unknown section (known sections: {SECTIONS})"),
    ("empty file: no shoe", "", NO_SHOE),
    ("a table with no shoe", "[table]\nname = 'BJ-01'\ndecks = 6\n", NO_SHOE),
    ("roulette with no wheel", "[table]\ngame = 'roulette'\n",
     "[devices.wheel]: a roulette table needs its wheel's result feed (kind = \"serial\" "
     "with its url; drivers/WHEEL.md)"),
    ("max wager 10^18", "[table]\nmax_wager = 1000000000000000000\n",
     f"[table] max_wager: must be 1..100000000 {MONEY}, got 1000000000000000000"),
    ("min wager above the ceiling", "[table]\nmin_wager = 100000001\n",
     f"[table] min_wager: must be 1..100000000 {MONEY}, got 100000001"),
    ("reset above the sign", "[progressive]\nreset = 4294967296\n",
     f"[progressive] reset: must be 1..4294967295 cents {SIGN}, got 4294967296"),
    ("limit above the sign", "[progressive]\nlimit = 4294967296\n",
     f"[progressive] limit: must be 0..4294967295 cents {SIGN}, got 4294967296"),
    ("increment 0", "[progressive]\nincrement = 0\n",
     "[progressive] increment: must be 1..100000000 cents, got 0"),
    ("increment above the wager", "[progressive]\nincrement = 600\n",
     "[progressive] increment: 600 cents is above the fixed wager 500 "
     "([paytables.blazing7s] wager) it comes from"),
    ("increment and reserve above the wager", "[progressive]\nincrement = 400\nreserve = 200\n",
     "[progressive] reserve: increment 400 + reserve 200 cents is above the fixed wager 500 "
     "([paytables.blazing7s] wager)"),
    ("pay line 10^18:1", "[paytables.perfect-pairs]\nperfect_pair = '1000000000000000000:1'\n",
     "[paytables.perfect-pairs] perfect_pair: 1000000000000000000:1 is above the ceiling "
     "1,000,000:1 ([paytables] max_odds)"),
    ("pay line 0:1", "[paytables.lucky-ladies]\nany_20 = '0:1'\n",
     "[paytables.lucky-ladies] any_20: a winning line must pay something, got 0:1"),
    ("0 for 1", "[paytables.blazing7s]\none_7 = '0 for 1'\n",
     "[paytables.blazing7s] one_7: a winning line must pay something, got 0 for 1"),
    ("10^18 for 1", "[paytables.blazing7s]\nthree_7s = '1000000000000000000 for 1'\n",
     "[paytables.blazing7s] three_7s: 1000000000000000000 for 1 is above the ceiling "
     "1,000,001 for 1 ([paytables] max_odds)"),
    ("ratio term above 1000", "[paytables.axman]\nflush = '1:5000'\n",
     "[paytables.axman] flush: the second term of a ratio is at most 1000, got 1:5000"),
    ("max_odds 0", "[paytables]\nmax_odds = 0\n",
     "[paytables] max_odds: must be 1..100000000, got 0"),
    ("max_odds above its ceiling", "[paytables]\nmax_odds = 100000001\n",
     "[paytables] max_odds: must be 1..100000000, got 100000001"),
    ("a default line above a lowered max_odds", "[paytables]\nmax_odds = 10\n",
     "[paytables.perfect-pairs] perfect_pair: 25:1 (the default) is above the ceiling 10:1 "
     "([paytables] max_odds)"),
    ("a configured line above a lowered max_odds",
     "[paytables]\nmax_odds = 30\n[paytables.perfect-pairs]\nperfect_pair = '31:1'\n",
     "[paytables.perfect-pairs] perfect_pair: 31:1 is above the ceiling 30:1 "
     "([paytables] max_odds)"),
    ("fixed award 10^18", "[paytables.spanish21-bonus]\nenvy = 1000000000000000000\n",
     f"[paytables.spanish21-bonus] envy: must be 0..100000000 {MONEY}, got "
     "1000000000000000000"),
    ("super bonus award 10^18", "[paytables.spanish21-bonus]\nsuper_bonus = "
     "[{min_wager = 500, award = 1000000000000000000}]\n",
     f"[paytables.spanish21-bonus.super_bonus[0]] award: must be 1..100000000 {MONEY}, got "
     "1000000000000000000"),
    ("Blazing 7's wager 10^18", "[paytables.blazing7s]\nwager = 1000000000000000000\n",
     f"[paytables.blazing7s] wager: must be 0..100000000 {MONEY}, got 1000000000000000000"),
    ("AxMan multiplier 1000", "[paytables.axman]\none_king_of_diamonds = 1000\n",
     "[paytables.axman] one_king_of_diamonds: a multiplier is 1..100, got 1000"),
    ("table name empty", "[table]\nname = ''\n", "[table] name: must not be empty"),
    ("table name of blanks", "[table]\nname = '   '\n", "[table] name: must not be empty"),
    ("table name of 10,000 characters", "[table]\nname = '" + "x" * 10_000 + "'\n",
     "[table] name: at most 32 characters, got 10000"),
    ("table name with a control character", '[table]\nname = "BJ\\u0007"\n',
     "[table] name: character 3 ('\\x07') is a control character"),
    ("table name with a line break", '[table]\nname = "BJ\\n07"\n',
     "[table] name: character 3 ('\\n') is a control character"),
    ("deeply nested TOML", "a = " + "[" * 5000 + "]" * 5000 + "\n",
     "not valid TOML: arrays or tables nested too deep to read"),
    ("deeply nested inline tables", "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n",
     "not valid TOML: arrays or tables nested too deep to read"),
    ("[journal] state_dir not a string", "[journal]\nstate_dir = 5\n",
     "[journal] state_dir: expected a path string"),
]


def run_main(main: Callable[[list[str]], int], argv: list[str],
             capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    """Exit status, stdout and the lines of stderr of one in-process command."""
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


@pytest.mark.parametrize(("case", "text", "line"), CONFIG_CASES,
                         ids=[case for case, _, _ in CONFIG_CASES])
def test_a_bad_table_file_is_one_line_naming_the_file_section_and_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, text: str,
        line: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    state = tmp_path / "state"
    status, out, err = run_main(run_command.main, [
        "--config", str(path), "--allow-emulated", "--unverified-software",
        "--state-dir", str(state)], capsys)
    assert (status, out) == (run_command.EXIT_CONFIG, "")
    assert err == [f"shoectl run: {path}: {line}"]
    assert not state.exists()  # refused before the journal, the devices or the console


def test_a_table_file_that_is_not_text_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(b"\xff\xfe[table]\n")
    status, _, err = run_main(run_command.main, ["--config", str(path)], capsys)
    assert status == 2
    assert err == [f"shoectl run: {path}: cannot read the table file: not UTF-8 text (byte 0)"]


def test_the_money_ceilings_are_the_documented_figures() -> None:
    # docs/reference/configuration.md "Bounds" and controller/rules/limits.py: a regulator
    # reads these figures.
    assert limits.MAX_WAGER_CENTS == 100_000_000  # 1,000,000.00
    assert limits.SIGN_MAX_CENTS == sign.MAX_CENTS == 2**32 - 1  # the sign's u32
    assert limits.DEFAULT_MAX_ODDS == 1_000_000
    # the largest wager times the largest line stays a signed 64-bit integer (SQLite's)
    assert limits.MAX_WAGER_CENTS * (limits.MAX_ODDS_CEILING + 1) < 2**63


PAYTABLE_CASES: list[tuple[str, str, str]] = [
    ("perfect-pairs", "[paytables.perfect-pairs]\nperfect_pair = '25:1'\n[progresive]\n"
     "reset = 1\n", f"[progresive]: unknown section (known sections: {SECTIONS})"),
    ("perfect-pairs", "[progresive]\nreset = 1\n",
     f"[progresive]: unknown section (known sections: {SECTIONS})"),
    ("perfect-pairs", "perfect_pair = '1000000000000000000:1'\n",
     "[paytables.perfect-pairs] perfect_pair: 1000000000000000000:1 is above the ceiling "
     "1,000,000:1 ([paytables] max_odds)"),
    ("perfect-pairs", "perfect_pair = '0:1'\n",
     "[paytables.perfect-pairs] perfect_pair: a winning line must pay something, got 0:1"),
    ("blazing7s", "[paytables.blazing7s]\nwager = 500\n[progressive]\nincrement = 0\n",
     "[progressive] increment: must be 1..100000000 cents, got 0"),
    ("blazing7s", "[paytables.blazing7s]\nwager = 500\n[progressive]\nreset = 4294967296\n",
     f"[progressive] reset: must be 1..4294967295 cents {SIGN}, got 4294967296"),
]


@pytest.mark.parametrize(("bet", "text", "line"), PAYTABLE_CASES)
def test_a_bad_pay_table_file_is_one_line_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], bet: str, text: str,
        line: str) -> None:
    path = tmp_path / "pays.toml"
    path.write_text(text, encoding="utf-8")
    status, out, err = run_main(odds_command.main, [bet, "--paytable", str(path)], capsys)
    assert (status, out) == (2, "")
    assert err == [f"shoectl odds: --paytable {path}: {line}"]


def test_a_deeply_nested_pay_table_file_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pays.toml"
    path.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    status, _, err = run_main(odds_command.main, ["perfect-pairs", "--paytable", str(path)],
                              capsys)
    assert status == 2
    assert err == [f"shoectl odds: --paytable {path}: not valid TOML: arrays or tables nested "
                   "too deep to read"]


SIM = ["--in-process", "--json"]
SIMULATE_CASES: list[tuple[list[str], str]] = [
    (["--decks", "0"], "--decks: a shoe holds 1, 2, 4, 5, 6 or 8 decks, not 0"),
    (["--rounds", "-1"], "--rounds: 1..10000000, got -1"),
    (["--rounds", "0"], "--rounds: 1..10000000, got 0"),
    (["--rounds", "100000000000"], "--rounds: 1..10000000, got 100000000000"),
    (["--seats", "0"], "--seats: 1..9, got 0"),
    (["--pace", "-1"], "--pace: 0..10.0 seconds a card, got -1.0"),
    (["--meter-start", "-5"], f"--meter-start: 0..4294967295 cents {SIGN}, got -5"),
    (["--meter-start", "4294967296"],
     f"--meter-start: 0..4294967295 cents {SIGN}, got 4294967296"),
    (["--meter-reset", "0"], f"--meter-reset: must be 1..4294967295 cents {SIGN}, got 0"),
    (["--meter-reset", "4294967296"],
     f"--meter-reset: must be 1..4294967295 cents {SIGN}, got 4294967296"),
    (["--meter-increment", "0"], "--meter-increment: must be 1..100000000 cents, got 0"),
    (["--meter-increment", "501"],
     "--meter-increment: 501 cents is above the Blazing 7's fixed wager 500 it comes from"),
    (["--bets", "main=1000,foo=5"], "--bets: 'foo' is no blackjack wager (wagers: main, "
     "perfect-pairs, lucky-ladies, match-the-dealer, blazing7s, axman)"),
    (["--game", "spanish21", "--bets", "main=1000,axman=100"],
     "--bets: 'axman' is no spanish21 wager (wagers: main, match-the-dealer)"),
    (["--game", "baccarat", "--bets", "banker=1000,foo=5"],
     "--bets: 'foo' is no baccarat wager (wagers: banker, player, tie, dragon-banker, "
     "dragon-player)"),
    (["--bets", "main=0"], "--bets: main=0: a wager is 1..100000000 cents"),
    (["--bets", "main=10000000000000"],
     "--bets: main=10000000000000: a wager is 1..100000000 cents"),
    (["--bets", "main=100"], "--bets: main=100 is outside the table limits 500..500000 cents"),
    (["--bets", "main=1000,main=2000"], "--bets: main is named twice"),
    (["--bets", "main=-5"], "--bets: 'main=-5' is not NAME=CENTS"),
    (["--game", "roulette", "--spins", "-1"], "--spins: 1..10000000, got -1"),
    (["--game", "roulette", "--spins", "100000000000"], "--spins: 1..10000000, got 100000000000"),
]


@pytest.mark.parametrize(("argv", "line"), SIMULATE_CASES)
def test_a_simulate_option_out_of_range_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        line: str) -> None:
    state = tmp_path / "state"
    extra = SIM if "roulette" not in argv else ["--json"]
    status, out, err = run_main(simulate_command.main,
                                [*argv, *extra, "--state-dir", str(state)], capsys)
    assert (status, out) == (2, "")
    assert err == [f"shoectl simulate: {line}"]
    assert not state.exists()


def test_the_seeds_4_deck_axman_is_a_note_not_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A wager of the game the table cannot offer at this deck count (58 Pa. Code 633c.12(a))
    # is left out with a note; only a name that is no wager at all is refused.
    status, out, err = run_main(simulate_command.main, [
        "--decks", "4", "--bets", "main=1000,axman=100", "--rounds", "1", *SIM,
        "--state-dir", str(tmp_path / "state")], capsys)
    assert status == 0
    assert len(out.splitlines()) == 1
    assert err[0] == "shoectl simulate: axman is not offered at blackjack with 4 decks; ignored"


SHOE_TEXT = "AS kh\t7d  # three, one a tab apart\n\n10S   qc\n# a whole line of comment\n2H\n"
SHOE_CARDS = ["AS", "KH", "7D", "TS", "QC", "2H"]


def test_one_shoe_file_format_is_read_alike_by_simulate_the_emulator_and_the_config(
        tmp_path: Path) -> None:
    path = tmp_path / "shoe.txt"
    path.write_text(SHOE_TEXT, encoding="utf-8")
    assert read_shoe_file(path) == SHOE_CARDS                       # shoectl simulate
    assert [c.code for c in shoe_file.shoe_file_cards(path)] == SHOE_CARDS  # shoectl emulate
    device = parse_device("shoe", {"kind": "emulated", "script_file": str(path)},
                          allow_emulated=True)                      # [devices.shoe] script_file
    assert isinstance(device, ShoeConfig)
    assert device.emulation is not None
    assert list(device.emulation.script or ()) == SHOE_CARDS


@pytest.mark.parametrize(("text", "where"), [
    ("AS KH\n7D 1X QC\n", "line 2: '1X'"),
    ("AS # 1X is a comment here\nKH 10\n", "line 2: '10'"),
    ("AS,KH\n", "line 1: 'AS,KH'"),
])
def test_a_bad_card_in_a_shoe_file_names_the_file_line_and_token_in_both_commands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str) -> None:
    path = tmp_path / "shoe.txt"
    path.write_text(text, encoding="utf-8")
    why = "is not a card (a rank A23456789TJQK, then a suit SHDC, e.g. QH)"
    status, _, err = run_main(simulate_command.main,
                              ["--shoe-file", str(path), *SIM, "--state-dir",
                               str(tmp_path / "state")], capsys)
    assert (status, err) == (2, [f"shoectl simulate: --shoe-file {path} {where} {why}"])
    status, _, err = run_main(emulate_cli.main, ["shoe", "--shoe-file", str(path),
                                                 "--link-dir", str(tmp_path)], capsys)
    assert (status, err) == (2, [f"shoectl emulate: --shoe-file {path} {where} {why}"])
    assert not (tmp_path / "shoe").exists()  # no port was opened
    assert not (tmp_path / "shoe.key").exists()  # nor a key file made


EMULATE_CASES: list[tuple[list[str], str]] = [
    (["shoe", "--link-dir", "/nonexistent"], "--link-dir /nonexistent: no such directory"),
    (["wheel", "--link-dir", "/nonexistent"], "--link-dir /nonexistent: no such directory"),
    (["shoe", "--penetration", "0.75"], "--penetration: a whole percent 10..95 (75 for three "
     "quarters of the shoe), got '0.75'"),
    (["shoe", "--penetration", "5"], "--penetration: a whole percent 10..95 of the shoe dealt "
     "before the cut card, got 5"),
    (["shoe", "--penetration", "96"], "--penetration: a whole percent 10..95 of the shoe "
     "dealt before the cut card, got 96"),
    (["shoe", "--deal-every", "0"], "--deal-every: 0 < SECONDS <= 60, got 0.0"),
    (["shoe", "--deal-every", "-1"], "--deal-every: 0 < SECONDS <= 60, got -1.0"),
    (["shoe", "--firmware", "x" * 33],
     f"--firmware: 1..32 printable ASCII characters, got {'x' * 33!r}"),
    (["shoe", "--name", "../x"], "--name '../x': a file name, without '/'"),
]


@pytest.mark.parametrize(("argv", "line"), EMULATE_CASES)
def test_an_emulate_option_out_of_range_is_one_line_before_anything_is_made(
        capsys: pytest.CaptureFixture[str], argv: list[str], line: str) -> None:
    status, out, err = run_main(emulate_cli.main, argv, capsys)
    assert (status, out) == (2, "")
    assert err == [f"shoectl emulate: {line}"]
    assert not Path("/nonexistent").exists()  # no folder made where none was


@pytest.mark.parametrize(("argv", "line"), [
    (["--decks", "0"], "shoe: decks: a shoe holds 1..8 decks, not 0"),
    (["--decks", "1000000000"], "shoe: decks: a shoe holds 1..8 decks, not 1000000000"),
    (["--cut-card-from-end", "400"], "shoe: cut card: 400 cards behind it does not fit a "
                                     "312-card shoe"),
])
def test_an_emulated_shoe_that_cannot_be_filled_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        line: str) -> None:
    status, _, err = run_main(emulate_cli.main, ["shoe", *argv, "--link-dir", str(tmp_path)],
                              capsys)
    assert (status, err) == (2, [f"shoectl emulate: {line.partition(': ')[2]}"])
    assert not (tmp_path / "shoe").exists()
    assert not (tmp_path / "shoe.key").exists()


def test_the_emulator_and_the_table_put_the_cut_card_at_the_same_percent() -> None:
    from drivers.emulated.shoe_model import CUT_CARD, ShoeContents, ShoePlan

    emulated = parse_device("shoe", {"kind": "emulated", "penetration": 75},
                            allow_emulated=True)
    assert isinstance(emulated, ShoeConfig)
    assert emulated.emulation is not None
    contents = ShoeContents.shuffled(ShoePlan(6, penetration=emulated.emulation.penetration))
    items = [contents.take() for _ in range(313)]
    assert items.index(CUT_CARD) == 312 * 75 // 100  # [table] penetration = 75's 234


def test_other_commands_refuse_absurd_numbers_and_paths(
        capsys: pytest.CaptureFixture[str]) -> None:
    cases: list[tuple[Callable[[list[str]], int], list[str], str]] = [
        (diagram_command.main, ["blackjack", "-o", "/nonexistent/x.svg"],
         "shoectl diagram: -o /nonexistent/x.svg: cannot write: No such file or directory"),
        (odds_command.main, ["blazing7s", "--meter", "100000000000"],
         "shoectl odds: --meter: at most 8,589,934.59 units of the 500-cent wager (the sign "
         "shows at most 4294967295 cents), got 1e+11"),
        (selftest_command.main, ["--operator", "x", "--timeout", "0"],
         "shoectl selftest: --timeout: 0 < SECONDS <= 600, got 0.0"),
        (selftest_command.main, ["--operator", "x", "--timeout", "nan"],
         "shoectl selftest: --timeout: 0 < SECONDS <= 600, got nan"),
    ]
    for main, argv, line in cases:
        status, out, err = run_main(main, argv, capsys)
        assert (status, out, err) == (2, "", [line]), argv


def shoectl(*argv: str, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *argv], capture_output=True,
                          text=True, timeout=120, check=False, cwd=ROOT, **options)  # type: ignore[call-overload]


@pytest.mark.parametrize("argv", [
    ["run", "--config", "{dir}/nested.toml"],
    ["simulate", "--decks", "0", "--in-process"],
    ["diagram", "blackjack", "-o", "/nonexistent/x.svg"],
    ["emulate", "shoe", "--link-dir", "/nonexistent"],
    ["odds", "perfect-pairs", "--paytable", "{dir}/nested.toml"],
])
def test_in_a_real_process_stderr_is_one_line_and_no_traceback(
        tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "nested.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    done = shoectl(*(arg.format(dir=tmp_path) for arg in argv))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stdout == ""


def test_ctrl_c_in_simulate_closes_the_journal_and_exits_130_with_one_line(
        tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
            [sys.executable, "-m", "controller", "simulate", "--in-process", "--json",
             "--rounds", "1000000", "--state-dir", str(state)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
            env=env) as process:
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())  # a round has been dealt
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert first["round"] == 1
    assert process.returncode == 130
    assert "Traceback" not in err
    rounds = 1 + len(out.splitlines())
    assert err.splitlines() == [f"shoectl simulate: interrupted after {rounds} rounds; the "
                                "journal is closed"]
    assert journal_command.main(["verify", "--state-dir", str(state)]) == 0
    exported = subprocess.run(
        [sys.executable, "-m", "controller", "journal", "export", "--jsonl", "--state-dir",
         str(state)], capture_output=True, text=True, timeout=120, check=True, cwd=ROOT)
    last = json.loads(exported.stdout.splitlines()[-1])
    assert last["kind"] == "power:off"
    assert last["data"]["reason"] == "simulation interrupted"


def test_a_full_disk_under_simulate_is_the_real_cause_in_one_line(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(disk)], check=True)
    try:
        done = shoectl("simulate", "--in-process", "--json", "--rounds", "100000",
                       "--state-dir", str(disk / "state"))
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"shoectl simulate: journal {disk / 'state' / 'journal.sqlite3'}: write failed: "
        "database or disk is full"]
