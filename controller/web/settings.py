"""`[console]`: where the dealer's console and the pit view listen, and the pit's credential.

    [console]
    listen = "127.0.0.1:8420"   # the dealer's console; "" turns it off
    pit_listen = ""             # the pit view, off by default, e.g. "0.0.0.0:8421"
    pit_user = "supervisor"
    pit_credential = "scrypt$16384$8$1$<salt hex>$<hash hex>"  # `shoectl console hash-password`

The console binds to localhost unless the file says otherwise; the pit view needs a
credential, stored hashed (never the password itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.rules.errors import ConfigError
from controller.rules.reader import SectionReader
from controller.web.credentials import parse_credential

DEFAULT_LISTEN: Final = "127.0.0.1:8420"

Address = tuple[str, int]


@dataclass(frozen=True, slots=True)
class ConsoleSettings:
    """Validated `[console]`.

    Attributes:
        listen: The dealer's console (None: off).
        pit_listen: The pit view (None: off).
        pit_user: The pit view's user name.
        pit_credential: The hashed password the pit view checks ("" when it is off).
    """

    listen: Address | None = ("127.0.0.1", 8420)
    pit_listen: Address | None = None
    pit_user: str = "supervisor"
    pit_credential: str = ""


def parse_address(section: str, key: str, text: str) -> Address | None:
    """`"host:port"` -> (host, port); "" -> None.

    Raises:
        ConfigError: Not HOST:PORT with a port from 1 to 65535, naming section and key.
    """
    if text == "":
        return None
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"[{section}] {key}: expected \"HOST:PORT\" (port 0-65535; 0 takes "
                          f"any free port) or \"\", got {text!r}")
    return host.strip("[]"), int(port)


def console_settings_from_mapping(data: object) -> ConsoleSettings:
    """Validate `[console]` (absent: the console on localhost, no pit view).

    Raises:
        ConfigError: An unknown key, a bad address, or a pit view without a credential.
    """
    reader = SectionReader("console", data if data is not None else {})
    listen = parse_address("console", "listen", reader.text("listen", DEFAULT_LISTEN))
    pit = parse_address("console", "pit_listen", reader.text("pit_listen", ""))
    user = reader.text("pit_user", "supervisor")
    credential = reader.text("pit_credential", "")
    reader.finish()
    if pit is not None:
        if not credential:
            raise ConfigError("[console] pit_credential: the pit view needs a credential "
                              "(make one with `shoectl console hash-password`)")
        parse_credential("console", "pit_credential", credential)
    if listen is not None and pit is not None and listen == pit:
        raise ConfigError("[console] pit_listen: the pit view needs its own address, not "
                          "the console's")
    return ConsoleSettings(listen, pit, user, credential)
