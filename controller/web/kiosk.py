"""The kiosk's launcher: its token stays in systemd's credentials, its browser gets a code.

`shoectl console kiosk -- COMMAND...` (the kiosk unit's `ExecStart`) reads the device token
from the unit's credentials directory (`$CREDENTIALS_DIRECTORY/kiosk-token`, copied there by
`LoadCredential=`, readable by the unit alone), asks the console on loopback for a one-time
login code (`POST /api/login/code` with `Authorization: Bearer TOKEN`: good once, for 30 s),
and replaces itself with COMMAND, the browser, in which `{url}` becomes the console's address
with `#code=CODE`. The page trades the code for its session cookie at once. So the token is
in no process's command line and no file but the credential; the browser's command line
carries only a code that is used up before anyone could read it to any purpose.
"""

from __future__ import annotations

import http.client
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

DEFAULT_CONSOLE: Final = "http://127.0.0.1:8420/"
DEFAULT_CREDENTIAL: Final = "kiosk-token"
"""The credential's name in the kiosk unit's `LoadCredential=kiosk-token:...`."""
URL_FIELD: Final = "{url}"
"""Where the page's address goes in the browser's command."""
WAIT_S: Final = 120.0
"""How long the launcher waits for the table's console to answer (the table starting)."""


class KioskError(RuntimeError):
    """The launcher cannot open the console (one line: what and where)."""


def read_token(name: str = DEFAULT_CREDENTIAL, environ: dict[str, str] | None = None) -> str:
    """The device token from the unit's credentials directory.

    Raises:
        KioskError: No credentials directory, no such credential, or not a token.
    """
    environ = dict(os.environ) if environ is None else environ
    directory = environ.get("CREDENTIALS_DIRECTORY")
    if not directory:
        raise KioskError("no $CREDENTIALS_DIRECTORY: run by the kiosk unit, whose "
                         f"LoadCredential={name}:... hands over the token")
    path = Path(directory) / name
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise KioskError(f"{path}: cannot read the kiosk's token ({exc.strerror})") from None
    if not token or any(c.isspace() for c in token):
        raise KioskError(f"{path}: not a token (one line, `shoectl console token kiosk`)")
    return token


def request_code(console: str, token: str, timeout: float = 10.0) -> str:
    """A one-time login code from the console at `console` for the device of `token`.

    Raises:
        KioskError: Refused (the status and the console's reason).
        OSError: The console does not answer (yet).
    """
    parts = urlsplit(console)
    if parts.scheme != "http" or parts.hostname is None:
        raise KioskError(f"--console {console}: expected http://HOST:PORT/ (the console on "
                         "loopback)")
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    try:
        conn.request("POST", "/api/login/code", body=b"{}",
                     headers={"Authorization": f"Bearer {token}",
                              "Content-Type": "application/json"})
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
    finally:
        conn.close()
    if response.status != 200:
        raise _RefusedError(response.status, text)
    try:
        code = json.loads(text)["code"]
    except (ValueError, KeyError, TypeError):
        raise KioskError(f"{console}: the login code's answer is not "
                         f"{{\"code\": ...}}: {text[:80]!r}") from None
    if not isinstance(code, str):
        raise KioskError(f"{console}: the login code is not a string")
    return code


class _RefusedError(KioskError):
    def __init__(self, status: int, text: str) -> None:
        try:
            reason = json.loads(text).get("error", text)
        except (ValueError, AttributeError):
            reason = text
        super().__init__(f"the console refused a login code: {status} {str(reason)[:200]}")
        self.status = status


def wait_for_code(console: str, token: str, wait_s: float = WAIT_S,
                  sleep: Callable[[float], None] = time.sleep,
                  clock: Callable[[], float] = time.monotonic) -> str:
    """`request_code`, again each second while the console is not up (refused, 503).

    Raises:
        KioskError: Refused for good (401, 403), or still not answering after `wait_s`.
    """
    until = clock() + wait_s
    while True:
        try:
            return request_code(console, token)
        except _RefusedError as exc:
            if exc.status not in (429, 503) or clock() >= until:
                raise
        except OSError as exc:
            if clock() >= until:
                raise KioskError(f"{console}: the console did not answer in {wait_s:.0f} s "
                                 f"({exc})") from None
        sleep(1.0)


def browser_command(command: Sequence[str], console: str, code: str) -> list[str]:
    """COMMAND with `{url}` replaced by the console's address carrying the code.

    Raises:
        KioskError: No argument holds `{url}`.
    """
    if not any(URL_FIELD in argument for argument in command):
        raise KioskError(f"the browser's command names no {URL_FIELD} (where the page goes)")
    url = f"{console}#code={code}"
    return [argument.replace(URL_FIELD, url) for argument in command]


def launch(command: Sequence[str], console: str = DEFAULT_CONSOLE,
           credential: str = DEFAULT_CREDENTIAL, wait_s: float = WAIT_S) -> None:
    """Read the token, get a code, become the browser (does not return).

    Raises:
        KioskError: As `read_token`, `wait_for_code`, `browser_command`; or COMMAND cannot
            be run.
    """
    if not command:
        raise KioskError("no browser command after --")
    token = read_token(credential)
    argv = browser_command(command, console, wait_for_code(console, token, wait_s))
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        raise KioskError(f"{argv[0]}: cannot run it ({exc.strerror})") from None
