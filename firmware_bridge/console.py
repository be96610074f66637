"""A human-readable console for any board that speaks the protocol (Klipper's console idea).

    python -m firmware_bridge.console URL --catalogue FILE (--key-file KEY | --no-auth)
        [--send NAME field=value ...]

connects (session, authentication and handshake), prints the decoded traffic live with
timestamps, sends the messages given with `--send` (in order), prints link statistics
every few seconds and at the end. The board's pairing key comes from `--key-file`; a board
without a key is reached only with `--no-auth`, and every statistics line then says so.
The port is opened exclusively: while the table (or another console) holds it, the console
is refused, naming who holds it. Fields marked secret in the catalogue are masked unless
`--show-secret` is given (bench use only: the catalogue marks as secret what must never
reach a public channel, R17). `shoectl bridge console` is the same console with the table's
catalogue as the default.
"""

from __future__ import annotations

import argparse
import queue
import shlex
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from firmware_bridge.auth import PairingKey, read_key_file
from firmware_bridge.catalogue import Catalogue
from firmware_bridge.catalogue_file import load_catalogue
from firmware_bridge.client import BridgeClient
from firmware_bridge.codec import Codec
from firmware_bridge.errors import BridgeError
from firmware_bridge.handshake import Expectation
from firmware_bridge.status import TrafficRecord
from firmware_bridge.transport import DEFAULT_BAUDRATE


def build_parser(prog: str, default_catalogue: Path | None) -> argparse.ArgumentParser:
    """Return the console's argument parser."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Show a board's decoded traffic live and send it messages.",
        epilog=f"example: {prog} /dev/ttyACM0 --key-file sign.key --send show_amount update=5"
        " amount_cents=123456 --duration 2   (give the URL before --send, whose values run to"
        " the next option)",
    )
    parser.add_argument("url", help="the board's port: a device path or any pyserial URL")
    parser.add_argument("--catalogue", type=Path, default=default_catalogue,
                        required=default_catalogue is None, help="the message catalogue TOML")
    parser.add_argument("--board", help="the board kind expected (default: any in the catalogue)")
    auth = parser.add_mutually_exclusive_group(required=True)
    auth.add_argument("--key-file", type=Path, metavar="KEY",
                      help="the board's pairing key file (64 hex digits)")
    auth.add_argument("--no-auth", action="store_true",
                      help="the board has no pairing key (auth mode 'none': bench rigs only)")
    parser.add_argument("--firmware", action="append", metavar="VERSION",
                        help="accept only this firmware version (repeatable)")
    parser.add_argument("--baud", type=int, default=DEFAULT_BAUDRATE, help="line speed")
    parser.add_argument("--send", action="append", nargs="+", default=[],
                        metavar=("NAME", "FIELD=VALUE"), help="send a message (repeatable)")
    parser.add_argument("--duration", type=float,
                        help="stop after this many seconds (default: run until Ctrl-C)")
    parser.add_argument("--connect-timeout", type=float, default=3.0,
                        help="seconds allowed for session and handshake (default 3)")
    parser.add_argument("--stats-every", type=float, default=5.0,
                        help="print link statistics this often, in seconds (0: only at the end)")
    parser.add_argument("--show-secret", action="store_true",
                        help="show fields the catalogue marks secret: bench use only (R17)")
    return parser


def main(
    argv: list[str] | None = None, *, default_catalogue: Path | None = None,
    prog: str = "python -m firmware_bridge.console", out: TextIO | None = None,
) -> int:
    """Run the console; return 0, or 1 if the board could not be reached or a send failed."""
    args = build_parser(prog, default_catalogue).parse_args(argv)
    stream = out or sys.stdout
    try:
        catalogue = load_catalogue(args.catalogue)
        pairing = None if args.no_auth else read_key_file(args.key_file)
    except BridgeError as error:
        stream.write(f"error: {error}\n")
        return 1
    return Console(args, catalogue, stream, pairing).run()


class Console:
    """One console session: connect, send, watch, report."""

    def __init__(self, args: argparse.Namespace, catalogue: Catalogue, out: TextIO,
                 pairing: PairingKey | None = None) -> None:
        self._args = args
        self._out = out
        self._records: queue.Queue[TrafficRecord] = queue.Queue()
        expect = Expectation(args.board, frozenset(args.firmware) if args.firmware else None)
        self._client = BridgeClient(
            args.url, catalogue, expect, baudrate=args.baud, reveal_secrets=args.show_secret,
            pairing=pairing,
        )
        self._client.subscribe_traffic(self._records.put)

    def run(self) -> int:
        """Connect, send, watch until the duration ends or Ctrl-C; return the exit status."""
        if self._args.show_secret:
            self._say("WARNING: secret fields are shown; never do this at a live table (R17)")
        if self._args.no_auth:
            self._say("WARNING: the board is reached UNAUTHENTICATED (--no-auth): bench rigs only")
        status = 0
        try:
            self._client.connect(self._args.connect_timeout)
            self._drain()
            status = self._send_all()
            self._watch()
        except KeyboardInterrupt:
            self._say("interrupted")
        except BridgeError as error:
            self._drain()
            self._say(f"error: {error}")
            status = 1
        finally:
            self._client.close()
            self._drain()
            self._say(f"stats: {self._client.stats().summary()}")
        return status

    def _send_all(self) -> int:
        codec = Codec(self._client.board)
        status = 0
        for name, *assignments in self._args.send:
            try:
                fields = codec.parse_fields(name, assignments)
                self._client.send(name, **fields)
            except BridgeError as error:
                self._say(f"error: cannot send {shlex.join([name, *assignments])}: {error}")
                status = 1
        return status

    def _watch(self) -> None:
        duration, every = self._args.duration, self._args.stats_every
        start = next_stats = time.monotonic()
        while duration is None or time.monotonic() - start < duration:
            self._drain(wait=0.1)
            if every > 0 and time.monotonic() - next_stats >= every:
                next_stats = time.monotonic()
                self._say(f"stats: {self._client.stats().summary()}")

    def _drain(self, wait: float = 0.0) -> None:
        try:
            record = self._records.get(timeout=wait) if wait else self._records.get_nowait()
        except queue.Empty:
            return
        while True:
            self._out.write(f"{_stamp()} {record.direction.value} {record.text}\n")
            try:
                record = self._records.get_nowait()
            except queue.Empty:
                break
        self._out.flush()

    def _say(self, text: str) -> None:
        self._out.write(f"{_stamp()} {text}\n")
        self._out.flush()


def _stamp() -> str:
    return datetime.now(tz=UTC).astimezone().strftime("%H:%M:%S.%f")[:-3]


if __name__ == "__main__":
    sys.exit(main())
