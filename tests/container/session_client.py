"""A test's side of the speech session: connect, read events until a condition, count audio."""

from __future__ import annotations

import asyncio

from speech_protocol.http.urls import server_urls
from speech_protocol.server_events import Audio, End, Error, StreamDecoder


def ws_url(base: str) -> str:
    return server_urls(base).session


async def read_until(ws, decoder: StreamDecoder, done, raw: list | None = None, timeout: float = 60) -> list:
    """Collect events until ``done(events)`` is true, each frame within ``timeout`` seconds; optionally keep
    the raw frames."""
    events: list = []
    while not done(events):
        frame = await asyncio.wait_for(ws.recv(), timeout=timeout)
        if raw is not None:
            raw.append(frame.encode() if isinstance(frame, str) else frame)
        events += decoder.feed(frame)
    return events


def ends(n: int):
    return lambda events: sum(isinstance(e, (End, Error)) for e in events) >= n


def ended(utterance_id: str):
    """True once the utterance with this id has its End event."""
    return lambda events: any(isinstance(e, End) and e.id == utterance_id for e in events)


def pcm_bytes(events, utterance_id: str) -> int:
    return sum(len(e.pcm) for e in events if isinstance(e, Audio) and e.id == utterance_id)
