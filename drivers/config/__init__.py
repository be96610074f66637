"""The `[devices.*]` sections of the table configuration, validated into frozen records.

Each section's name is the device's role (`shoe`, `layout`, `sign`, `camera`, `wheel`) and its
`kind` picks the implementation. `parse_devices` (module `devices`) reads them all with
`confkeys.Section` in the device wording; every refusal is a `DeviceConfigError` naming the
section and the key. Each role's schema is a module of its own (`shoe`, `layout`, `sign`,
`wheel`; the camera's keys belong to `drivers.camera`); `boards` holds what the boards share
(port, timeout, pairing key, firmware) and `roles` the roles and the stand-in kinds.
"""

from confkeys import Section
from drivers.config.boards import (
    AUTH_MODES,
    BAUD_RATES,
    DEFAULT_TIMEOUT_MS,
    KEY_DIR,
    MAX_FIRMWARE_TEXT,
    BoardTrust,
    SerialPortConfig,
    UsbPortConfig,
    read_serial_port,
    read_timeout,
    read_trust,
    read_usb_port,
)
from drivers.config.devices import (
    KINDS,
    CameraConfig,
    DeviceConfig,
    DevicesConfig,
    device_section,
    parse_device,
    parse_devices,
)
from drivers.config.layout import (
    BOARD_KEY_POSITIONS,
    GPIO_PINS,
    KEY_NORMAL,
    LayoutConfig,
    read_layout,
)
from drivers.config.roles import EMULATED, RECORDED_CAMERA_KINDS, Role, is_emulated, stands_in
from drivers.config.shoe import (
    DECK_COUNTS,
    DECK_TYPES,
    ShoeConfig,
    ShoeEmulation,
    read_shoe,
    read_shoe_emulation,
)
from drivers.config.sign import SignConfig, read_sign
from drivers.config.wheel import (
    WHEEL_BAUD_RATES,
    WHEEL_DIALECTS,
    LineSettings,
    WheelConfig,
    WheelEmulation,
    read_wheel,
)

__all__ = ["AUTH_MODES", "BAUD_RATES", "BOARD_KEY_POSITIONS", "BoardTrust", "CameraConfig",
           "DECK_COUNTS", "DECK_TYPES", "DEFAULT_TIMEOUT_MS", "DeviceConfig", "DevicesConfig",
           "EMULATED", "GPIO_PINS", "KEY_DIR", "KEY_NORMAL", "KINDS", "LayoutConfig",
           "LineSettings", "MAX_FIRMWARE_TEXT", "RECORDED_CAMERA_KINDS", "Role", "Section",
           "SerialPortConfig", "ShoeConfig", "ShoeEmulation", "SignConfig", "UsbPortConfig",
           "WHEEL_BAUD_RATES", "WHEEL_DIALECTS", "WheelConfig", "WheelEmulation", "device_section",
           "is_emulated", "parse_device", "parse_devices", "read_layout", "read_serial_port",
           "read_shoe", "read_shoe_emulation", "read_sign", "read_timeout", "read_trust",
           "read_usb_port", "read_wheel", "stands_in"]
