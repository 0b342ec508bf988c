"""Admission control on a real server with its measured capacity: past it, new sessions are refused
clearly, and the refused work takes nothing from the listeners already served.

Whether those listeners stall also depends on how fast the shared machine happens to be, which no test can
fix; so the verdict is on what admission controls, counted on the server, never on wall-clock margins:
the refused session and request render nothing, and every admitted listener gets its whole answer from
renders of its own (docs/decisions/137-test-verdicts-without-clocks.md). Zero stall at capacity is a
speed figure, measured by the benchmark's concurrency ladder (docs/benchmark.md)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import httpx
import pytest
import websockets
from servers import SERVER_START_S, model_server_process

from speech_protocol.client_messages import Close, Synthesize, encode_client_message
from speech_protocol.errors import SERVER_BUSY, TtsBusy
from speech_protocol.http.server_status import ServerStatus, read_status
from speech_protocol.server_events import Audio, End, Error, Ready, StreamDecoder
from speech_protocol.transports.part_stream import PartStream
from speech_protocol.transports.websocket import WebSocketConnector, session_url
from speech_protocol.tts_session import TtsSession

SENTENCES = [
    "The museum opens at nine in the morning.",
    "Tickets are sold at the door and online.",
    "The garden behind it is free to visit all year.",
]


@pytest.fixture(scope="module")
def server_url():
    # No --max-sessions: the capacity is measured.
    with model_server_process("onnx", timeout_s=SERVER_START_S) as url:
        yield url


def status(url: str) -> ServerStatus:
    found = read_status(url)
    assert found is not None, f"nothing answers at {url}"
    return found


def capacity(url: str) -> int:
    now = status(url)
    assert now.ready and now.listeners == 0
    return now.capacity


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


async def speak(ws) -> dict[str, int]:
    """Send every sentence at once; the audio bytes heard per sentence, once each has ended."""
    for i, text in enumerate(SENTENCES):
        await ws.send(encode_client_message(Synthesize(text, id=f"s{i}")))
    await ws.send(encode_client_message(Close()))
    decoder, heard, ended = StreamDecoder(), dict.fromkeys((f"s{i}" for i in range(len(SENTENCES))), 0), set()
    while len(ended) < len(SENTENCES):
        frame = await asyncio.wait_for(ws.recv(), 60)
        for event in decoder.feed(frame):
            assert not isinstance(event, Error), event
            if isinstance(event, Audio):
                heard[event.id] += len(event.pcm)
            elif isinstance(event, End):
                assert not event.cancelled, event
                ended.add(event.id)
    return heard


async def test_past_capacity_new_sessions_are_refused_and_take_nothing_from_the_listeners(server_url: str) -> None:
    limit = capacity(server_url)
    assert limit >= 1
    async with contextlib.AsyncExitStack() as stack:
        admitted = await open_sessions(server_url, limit, stack)
        renders = status(server_url).renders
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
        refused_cost = status(server_url)
        assert refused_cost.listeners == limit and refused_cost.renders == renders  # no worker time

        heard = await asyncio.gather(*(speak(ws) for ws in admitted))
    assert all(all(size > 0 for size in answer.values()) for answer in heard), heard
    # Every render the server made since is one of the admitted listeners' sentences, one each (a sentence
    # is one chunk): the workers served them and nothing else.
    assert status(server_url).renders == renders + limit * len(SENTENCES)


class RetryWitness(WebSocketConnector):
    """Counts the session's tries, and runs ``before_retry`` before the second: the slot frees between them."""

    def __init__(self, url: str, before_retry: Callable[[], Awaitable[None]]):
        super().__init__(url)
        self.attempts = 0
        self._before_retry = before_retry

    async def connect(self) -> PartStream:
        self.attempts += 1
        if self.attempts == 2:
            await self._before_retry()
        return await super().connect()


async def test_agent_waits_out_a_busy_server_then_reports_tts_busy(server_url: str) -> None:
    limit = capacity(server_url)
    async with contextlib.AsyncExitStack() as stack:
        held = await open_sessions(server_url, limit, stack)
        with pytest.raises(TtsBusy) as busy:
            async with TtsSession(WebSocketConnector(server_url), timeout_s=1.5):
                pass
        assert busy.value.code == "tts_busy" and "capacity" in busy.value.message

        async def free_a_slot() -> None:  # once the first try has been refused: then the server counts it
            await held[0].close()
            while status(server_url).listeners >= limit:
                await asyncio.sleep(0.05)

        connector = RetryWitness(server_url, before_retry=free_a_slot)
        async with TtsSession(connector, timeout_s=20) as session:
            assert session.ready
        assert connector.attempts == 2  # refused at capacity, admitted on the retry after a listener left
