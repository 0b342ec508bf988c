"""Byte pipes between a TCP port and a Unix socket: how the runtime's network namespace meets this machine's.

A Unix socket is a file, and files are shared across network namespaces while ports are not; each connection
accepted on one side is spliced to a new connection on the other. Standard library only: the namespace side
runs before anything else is set up.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

Connect = Callable[[], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]
CHUNK = 64 * 1024


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Until ``reader`` ends; then half-closes ``writer``, so a request's end reaches the other side."""
    while data := await reader.read(CHUNK):
        writer.write(data)
        await writer.drain()
    if writer.can_write_eof():
        writer.write_eof()


async def splice(connect: Connect, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One accepted connection joined to a new one made by ``connect``; a side that cannot be reached (the agent
    not listening yet) closes the accepted connection, as a refused port would."""
    try:
        far_reader, far_writer = await connect()
    except OSError:
        writer.close()
        return
    try:
        await asyncio.gather(_copy(reader, far_writer), _copy(far_reader, writer))
    except OSError:
        pass  # either side reset: both close below
    finally:
        for end in (writer, far_writer):
            end.close()
            with contextlib.suppress(OSError):
                await end.wait_closed()


def to_tcp(host: str, port: int) -> Connect:
    return lambda: asyncio.open_connection(host, port)


def to_unix(path: str) -> Connect:
    return lambda: asyncio.open_unix_connection(path)
