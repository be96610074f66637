"""The HIL plugin itself: rig selection, the needs marker, the broken strategy, the rig lock."""

import fcntl
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

HIL = Path(__file__).resolve().parents[2] / "hil_tests"


@pytest.fixture
def hil(pytester: pytest.Pytester) -> pytest.Pytester:
    # A suite with the plugin, a rig with one feature and no devices, and a strategy that
    # can be made to fail.
    pytester.makeconftest(
        "from hil_tests.plugin import (_needs, pytest_addoption, pytest_configure,\n"
        "    pytest_report_header,\n"
        "    rig_file, rig_lock, strategy, table)\n"
        "import pytest\n"
        "class FakeRig:\n"
        "    broken = False\n"
        "    def to_idle(self):\n"
        "        if FakeRig.broken:\n"
        "            raise RuntimeError('shoe link down')\n"
        "    def close(self):\n"
        "        pass\n"
        "@pytest.fixture(scope='session')\n"
        "def rig(rig_file, rig_lock):\n"
        "    return FakeRig()\n")
    pytester.makefile(".toml", rig='[rig]\nname = "mini"\nfeatures = ["shoe"]\n')
    pytester.makeini("[pytest]\nmarkers =\n    needs(*features): rig features\n")
    pytester.syspathinsert(HIL.parent)
    return pytester


def test_needs_skips_what_the_rig_lacks_and_says_why(hil: pytest.Pytester):
    hil.makepyfile(
        "import pytest\n"
        "@pytest.mark.needs('shoe')\n"
        "def test_has(table):\n    pass\n"
        "@pytest.mark.needs('shoe', 'sign')\n"
        "def test_lacks(table):\n    pass\n")
    result = hil.runpytest("--rig", "rig.toml", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*rig 'mini' lacks sign*"])


def test_a_broken_strategy_skips_the_rest_instead_of_cascading(hil: pytest.Pytester):
    hil.makepyfile(
        "from conftest import FakeRig\n"
        "def test_first(table):\n    FakeRig.broken = True\n"
        "def test_breaks(table):\n    pass\n"
        "def test_after(table):\n    pass\n")
    result = hil.runpytest("--rig", "rig.toml", "-rs")
    result.assert_outcomes(passed=1, errors=1, skipped=1)
    result.stdout.fnmatch_lines(["*rig strategy broken earlier: RuntimeError: shoe link down*"])


def test_the_rig_file_comes_from_the_environment_when_no_option_is_given(
        hil: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    hil.makepyfile("def test_name(rig_file):\n    assert rig_file.name == 'mini'\n")
    monkeypatch.setenv("SHOECTL_RIG", str(hil.path / "rig.toml"))
    hil.runpytest().assert_outcomes(passed=1)


def test_a_real_hardware_rig_in_use_stops_the_run(hil: pytest.Pytester):
    lock = hil.path / "rig.lock"
    hil.makefile(".toml", bench=f'[rig]\nname = "bench"\nreal_hardware = true\n'
                                f'lock_file = "{lock}"\n')
    hil.makepyfile("def test_any(table):\n    pass\n")
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        result = hil.runpytest("--rig", "bench.toml")
    result.stdout.fnmatch_lines(["*rig 'bench' is in use*"])
    assert result.ret == 3


def test_a_bad_rig_file_is_a_usage_error_naming_the_key(hil: pytest.Pytester):
    hil.makefile(".toml", bad='[rig]\nname = "x"\nfeaturs = []\n')
    hil.makepyfile("def test_any(table):\n    pass\n")
    result = hil.runpytest("--rig", "bad.toml")
    result.stderr.fnmatch_lines(["*rig file bad.toml: [[]rig[]] featurs: unknown key*"])


def test_a_misspelt_rig_setting_is_a_usage_error_naming_the_key(hil: pytest.Pytester):
    hil.makefile(".toml", bad='[rig]\nname = "x"\n[rig.settings]\nretransmit_timout_ms = 10\n')
    hil.makepyfile("def test_any(table):\n    pass\n")
    result = hil.runpytest("--rig", "bad.toml")
    result.stderr.fnmatch_lines(
        ["*rig file bad.toml: [[]rig.settings[]] retransmit_timout_ms: unknown key*"])


def test_rig_settings_change_only_the_link_timing_they_name(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(HIL.parent)
    from firmware_bridge import LinkTiming
    from hil_tests.rig import rig_timing

    assert rig_timing({}) is None
    timing = rig_timing({"retransmit_timeout_ms": 10, "window": 8})
    assert timing is not None
    assert (timing.retransmit_timeout, timing.window) == (0.01, 8)
    assert timing.max_retransmit_timeout == LinkTiming().max_retransmit_timeout
