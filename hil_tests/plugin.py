"""The hardware-in-the-loop pytest plugin: rig selection, feature markers, strategy, rig lock.

* `--rig FILE` (or the `SHOECTL_RIG` environment variable) names the rig file; the default
  is the emulated rig, `hil_tests/rigs/emulated.toml`, so the suite runs anywhere.
* `@pytest.mark.needs("sign", "fault_injection")` skips a test, saying which features are
  missing, when the rig's `features` list lacks any of them.
* The `table` fixture is the strategy: before each test it brings the rig to "idle, shoe
  loaded, link up"; if that ever fails, it marks itself broken and every later test that
  needs it is skipped with the original reason instead of failing in a cascade.
* A rig with `real_hardware = true` is held under an exclusive file lock for the whole
  session, so two runs never fight over the same boards.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hil_tests.rig import RIG_SETTINGS, Rig

RIG_ENV = "SHOECTL_RIG"
DEFAULT_RIG = Path(__file__).resolve().parent / "rigs" / "emulated.toml"


@dataclass(frozen=True, slots=True)
class RigFile:
    """A parsed rig file."""

    path: Path
    name: str
    features: frozenset[str]
    real_hardware: bool
    lock_file: Path
    devices: dict[str, Any]
    settings: dict[str, Any]


def load_rig_file(path: Path) -> RigFile:
    """Read and check a rig file; errors name the file and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise pytest.UsageError(f"rig file {path}: {exc}") from exc
    rig = data.get("rig")
    if not isinstance(rig, dict):
        raise pytest.UsageError(f"rig file {path}: missing [rig] table")
    unknown = set(rig) - {"name", "features", "real_hardware", "lock_file", "settings"}
    if unknown:
        raise pytest.UsageError(f"rig file {path}: [rig] {sorted(unknown)[0]}: unknown key")
    features = rig.get("features", [])
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise pytest.UsageError(f"rig file {path}: [rig] features: expected an array of names")
    default_lock = Path(tempfile.gettempdir()) / "shoectl-rig.lock"
    return RigFile(path=path, name=str(rig.get("name", path.stem)),
                   features=frozenset(features),
                   real_hardware=bool(rig.get("real_hardware", False)),
                   lock_file=Path(rig.get("lock_file", default_lock)),
                   devices=dict(data.get("devices", {})),
                   settings=_rig_settings(path, rig.get("settings", {})))


def _rig_settings(path: Path, settings: object) -> dict[str, Any]:
    if not isinstance(settings, dict):
        raise pytest.UsageError(f"rig file {path}: [rig] settings: expected a table")
    for key, value in settings.items():
        if key not in RIG_SETTINGS:
            raise pytest.UsageError(f"rig file {path}: [rig.settings] {key}: unknown key")
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise pytest.UsageError(
                f"rig file {path}: [rig.settings] {key}: expected a positive number")
    return dict(settings)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shoectl-hil", "shoectl hardware-in-the-loop")
    group.addoption("--rig", action="store", default=None, metavar="FILE",
                    help=f"rig file (default: ${RIG_ENV}, else hil_tests/rigs/emulated.toml)")


def pytest_report_header(config: pytest.Config) -> str:
    rig = _rig_path(config)
    return f"shoectl rig: {rig}"


def _rig_path(config: pytest.Config) -> Path:
    chosen = config.getoption("--rig") or os.environ.get(RIG_ENV)
    return Path(chosen) if chosen else DEFAULT_RIG


RIG_FILE = pytest.StashKey[RigFile]()


def pytest_configure(config: pytest.Config) -> None:
    # Read the rig file before collection, so a bad one is a usage error, not N test errors.
    config.stash[RIG_FILE] = load_rig_file(_rig_path(config))


@pytest.fixture(scope="session")
def rig_file(pytestconfig: pytest.Config) -> RigFile:
    """The selected rig file."""
    return pytestconfig.stash[RIG_FILE]


@pytest.fixture(autouse=True)
def _needs(request: pytest.FixtureRequest, rig_file: RigFile) -> None:
    for marker in request.node.iter_markers("needs"):
        missing = [feature for feature in marker.args if feature not in rig_file.features]
        if missing:
            pytest.skip(f"rig {rig_file.name!r} lacks {', '.join(missing)}")


@pytest.fixture(scope="session")
def rig_lock(rig_file: RigFile) -> Iterator[None]:
    """Hold the rig's lock file for the session when the rig is real hardware."""
    if not rig_file.real_hardware:
        yield
        return
    with rig_file.lock_file.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pytest.exit(f"rig {rig_file.name!r} is in use (lock {rig_file.lock_file})", 3)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def rig(rig_file: RigFile, rig_lock: None, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[Rig]:
    """The rig's devices (and emulators, on an emulated rig), built once per session."""
    built = Rig(rig_file.name, rig_file.devices, rig_file.features, rig_file.settings,
                workdir=tmp_path_factory.mktemp("rig"))
    try:
        yield built
    finally:
        built.close()


class Strategy:
    """Brings the rig to "idle, shoe loaded, link up"; remembers when it broke."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.broken: str | None = None

    def idle(self) -> Rig:
        """Reach the idle state, or skip if an earlier attempt broke the strategy."""
        if self.broken is not None:
            pytest.skip(f"rig strategy broken earlier: {self.broken}")
        try:
            self.rig.to_idle()
        except Exception as exc:
            self.broken = f"{type(exc).__name__}: {exc}"
            raise
        return self.rig


@pytest.fixture(scope="session")
def strategy(rig: Rig) -> Strategy:
    """The session's strategy object."""
    return Strategy(rig)


@pytest.fixture
def table(strategy: Strategy) -> Rig:
    """The rig in the idle state: every device started, links up, a fresh shoe loaded."""
    return strategy.idle()
