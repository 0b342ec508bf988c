"""A test's side of the ``/ws`` conversation: a real WebSocket client that records what arrives.

Events are recorded as the JSON objects that came (tests compare the wire itself); each must also decode
into one of the agent's typed events (:func:`voice_agent.conversation.events.from_frame`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from websockets.asyncio.client import ClientConnection, connect

from voice_agent.conversation.events import from_frame
from voice_agent.conversation.messages import SESSION_ID_HEADER


@dataclass
class Received:
    """Everything one connection received, in order: JSON events as dicts, audio frames as bytes."""

    frames: list = field(default_factory=list)
    times: list = field(default_factory=list)

    def events(self, kind: str | None = None) -> list[dict]:
        return [f for f in self.frames if isinstance(f, dict) and (kind is None or f["type"] == kind)]

    def audio(self) -> list[bytes]:
        return [f for f in self.frames if isinstance(f, bytes)]


class Talk:
    def __init__(self, connection: ClientConnection):
        self.connection = connection
        self.received = Received()

    async def send(self, obj: object) -> None:
        await self.connection.send(obj if isinstance(obj, (str, bytes)) else json.dumps(obj))

    async def next(self) -> dict | bytes:
        frame = await asyncio.wait_for(self.connection.recv(), 60)
        if isinstance(frame, str):
            from_frame(frame)  # raises on anything that is not one of the typed events
        item = frame if isinstance(frame, bytes) else json.loads(frame)
        self.received.frames.append(item)
        self.received.times.append(time.monotonic())
        return item

    async def until(self, kind: str, **match: object) -> dict:
        """Read until an event of ``kind`` (with these field values) arrives; returns it."""
        while True:
            item = await self.next()
            if isinstance(item, dict) and item["type"] == kind and all(item.get(k) == v for k, v in match.items()):
                return item

    async def first_audio(self) -> bytes:
        while not isinstance(item := await self.next(), bytes):
            assert item["type"] != "turn_end", item
        return item


@contextlib.asynccontextmanager
async def talk(agent_url: str, session: str | None = None) -> AsyncIterator[Talk]:
    url = agent_url.replace("http://", "ws://") + "/ws"
    headers = {SESSION_ID_HEADER: session} if session else None
    async with connect(url, additional_headers=headers, proxy=None, max_size=None) as connection:
        yield Talk(connection)
