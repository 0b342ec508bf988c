"""Faults on real sockets, each beside a normal session that must not notice: a client that stops
reading, one that vanishes mid-utterance, and oversized, slow and garbage frames."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator

import pytest
import websockets
from process_tree import wait_until_idle
from servers import QUICK_WARM_UP, SERVER_START_S, model_server_child

from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.http.server_status import ServerStatus, read_status
from speech_protocol.server_events import Audio, End, Ready, StreamDecoder
from speech_protocol.transports.websocket import session_url

SEND_TIMEOUT_S = 3
MAX_PIECES_AHEAD = 10  # pieces synthesized for a client that reads none of them
# Long enough that its audio (minutes) overflows every socket buffer between server and client.
LONG_TEXT = " ".join(["The river walk takes about forty minutes at an easy pace, past the old mills."] * 40)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, subprocess.Popen]]:
    """(base URL, process): whether the server still works for a client that is gone is read from its
    process tree's CPU time (tests/process_tree.py) and its /ping render count."""
    # Room for every faulty client at once: this file tests isolation, test_admission.py the limit.
    with model_server_child(
        "onnx", "--send-timeout", str(SEND_TIMEOUT_S), "--max-sessions", "16", *QUICK_WARM_UP, timeout_s=SERVER_START_S
    ) as served:
        yield served


@pytest.fixture(scope="module")
def server_url(server: tuple[str, subprocess.Popen]) -> str:
    return server[0]


def status(url: str) -> ServerStatus:
    found = read_status(url)
    assert found is not None, f"nothing answers at {url}"
    return found


async def wait_for(condition, timeout_s: float) -> float:
    """Seconds until ``condition()`` holds; fails after ``timeout_s``."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout_s, "condition not reached in time"
        await asyncio.sleep(0.2)
    return time.monotonic() - start


async def normal_session(url: str) -> float:
    """One ordinary utterance; returns its audio seconds."""
    async with websockets.connect(session_url(url), max_size=None) as ws:
        await ws.send(encode_client_message(Synthesize("Everything is fine here.", id="ok")))
        decoder, pcm = StreamDecoder(), 0
        while True:
            for event in decoder.feed(await asyncio.wait_for(ws.recv(), 120)):
                if isinstance(event, Audio):
                    pcm += len(event.pcm)
                if isinstance(event, End):
                    return pcm / 48_000


async def test_a_client_that_stops_reading_is_ended_and_others_are_served(
    server: tuple[str, subprocess.Popen],
) -> None:
    server_url, proc = server
    # max_queue=1: the client library stops reading the socket once one frame waits unread; with no pings of
    # its own it never hangs up either, so only the server can end the connection.
    async with websockets.connect(
        session_url(server_url), max_queue=1, max_size=None, ping_interval=None, close_timeout=1
    ) as stuck:
        before = status(server_url).renders
        await stuck.send(encode_client_message(Synthesize(LONG_TEXT, id="long")))
        assert await normal_session(server_url) > 0.5  # served while the stuck one is held back
        # Backpressure holds the stuck session's audio in bounded socket buffers; after SEND_TIMEOUT_S
        # without progress the server ends it and drops the connection (a close frame could never get out).
        await wait_for(lambda: status(server_url).listeners == 0, SEND_TIMEOUT_S + 60)
        renders = status(server_url).renders
        # A few pieces fill the capped buffers (about 5 s of audio); the kernel's autotuned ones took 21.
        assert renders - before <= MAX_PIECES_AHEAD + 1  # + 1: the normal session's
        await asyncio.to_thread(wait_until_idle, proc.pid, 120)
        assert status(server_url).renders == renders  # its remaining text is not synthesized


async def test_a_client_vanishing_mid_utterance_stops_its_synthesis(server: tuple[str, subprocess.Popen]) -> None:
    server_url, proc = server
    ws = await websockets.connect(session_url(server_url), max_size=None)
    await ws.send(encode_client_message(Synthesize(LONG_TEXT, id="long")))
    decoder = StreamDecoder()
    while not any(isinstance(e, Audio) for e in decoder.feed(await asyncio.wait_for(ws.recv(), 120))):
        pass
    ws.transport.abort()  # gone without a close frame, as a dropped connection
    await wait_for(lambda: status(server_url).listeners == 0, 30)
    stopped_at = status(server_url).renders
    # At rest (however long one render takes on this machine), the count is final: at most the piece
    # already inside the engine finished; the text's other ~40 pieces never ran.
    await asyncio.to_thread(wait_until_idle, proc.pid, 120)
    assert status(server_url).renders - stopped_at <= 1


async def _slow_frame(url: str) -> None:
    """A WebSocket frame header, then its payload one byte per second."""
    async with websockets.connect(session_url(url)) as ws:
        frame = b"\x81\xfe\x00\x80" + b"\x00\x00\x00\x00"  # TEXT, masked (zero mask), 128 bytes announced
        ws.transport.write(frame)
        for byte in b'{"type": "synthesize", "text": "slow"}':
            ws.transport.write(bytes([byte]))
            await asyncio.sleep(1)


async def _garbage(url: str) -> None:
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"\x16\x03\x01\x02\x00" + bytes(range(256)) * 8 + b"\r\n\r\n")
    await writer.drain()
    await asyncio.wait_for(reader.read(), 30)  # the server answers or hangs up; it does not hang
    writer.close()


async def _oversized(url: str) -> int:
    async with websockets.connect(session_url(url), max_size=None) as ws:
        assert isinstance(StreamDecoder().feed(await ws.recv())[0], Ready)
        await ws.send("x" * (2 << 20))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), 30)
        return closed.value.rcvd.code if closed.value.rcvd else 1006


async def test_oversized_slow_and_garbage_frames_beside_normal_sessions(server_url: str) -> None:
    slow = asyncio.create_task(_slow_frame(server_url))
    results = await asyncio.gather(
        _oversized(server_url), _garbage(server_url), normal_session(server_url), normal_session(server_url)
    )
    assert results[0] == 1009  # message too big: that one connection only
    assert results[2] > 0.5 and results[3] > 0.5
    slow.cancel()
    await asyncio.gather(slow, return_exceptions=True)
    assert status(server_url).ready
