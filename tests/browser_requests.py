"""Requests as a web page makes them, on a real socket: any ``Host`` (a DNS-rebound page still says its own
name) and any ``Origin``, including a WebSocket handshake, which client libraries do not let a test forge."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlsplit

HANDSHAKE_KEY = "dGhlIHNhbXBsZSBub25jZQ=="  # RFC 6455's example key: any 16 bytes, base64


async def handshake(url: str, path: str, *, host: str | None = None, origin: str | None = None) -> tuple[int, dict]:
    """Ask the server at ``url`` to upgrade ``path`` to a WebSocket: (status, the JSON body of a refusal)."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host or parts.netloc}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {HANDSHAKE_KEY}",
        "Sec-WebSocket-Version: 13",
    ]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)).decode("latin-1")
        status = int(head.split()[1])
        headers = dict(line.split(": ", 1) for line in head.split("\r\n")[1:] if ": " in line)
        length = int({k.lower(): v for k, v in headers.items()}.get("content-length", "0"))
        body = await asyncio.wait_for(reader.readexactly(length), 60) if status != 101 and length else b""
    finally:
        writer.close()
    return status, json.loads(body) if body else {}


def refusal_code(body: dict) -> str | None:
    return body.get("error", {}).get("code")
