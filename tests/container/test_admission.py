"""Admission control on a real server with its measured capacity: past it, new sessions are refused
clearly, and the listeners already served keep playing without a stall."""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx
import pytest
import websockets
from servers import SERVER_START_S, model_server_process

from kokoro_bench.measuring.timeline import AudioArrival, play
from speech_protocol.messages import (
    SERVER_BUSY,
    Audio,
    Close,
    End,
    Error,
    Ready,
    StreamDecoder,
    Synthesize,
    encode_client_message,
)
from speech_protocol.transport import TtsBusy
from speech_protocol.tts_session import TtsSession
from speech_protocol.websocket import WebSocketConnector, session_url

SENTENCES = [
    "The museum opens at nine in the morning.",
    "Tickets are sold at the door and online.",
    "The garden behind it is free to visit all year.",
]
STALL_MARGIN_S = 0.3  # a few of the server's audio chunks; far below what an over-admitted server stalls (seconds)


@pytest.fixture(scope="module")
def server_url():
    # No --max-sessions: the capacity is measured.
    with model_server_process("onnx", timeout_s=SERVER_START_S) as url:
        yield url


def capacity(url: str) -> int:
    status = httpx.get(f"{url}/ping", timeout=10).json()
    assert status["status"] == "ready" and status["listeners"] == 0
    return status["capacity"]


async def first_event(ws) -> object:
    decoder = StreamDecoder()
    while True:
        events = decoder.feed(await asyncio.wait_for(ws.recv(), 30))
        if events:
            return events[0]


async def open_sessions(url: str, count: int, stack: contextlib.AsyncExitStack) -> list:
    sessions = []
    for _ in range(count):
        ws = await stack.enter_async_context(websockets.connect(session_url(url), max_size=None))
        assert isinstance(await first_event(ws), Ready)
        sessions.append(ws)
    return sessions


async def speak_and_time(ws) -> list[AudioArrival]:
    """Send every sentence at once, then time each audio chunk's arrival as a player would receive it."""
    for i, text in enumerate(SENTENCES):
        await ws.send(encode_client_message(Synthesize(text, id=f"s{i}")))
    await ws.send(encode_client_message(Close()))
    decoder, arrivals, ended = StreamDecoder(), [], 0
    while ended < len(SENTENCES):
        frame = await asyncio.wait_for(ws.recv(), 60)
        for event in decoder.feed(frame):
            if isinstance(event, Audio):
                arrivals.append(AudioArrival(time.perf_counter(), event.pcm))
            ended += isinstance(event, End)
            assert not isinstance(event, Error), event
    return arrivals


async def test_past_capacity_new_sessions_are_refused_and_listeners_never_stall(server_url: str) -> None:
    async with websockets.connect(session_url(server_url), max_size=None) as alone:
        assert isinstance(await first_event(alone), Ready)
        solo = play(await speak_and_time(alone)).stall_s
    await asyncio.sleep(0.5)  # the lone session's share is released when its handler returns
    limit = capacity(server_url)
    assert limit >= 1
    async with contextlib.AsyncExitStack() as stack:
        admitted = await open_sessions(server_url, limit, stack)
        async with websockets.connect(session_url(server_url)) as refused:
            busy = await first_event(refused)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(refused.recv(), 10)
        assert isinstance(busy, Error) and busy.code == SERVER_BUSY
        assert busy.retry_after_s and busy.retry_after_s > 0 and "retry in" in busy.message
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.post(f"{server_url}/invocations", json={"text": "Hello."})
            ping = await client.get(f"{server_url}/ping")
        assert answer.status_code == 503 and answer.json()["error"]["code"] == SERVER_BUSY
        assert int(answer.headers["retry-after"]) >= 1
        assert ping.status_code == 200  # busy is healthy

        arrivals = await asyncio.gather(*(speak_and_time(ws) for ws in admitted))
    stalls = [play(heard).stall_s for heard in arrivals]
    # Every admitted listener is served as well as a lone one was a moment ago: zero stall on a machine
    # faster than real time. When the shared machine itself is momentarily slower than real time even a
    # lone listener stalls, and no admission policy can help that; the margin absorbs scheduling jitter.
    assert max(stalls) <= solo + STALL_MARGIN_S, (stalls, solo)


async def test_agent_waits_out_a_busy_server_then_reports_tts_busy(server_url: str) -> None:
    limit = capacity(server_url)
    async with contextlib.AsyncExitStack() as stack:
        held = await open_sessions(server_url, limit, stack)
        with pytest.raises(TtsBusy) as busy:
            async with TtsSession(WebSocketConnector(server_url), timeout_s=1.5):
                pass
        assert busy.value.code == "tts_busy" and "capacity" in busy.value.message

        async def free_a_slot() -> None:
            await asyncio.sleep(1.0)
            await held[0].close()

        freeing = asyncio.create_task(free_a_slot())
        async with TtsSession(WebSocketConnector(server_url), timeout_s=20) as session:
            assert session.ready  # admitted on a later try, once a listener left
        await freeing
