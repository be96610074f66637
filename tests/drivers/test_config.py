"""`[devices.*]` validation: every refusal names the device and the key."""

import tomllib
from pathlib import Path

import pytest

from drivers.config import (
    KEY_DIR,
    BoardTrust,
    LayoutConfig,
    SerialPortConfig,
    ShoeConfig,
    UsbPortConfig,
    parse_device,
    parse_devices,
)
from drivers.errors import DeviceConfigError

GOOD = """
[devices.shoe]
kind = "serial"
url = "spy:///dev/shoe-scanner?file=shoe.txt"
baud = 115200
timeout_ms = 800
firmware = ["2.0.3", "2.0.4"]

[devices.layout]
kind = "gpio"
lamps = { seat1 = { bet = 17, turn = 18 }, no_more_bets = 27 }
bet_sensors = { seat1 = 5 }
buttons = { no_more_bets = 13 }
key_switches = { supervisor = 19 }
debounce_ms = 25
pull = "up"

[devices.sign]
kind = "serial"
url = "/dev/jackpot-sign"
key_file = "/srv/keys/sign.key"
"""


def parse(text: str, allow_emulated: bool = False):
    return parse_devices(tomllib.loads(text)["devices"], allow_emulated=allow_emulated)


def refused(text: str, allow_emulated: bool = False) -> str:
    with pytest.raises(DeviceConfigError) as caught:
        parse(text, allow_emulated)
    return str(caught.value)


def test_a_good_table_parses_into_frozen_records():
    devices = parse(GOOD)
    trust = BoardTrust("paired", KEY_DIR / "shoe.key", ("2.0.3", "2.0.4"))
    assert devices.shoe == ShoeConfig("shoe", "serial",
                                      SerialPortConfig("spy:///dev/shoe-scanner?file=shoe.txt"),
                                      800, trust=trust)
    assert str(KEY_DIR / "shoe.key") == "/etc/shoectl/keys/shoe.key"  # the role names the key
    assert isinstance(devices.layout, LayoutConfig)
    assert devices.layout.lamps == {"seat1.bet": 17, "seat1.turn": 18, "no_more_bets": 27}
    assert devices.layout.inputs() == {"seat1": 5, "no_more_bets": 13, "supervisor": 19}
    assert devices.layout.debounce_ms == 25
    assert devices.sign is not None
    assert devices.sign.timeout_ms == 750
    assert devices.sign.trust == BoardTrust("paired", Path("/srv/keys/sign.key"), None)
    assert devices.layout.trust == BoardTrust()  # a GPIO layout is the Pi's own
    assert devices.emulated == ()
    assert devices.unauthenticated == ()
    with pytest.raises(AttributeError):
        devices.shoe.kind = "usb"  # type: ignore[misc, union-attr]


def test_usb_shoe_reads_ids():
    devices = parse('[devices.shoe]\nkind = "usb"\nvid = 0x1209\npid = 0x5353\n'
                    'serial_number = "SHOE0001"\n')
    assert devices.shoe is not None
    assert devices.shoe.port == UsbPortConfig(0x1209, 0x5353, "SHOE0001")


def test_unknown_key_is_refused_by_name():
    message = refused(GOOD.replace("baud = 115200", "baudrate = 115200"))
    assert message == "[devices.shoe] baudrate: unknown key"


def test_wrong_type_is_refused_by_name():
    message = refused(GOOD.replace("timeout_ms = 800", 'timeout_ms = "800"'))
    assert message == "[devices.shoe] timeout_ms: expected an integer, got str"


def test_boolean_is_not_an_integer():
    message = refused(GOOD.replace("debounce_ms = 25", "debounce_ms = true"))
    assert message == "[devices.layout] debounce_ms: expected an integer, got a boolean"


def test_missing_required_key():
    assert refused('[devices.sign]\nkind = "serial"\n') == "[devices.sign] url: missing (required)"


def test_unknown_kind_lists_the_choices():
    message = refused('[devices.sign]\nkind = "modbus"\nurl = "x"\n')
    assert message == "[devices.sign] kind: 'modbus' is not one of serial, emulated"


def test_unknown_device_section():
    message = refused('[devices.printer]\nkind = "serial"\n')
    assert message.startswith("[devices.printer] unknown device; expected one of shoe")


@pytest.mark.parametrize("pin", [0, 1, 28, 40, -3])
def test_bad_gpio_pin_is_refused(pin: int):
    message = refused(GOOD.replace("no_more_bets = 27", f"no_more_bets = {pin}"))
    assert message == f"[devices.layout] lamps.no_more_bets: {pin} is out of range 2..27"


def test_gpio_pin_used_twice_is_refused_naming_both_uses():
    message = refused(GOOD.replace("buttons = { no_more_bets = 13 }",
                                   "buttons = { no_more_bets = 17 }"))
    assert message == ("[devices.layout] buttons.no_more_bets: pin 17 is already used by "
                       "lamps.seat1.bet")


def test_board_channels_may_repeat_across_functions_but_not_within_one():
    board = ('[devices.layout]\nkind = "serial"\nurl = "/dev/layout"\n'
             'lamps = { a = 0, b = 1 }\nbet_sensors = { a = 0 }\n')
    assert parse(board).layout is not None
    message = refused(board.replace("b = 1", "b = 0"))
    assert message == "[devices.layout] lamps.b: channel 0 is already used by lamps.a"


def test_input_names_must_be_unique_across_inputs():
    message = refused(GOOD.replace("key_switches = { supervisor = 19 }",
                                   "key_switches = { seat1 = 19 }"))
    assert message == "[devices.layout] key_switches.seat1: name also used in bet_sensors"


def test_gpio_only_keys_are_unknown_on_a_board():
    message = refused('[devices.layout]\nkind = "serial"\nurl = "/dev/l"\nlamps = { a = 0 }\n'
                      'debounce_ms = 5\n')
    assert message == "[devices.layout] debounce_ms: unknown key"


@pytest.mark.parametrize("section", ["shoe", "layout", "sign"])
def test_emulated_kind_without_the_flag_is_refused(section: str):
    text = f'[devices.{section}]\nkind = "emulated"\n'
    if section == "layout":
        text += "lamps = { a = 0 }\n"
    message = refused(text)
    assert message == (f"[devices.{section}] kind: 'emulated' needs the explicit "
                       "--allow-emulated flag")


def test_emulated_kind_with_the_flag_is_listed_as_emulated():
    devices = parse('[devices.shoe]\nkind = "emulated"\ndecks = 8\ndeck = "spanish"\nseed = 7\n'
                    '[devices.layout]\nkind = "emulated-gpio"\nlamps = { a = 4 }\n',
                    allow_emulated=True)
    assert devices.emulated == ("shoe", "layout")
    assert devices.shoe is not None
    assert devices.shoe.emulation is not None
    assert devices.shoe.emulation.decks == 8
    assert devices.shoe.emulation.deck == "spanish"


def test_emulated_shoe_checks_its_keys():
    message = refused('[devices.shoe]\nkind = "emulated"\ndecks = 3\n', allow_emulated=True)
    assert message == "[devices.shoe] decks: 3 is not one of 1, 2, 4, 5, 6, 8"
    message = refused('[devices.shoe]\nkind = "emulated"\npenetration = 0.75\n',
                      allow_emulated=True)
    assert message == "[devices.shoe] penetration: expected an integer, got float"
    message = refused('[devices.shoe]\nkind = "emulated"\npenetration = 100\n',
                      allow_emulated=True)
    assert message == "[devices.shoe] penetration: 100 is out of range 10..95"


def test_script_file_is_read(tmp_path):
    script = tmp_path / "shoe.txt"
    script.write_text("AS KH\n7D\n")
    device = parse_device("shoe", {"kind": "emulated", "script_file": str(script)},
                          allow_emulated=True)
    assert isinstance(device, ShoeConfig)
    assert device.emulation is not None
    assert device.emulation.script == ("AS", "KH", "7D")


def test_unreadable_script_file_names_the_key(tmp_path):
    with pytest.raises(DeviceConfigError,
                       match=r"^\[devices.shoe\] script_file: .*none: cannot read"):
        parse_device("shoe", {"kind": "emulated", "script_file": str(tmp_path / "none")},
                     allow_emulated=True)


def test_bad_baud_rate():
    message = refused(GOOD.replace("baud = 115200", "baud = 115201"))
    assert message.startswith("[devices.shoe] baud: 115201 is not one of 9600")


def test_config_error_is_a_value_error():
    with pytest.raises(ValueError, match=r"^\[devices.sign\] kind: expected a string"):
        parse('[devices.sign]\nkind = 3\n')


def test_a_bench_board_without_a_key_is_listed_as_unauthenticated():
    devices = parse('[devices.sign]\nkind = "serial"\nurl = "/dev/s"\nauth = "none"\n')
    assert devices.sign is not None
    assert devices.sign.trust == BoardTrust("none", None, None)
    assert devices.unauthenticated == ("sign",)


@pytest.mark.parametrize(("extra", "message"), [
    ('auth = "maybe"', "auth: 'maybe' is not one of paired, none"),
    ('auth = "none"\nkey_file = "/k"', 'key_file: not used with auth = "none"'),
    ("firmware = []", 'firmware: list at least one accepted version, e.g. ["2.0.3"]'),
    ('firmware = ["1.0", "1.0"]', "firmware: a version is listed twice"),
    ('firmware = ["1.0", 2]', "firmware: 2 is not a version of 1 to 32 printable ASCII characters"),
    ('firmware = "1.0"', "firmware: expected an array, got str"),
])
def test_a_bad_trust_key_is_refused_by_name(extra: str, message: str):
    assert refused(f'[devices.sign]\nkind = "serial"\nurl = "/dev/s"\n{extra}\n') == (
        f"[devices.sign] {message}")


def test_an_emulated_board_takes_no_key_file_but_may_list_firmware():
    message = refused('[devices.sign]\nkind = "emulated"\nkey_file = "/k"\n',
                      allow_emulated=True)
    assert message.startswith("[devices.sign] key_file: an emulated board gets a fresh key")
    sign = parse('[devices.sign]\nkind = "emulated"\nfirmware = ["emulated-1.0"]\n',
                 allow_emulated=True).sign
    assert sign is not None
    assert sign.trust == BoardTrust("paired", None, ("emulated-1.0",))


@pytest.mark.parametrize("kind", ["file", "folder", "video"])
def test_a_camera_of_recorded_frames_needs_the_flag_and_counts_as_emulated(kind: str):
    text = f'[devices.camera]\nkind = "{kind}"\npath = "x"\n'
    with pytest.raises(DeviceConfigError, match=rf"kind: '{kind}' needs the explicit "
                                                "--allow-emulated flag"):
        parse_devices(tomllib.loads(text)["devices"], allow_emulated=False,
                      camera_kinds=("v4l2", kind))
    devices = parse_devices(tomllib.loads(text)["devices"], allow_emulated=True,
                            camera_kinds=("v4l2", kind))
    assert devices.emulated == ("camera",)
