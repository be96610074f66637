"""`shoectl selftest` end to end: configuration, registry, emulators, journal, exit status."""

from __future__ import annotations

import os
from pathlib import Path

from controller.cli import shoectl
from controller.journal.store import JournalStore

EMULATED_TABLE = """
[table]
name = "BJ-TEST"

[devices.shoe]
kind = "emulated"
seed = 7

[devices.layout]
kind = "emulated"
lamps = { "seat1.blazing7s" = 1, "seat2.blazing7s" = 2, fault = 3 }
bet_sensors = { "seat1.blazing7s" = 1, "seat2.blazing7s" = 2 }
buttons = { no_more_bets = 4 }

[devices.sign]
kind = "emulated"
"""


def _records(state: Path) -> list[dict]:
    store = JournalStore(state, clock=lambda: 0.0)
    try:
        return [entry.data for entry in store.entries(["selftest:result"])]
    finally:
        store.close()


def test_auto_selftest_on_an_emulated_rig_passes_and_is_journalled(tmp_path, capsys) -> None:
    config = tmp_path / "table.toml"
    config.write_text(EMULATED_TABLE)
    state = tmp_path / "state"
    code = shoectl.main(["selftest", "--operator", "CI rig", "--config", str(config),
                     "--state-dir", str(state), "--auto", "--unverified-software", "--timeout",
                                        "5"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "self-test PASSED" in out
    assert "PASS  layout   lamp seat2.blazing7s" in out
    assert "PASS  sign     shows $10,000.00" in out  # the reset amount: no meter yet
    assert ("PASS  software manifest: UNVERIFIED: a development tree (--unverified-software), "
            "no manifest checked") in out
    [record] = _records(state)
    assert record["operator"] == "CI rig"
    assert record["mode"] == "auto"
    assert record["passed"] is True
    # A second run verifies the journal the first one started.
    assert shoectl.main(["selftest", "--operator", "CI rig", "--config", str(config),
                     "--state-dir", str(state), "--auto", "--unverified-software", "--timeout",
                                        "5"]) == 0
    assert "PASS  journal  chain: chain intact: 1 records" in capsys.readouterr().out


def test_auto_selftest_drives_an_emulated_gpio_layout(tmp_path, capsys) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        '[devices.layout]\nkind = "emulated-gpio"\n'
        'lamps = { "seat1.blazing7s" = 17, fault = 27 }\n'
        'bet_sensors = { "seat1.blazing7s" = 5 }\nbuttons = { no_more_bets = 13 }\n'
        'key_switches = { supervisor = 19 }\n')
    code = shoectl.main(["selftest", "--operator", "CI rig", "--config", str(config),
                     "--state-dir", str(tmp_path / "state"), "--auto", "--unverified-software",
                                        "--timeout", "5"])
    out = capsys.readouterr().out
    assert code == 0, out
    for item in ("lamp fault", "sensor seat1.blazing7s (remove_chip)",
                 "button no_more_bets (press)", "key switch supervisor (turn_key_back)"):
        assert f"PASS  layout   {item}" in out


def test_a_misspelt_layout_name_is_refused_before_any_test(tmp_path, capsys) -> None:
    """A lamp the game never lights would pass its test and never light at the table."""
    config = tmp_path / "table.toml"
    config.write_text(EMULATED_TABLE.replace("fault = 3", "falt = 3"))
    code = shoectl.main(["selftest", "--operator", "CI rig", "--config", str(config),
                         "--state-dir", str(tmp_path / "state"), "--auto",
                         "--unverified-software", "--timeout", "5"])
    captured = capsys.readouterr()
    assert code == 2, captured.out
    assert captured.err.splitlines() == [
        f"shoectl selftest: {config}: [devices.layout] lamps.falt: not a lamp of a blackjack "
        "table with 7 seats; nearest: fault"]
    assert captured.out == ""


def test_dead_shoe_fails_naming_it_and_is_journalled(tmp_path, capsys, monkeypatch) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[devices.shoe]\nkind = "serial"\nurl = "' + str(tmp_path / "no-shoe")
                      + '"\ntimeout_ms = 200\n')
    state = tmp_path / "state"
    with open(os.devnull) as no_answers:
        monkeypatch.setattr("sys.stdin", no_answers)
        code = shoectl.main(["selftest", "--operator", "J. Floor", "--config", str(config),
                         "--state-dir", str(state), "--timeout", "1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "FAIL  shoe     handshake" in err
    assert "self-test FAILED: software, shoe" in err
    [record] = _records(state)
    assert record["passed"] is False
    assert "shoe" in record["failed_devices"]


def test_an_emulated_rig_does_not_waive_the_software_check(tmp_path, capsys,
                                                            monkeypatch) -> None:
    monkeypatch.delenv("SHOECTL_MANIFEST", raising=False)
    config = tmp_path / "table.toml"
    config.write_text(EMULATED_TABLE)
    code = shoectl.main(["selftest", "--operator", "CI rig", "--config", str(config),
                         "--state-dir", str(tmp_path / "state"), "--auto", "--timeout", "5"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert ("FAIL  software manifest: no manifest: not an installed appliance "
            "(run `shoectl install`)") in err
    assert "self-test FAILED: software" in err


def test_auto_refuses_real_devices(tmp_path, capsys) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[devices.sign]\nkind = "serial"\nurl = "/dev/jackpot-sign"\n')
    code = shoectl.main(["selftest", "--operator", "x", "--config", str(config),
                     "--state-dir", str(tmp_path), "--auto"])
    assert code == 2
    assert "--auto needs emulated devices; real: sign" in capsys.readouterr().err


def test_bad_configuration_is_named(tmp_path, capsys) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[devices.shoe]\nkind = "serial"\nurl = "/dev/x"\nbaud = 7\n')
    assert shoectl.main(["selftest", "--operator", "x", "--config", str(config),
                     "--state-dir", str(tmp_path)]) == 2
    assert "[devices.shoe] baud" in capsys.readouterr().err


def test_operator_must_be_named(tmp_path, capsys) -> None:
    assert shoectl.main(["selftest", "--operator", " ", "--state-dir", str(tmp_path)]) == 2
    assert "--operator must name who runs the test" in capsys.readouterr().err
