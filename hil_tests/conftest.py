"""The shoectl HIL pytest plugin (`hil_tests/plugin.py`): --rig, needs(...), the table strategy."""

from hil_tests.floor_run_rig import floor  # noqa: F401 - the linked floor's fixture
from hil_tests.plugin import (  # noqa: F401 - re-exported hooks and fixtures for pytest
    _needs,
    pytest_addoption,
    pytest_configure,
    pytest_report_header,
    rig,
    rig_file,
    rig_lock,
    strategy,
    table,
)
