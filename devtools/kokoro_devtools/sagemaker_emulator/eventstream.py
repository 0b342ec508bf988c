"""The AWS event-stream message framing: encode, and an incremental decoder that reports bad input.

A message is a 12-byte prelude (total length, headers length, CRC32 of those 8 bytes), the headers,
the payload and a CRC32 of everything before it (``zlib.crc32``). Header values are typed; only the
types the SageMaker stream uses are written, but every type is read so that no valid message is
refused.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

PRELUDE = struct.Struct(">III")
MAX_MESSAGE = 16 * 1024 * 1024  # the event-stream format's limit on one message
MAX_HEADERS = 128 * 1024
_FIXED = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}  # value type -> width; 6 and 7 carry a 2-byte length
Headers = dict[str, "str | bytes | int | bool"]


class MalformedMessage(ValueError):
    """The bytes are not a valid event-stream message (checksum, length or header encoding)."""


@dataclass(frozen=True)
class Message:
    headers: Headers
    payload: bytes


def _header(name: str, value: str | bytes | int) -> bytes:
    raw_name = name.encode()
    if isinstance(value, str):
        raw = value.encode()
        return bytes([len(raw_name)]) + raw_name + b"\x07" + struct.pack(">H", len(raw)) + raw
    if isinstance(value, bytes):
        return bytes([len(raw_name)]) + raw_name + b"\x06" + struct.pack(">H", len(value)) + value
    return bytes([len(raw_name)]) + raw_name + b"\x08" + struct.pack(">q", value)  # a timestamp, ms


def encode(headers: dict[str, str | bytes | int], payload: bytes) -> bytes:
    raw_headers = b"".join(_header(name, value) for name, value in headers.items())
    total = PRELUDE.size + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + raw_headers + payload
    return body + struct.pack(">I", zlib.crc32(body))


def _decode_headers(raw: bytes) -> Headers:
    headers: Headers = {}
    at = 0
    try:
        while at < len(raw):
            name_len = raw[at]
            name = raw[at + 1 : at + 1 + name_len].decode()
            kind = raw[at + 1 + name_len]
            at += 2 + name_len
            if kind in (0, 1):
                headers[name] = kind == 0
            elif kind in (6, 7):
                (size,) = struct.unpack_from(">H", raw, at)
                value = raw[at + 2 : at + 2 + size]
                if len(value) != size:
                    raise MalformedMessage("a header value runs past the headers")
                headers[name] = value.decode() if kind == 7 else value
                at += 2 + size
            elif kind in _FIXED:
                width = _FIXED[kind]
                value = raw[at : at + width]
                if len(value) != width:
                    raise MalformedMessage("a header value runs past the headers")
                headers[name] = value if kind == 9 else int.from_bytes(value, "big", signed=True)
                at += width
            else:
                raise MalformedMessage(f"unknown header value type {kind}")
    except (IndexError, struct.error, UnicodeDecodeError) as err:
        raise MalformedMessage(f"malformed headers: {err}") from err
    return headers


class Decoder:
    """Feed bytes as they arrive; complete messages come out. Raises :class:`MalformedMessage`."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Message]:
        self._buffer += data
        messages = []
        while len(self._buffer) >= PRELUDE.size:
            total, headers_len, prelude_crc = PRELUDE.unpack_from(self._buffer)
            if zlib.crc32(self._buffer[:8]) != prelude_crc:
                raise MalformedMessage("prelude checksum mismatch")
            if not PRELUDE.size + headers_len + 4 <= total <= MAX_MESSAGE or headers_len > MAX_HEADERS:
                raise MalformedMessage(f"impossible lengths: message {total} bytes, headers {headers_len}")
            if len(self._buffer) < total:
                break
            frame = bytes(self._buffer[:total])
            del self._buffer[:total]
            if zlib.crc32(frame[:-4]) != int.from_bytes(frame[-4:], "big"):
                raise MalformedMessage("message checksum mismatch")
            raw_headers = frame[PRELUDE.size : PRELUDE.size + headers_len]
            messages.append(Message(_decode_headers(raw_headers), frame[PRELUDE.size + headers_len : -4]))
        return messages

    def finish(self) -> None:
        """The input ended: bytes left over are a truncated message."""
        if self._buffer:
            kind = "prelude" if len(self._buffer) < PRELUDE.size else "message"
            raise MalformedMessage(f"truncated {kind}: the stream ended {len(self._buffer)} bytes into it")
