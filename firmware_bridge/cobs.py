"""Consistent Overhead Byte Stuffing: removes every 0x00 from a block so 0x00 can end frames.

The encoding is the classic one (Cheshire and Baker, 1999): the block is cut at each zero;
each piece of up to 254 non-zero bytes is preceded by a code byte equal to its length plus
one, and a code byte of 0xFF means "254 bytes follow and no zero was cut here". Encoding a
block of n bytes costs 1 byte plus 1 per 254; our frames (at most 247 bytes) always cost 1.
"""

from __future__ import annotations

from typing import Final

_MAX_RUN: Final = 254  # data bytes that one code byte can cover


class CobsDecodeError(ValueError):
    """The encoded block is not valid COBS (a zero inside it, or a code byte overrunning it)."""


def encode(data: bytes) -> bytes:
    """Return the COBS encoding of `data`, which contains no 0x00 byte.

    Args:
        data: any bytes, zeros included.

    Returns:
        The encoded block, without the 0x00 delimiter that ends a frame on the wire.
    """
    out = bytearray()
    pieces = data.split(b"\x00")
    for number, piece in enumerate(pieces, start=1):
        while len(piece) >= _MAX_RUN:
            out.append(0xFF)
            out += piece[:_MAX_RUN]
            piece = piece[_MAX_RUN:]
            if not piece and number == len(pieces):
                return bytes(out)  # the block ends on a full run: no empty run after it
        out.append(len(piece) + 1)
        out += piece
    return bytes(out)


def decode(block: bytes) -> bytes:
    """Return the data that `encode` turned into `block`.

    Args:
        block: one encoded block, without its delimiter.

    Returns:
        The original bytes.

    Raises:
        CobsDecodeError: if `block` contains 0x00 or a code byte points past its end.
    """
    out = bytearray()
    index, end = 0, len(block)
    while index < end:
        code = block[index]
        if code == 0:
            raise CobsDecodeError(f"zero byte at offset {index}")
        run_end = index + code
        if run_end > end:
            raise CobsDecodeError(f"code byte 0x{code:02X} at offset {index} overruns the block")
        run = block[index + 1 : run_end]
        if 0 in run:
            raise CobsDecodeError(f"zero byte inside the run starting at offset {index}")
        out += run
        index = run_end
        if code != 0xFF and index < end:
            out.append(0)
    return bytes(out)
