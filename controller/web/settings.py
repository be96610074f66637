"""`[console]`: where the dealer's console and the pit view listen, and the names they answer to.

    [console]
    listen = "127.0.0.1:8420"   # the dealer's console; "" turns it off
    pit_listen = ""             # the pit view, off by default, e.g. "0.0.0.0:8421"
    hosts = ["table7.casino.lan"]  # more names a browser may use for them (`Host`)
    commands_per_s = 20         # changes one client address may send a second (twice at once)
    reads_per_s = 50            # reads one client address may ask for a second (4 times at once)
    # deprecated: the users of `shoectl console user add` log in to the pit view
    pit_user = "supervisor"
    pit_credential = "scrypt$16384$8$1$<salt hex>$<hash hex>"  # `shoectl console hash-password`

The console binds to localhost unless the file says otherwise. A request's `Host` must name
one of `hosts`, the listen addresses' hosts, `localhost` or `127.0.0.1` (DNS rebinding: a
page of another site cannot reach the console under its own name). Who may log in is the
credentials file beside the configuration (`controller.web.accounts`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from confkeys import Section
from controller.rules.errors import ConfigError, config_error
from controller.web.credentials import parse_credential

DEFAULT_LISTEN: Final = "127.0.0.1:8420"
DEFAULT_HOSTS: Final = ("localhost", "127.0.0.1", "::1")
HOST_PATTERN: Final = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|[0-9a-fA-F:]+")

Address = tuple[str, int]


@dataclass(frozen=True, slots=True)
class ConsoleSettings:
    """Validated `[console]`.

    Attributes:
        listen: The dealer's console (None: off).
        pit_listen: The pit view (None: off).
        pit_user: The deprecated pit view user's name.
        pit_credential: Its hashed password ("": none; the users of the credentials file).
        hosts: The names `Host` may give besides the listen hosts, `localhost`, `127.0.0.1`.
        commands_per_s: Each client address's changes a second (a burst of twice as many).
        reads_per_s: Each client address's reads a second (a burst of four times as many).
    """

    listen: Address | None = ("127.0.0.1", 8420)
    pit_listen: Address | None = None
    pit_user: str = "supervisor"
    pit_credential: str = ""
    hosts: tuple[str, ...] = ()
    commands_per_s: int = 20
    reads_per_s: int = 50

    def allowed_hosts(self) -> frozenset[str]:
        """Every name a request's `Host` may give (without the port), lower case."""
        listening = [address[0] for address in (self.listen, self.pit_listen) if address]
        return frozenset(h.lower() for h in (*DEFAULT_HOSTS, *listening, *self.hosts))


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
        ConfigError: An unknown key, a bad address, a bad host or a malformed credential.
    """
    reader = Section("console", data, error=config_error)
    listen = parse_address("console", "listen", reader.text("listen", DEFAULT_LISTEN))
    pit = parse_address("console", "pit_listen", reader.text("pit_listen", ""))
    user = reader.text("pit_user", "supervisor")
    credential = reader.text("pit_credential", "")
    hosts = reader.raw("hosts")
    commands = reader.integer("commands_per_s", 20, minimum=1, maximum=100_000)
    reads = reader.integer("reads_per_s", 50, minimum=1, maximum=100_000)
    reader.finish()
    if hosts is None:
        hosts = []
    if not isinstance(hosts, list) or not all(isinstance(h, str) and HOST_PATTERN.fullmatch(h)
                                              for h in hosts):
        raise ConfigError(f"[console] hosts: expected a list of host names or addresses "
                          f"(no port), got {hosts!r}")
    if credential:
        parse_credential("console", "pit_credential", credential)
    if listen is not None and pit is not None and listen == pit:
        raise ConfigError("[console] pit_listen: the pit view needs its own address, not "
                          "the console's")
    return ConsoleSettings(listen, pit, user, credential, tuple(hosts), commands, reads)
