"""Which Raspberry Pi this is, and where a Pi 5's GPIO library lives in the venv.

`RPi.GPIO` cannot drive a Pi 5's GPIO (the RP1 chip); `rpi-lgpio` provides the same
`RPi.GPIO` module on top of `lgpio`, which can. The installer puts both in every arm64 venv:
`RPi.GPIO` in site-packages, `rpi-lgpio` with `lgpio` in the side folder
`pi5_gpio_folder(venv)`; the GPIO driver picks one by the board it finds at run time, so
one signed installation (or one SD-card image) serves a Pi 4 and a Pi 5 (decision 092).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

MODEL_FILE: Final = Path("/proc/device-tree/model")
"""The board's name, as the firmware's device tree gives it (NUL-terminated)."""

PI5_MODELS: Final = ("Raspberry Pi 5", "Raspberry Pi Compute Module 5")
"""Model strings of the boards whose GPIO is on the RP1 chip: "Raspberry Pi 5 Model B Rev 1.0",
"Raspberry Pi 500 Rev 1.0", "Raspberry Pi Compute Module 5 Rev 1.0"."""

PI5_GPIO_REQUIREMENT: Final = "rpi-lgpio>=0.6,<1"
"""The Pi 5's drop-in for RPi.GPIO (it pulls `lgpio` in)."""


def board_model(model_file: Path = MODEL_FILE) -> str:
    """The board's model string, or "" where there is none (not a Pi, no device tree)."""
    try:
        text = model_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text.replace("\x00", "").strip()


def is_pi5(model: str) -> bool:
    """True for a Pi 5 (or a Pi 500, a Compute Module 5): GPIO that RPi.GPIO cannot drive."""
    return model.startswith(PI5_MODELS)


def pi5_gpio_folder(venv: str | Path) -> Path:
    """The folder of a venv (or `sys.prefix`) that holds `rpi-lgpio` and `lgpio`."""
    return Path(venv) / "lib" / "pi5-gpio"
