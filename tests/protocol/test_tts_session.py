"""The speech session against real WebSocket servers: the model server and scripted misbehaviour."""

from __future__ import annotations

import asyncio

import pytest
from scripted_model_server import PCM_CHUNK, Peer, greet, scripted_model_server
from servers import free_port

from speech_protocol.client_messages import Close, Synthesize
from speech_protocol.errors import TtsProtocolError, TtsServerError, TtsSessionClosed, TtsTimeout, TtsUnreachable
from speech_protocol.server_events import Audio, End, Error, Start
from speech_protocol.transports.websocket import WebSocketConnector, session_url
from speech_protocol.tts_session import TtsSession

# The session's patience where a test's verdict must not depend on it: a correct client finishes long before,
# a broken one (a send-then-wait client, a stream that is never decoded) still fails, only later. Only the
# timeout tests themselves use a short one.
HANG_GUARD_S = 60.0


async def _speak(url: str, pieces: list[tuple[str, str]], *, voice: str = "af_heart", timeout_s: float = 20.0):
    """Send every piece without waiting, finish, and collect the events."""
    events = []
    async with TtsSession(WebSocketConnector(url), timeout_s=timeout_s) as session:

        async def send() -> None:
            for piece_id, text in pieces:
                await session.synthesize(piece_id, text, voice, 1.0)
            await session.finish()

        sender = asyncio.create_task(send())
        try:
            async for event in session.events():
                events.append(event)
        finally:
            sender.cancel()
    return events


def test_session_url_forms() -> None:
    assert session_url("http://127.0.0.1:8080") == "ws://127.0.0.1:8080/invocations-bidirectional-stream"
    assert session_url("https://h/") == "wss://h/invocations-bidirectional-stream"
    assert session_url("ws://h:1/custom") == "ws://h:1/custom"
    for bad in ("", "127.0.0.1:8080", "ftp://h", "http://"):
        with pytest.raises(TtsUnreachable):
            session_url(bad)


async def test_real_server_speaks_pieces_in_order(model_server_url: str) -> None:
    events = await _speak(model_server_url, [("p0", "Hello there."), ("p1", "How can I help")])
    ids = [event.id for event in events]
    assert ids.index("p0") < ids.index("p1") and ids[-1] == "p1"
    assert [type(e) for e in events if e.id == "p0"][0] is Start and isinstance(events[-1], End)
    audio = [e for e in events if isinstance(e, Audio)]
    assert {e.id for e in audio} == {"p0", "p1"}
    assert sum(len(e.pcm) for e in audio if e.id == "p1") > 24_000  # over half a second of speech


async def test_real_server_error_event_is_typed(model_server_url: str) -> None:
    with pytest.raises(TtsServerError) as caught:
        await _speak(model_server_url, [("p0", "Hello.")], voice="zz_nobody")
    assert caught.value.server_code == "unknown_voice" and caught.value.piece_id == "p0"


async def test_unreachable_server() -> None:
    with pytest.raises(TtsUnreachable):
        await _speak(f"http://127.0.0.1:{free_port()}", [("p0", "Hello.")])


async def test_pieces_are_sent_before_earlier_audio_arrives() -> None:
    """The server holds p0's audio until p1 has arrived: a send-then-wait client would wait for p0's audio
    until its patience ran out (TtsTimeout)."""

    async def script(peer: Peer) -> None:
        await greet(peer)
        first, second = await peer.next_message(), await peer.next_message()
        assert isinstance(first, Synthesize) and isinstance(second, Synthesize)
        await peer.speak(first)
        await peer.speak(second)
        await peer.expect(Close)
        await peer.connection.close()

    async with scripted_model_server(script) as url:
        events = await _speak(url, [("p0", "One."), ("p1", "Two.")], timeout_s=HANG_GUARD_S)
    assert [e.id for e in events if isinstance(e, End)] == ["p0", "p1"]


async def test_cancelled_pieces_end_and_the_session_speaks_on() -> None:
    """cancel() sends one frame naming each piece; the server ends them as cancelled, and a piece sent
    after it on the same session is spoken."""
    seen: list = []

    async def script(peer: Peer) -> None:
        await greet(peer)
        for _ in range(2):
            seen.append(await peer.next_message())
        for _ in range(2):
            cancel = await peer.next_message()
            seen.append(cancel)
            await peer.send(End(cancel.id, 0.0, 0.0, 0.0, 0.0, cancelled=True))
        third = await peer.next_message()
        await peer.speak(third)
        await peer.expect(Close)
        await peer.connection.close()

    async with scripted_model_server(script) as url:
        async with TtsSession(WebSocketConnector(url), timeout_s=HANG_GUARD_S) as session:
            await session.synthesize("p0", "One.", None, 1.0)
            await session.synthesize("p1", "Two.", None, 1.0)
            await session.cancel(["p1", "p0", "p1"])
            await session.synthesize("p2", "Three.", None, 1.0)
            await session.finish()
            events = [event async for event in session.events()]
    assert [type(m).__name__ for m in seen] == ["Synthesize", "Synthesize", "Cancel", "Cancel"]
    assert [m.id for m in seen[2:]] == ["p0", "p1"]
    ends = [e for e in events if isinstance(e, End)]
    assert [(e.id, e.cancelled) for e in ends] == [("p0", True), ("p1", True), ("p2", False)]


async def test_close_mid_answer_is_typed() -> None:
    async def script(peer: Peer) -> None:
        await greet(peer)
        message = await peer.next_message()
        await peer.send(Start(id=message.id), Audio(id=message.id, seq=0, pcm=PCM_CHUNK))
        await peer.connection.close()

    async with scripted_model_server(script) as url:
        with pytest.raises(TtsSessionClosed) as caught:
            await _speak(url, [("p0", "One."), ("p1", "Two.")])
    assert caught.value.piece_id == "p0"


async def test_abrupt_drop_mid_audio_frame_is_typed() -> None:
    async def script(peer: Peer) -> None:
        await greet(peer)
        await peer.next_message()
        await peer.connection.send('{"type": "audio", "id": "p0", "seq": 0, "bytes": 4800}\n')
        await peer.connection.send(b"\x00" * 100)
        peer.connection.transport.abort()

    async with scripted_model_server(script) as url:
        with pytest.raises(TtsSessionClosed):
            await _speak(url, [("p0", "One.")])


async def test_stalled_server_times_out() -> None:
    async def script(peer: Peer) -> None:
        await greet(peer)
        await peer.connection.wait_closed()

    async with scripted_model_server(script) as url:
        with pytest.raises(TtsTimeout):
            await _speak(url, [("p0", "One.")], timeout_s=0.3)


async def test_server_that_never_says_ready_times_out() -> None:
    async with scripted_model_server(lambda peer: peer.connection.wait_closed()) as url:
        with pytest.raises(TtsTimeout):
            await _speak(url, [("p0", "One.")], timeout_s=0.3)


@pytest.mark.parametrize(
    "frames",
    [
        [b"not json\n"],
        [b"[1, 2]\n"],
        [b'{"type": "mystery"}\n'],
        [b'{"type": "end"}\n'],
        [b'{"type": "audio", "id": "p0", "seq": 0}\n'],
        [b'{"type": "audio", "id": "p0", "seq": 0, "bytes": "many"}\n'],
        [b"\xff\xfe\n"],
        pytest.param(
            ['{"type": "audio", "id": "p0", "seq": 0, "bytes": 999999999999}\n', *[b"\x00" * 4_000_000] * 5],
            id="runaway-audio-frame",
        ),
    ],
)
async def test_undecodable_server_stream_is_typed(frames: list[bytes | str]) -> None:
    async def script(peer: Peer) -> None:
        await greet(peer)
        await peer.next_message()
        for frame in frames:
            await peer.connection.send(frame)
        await peer.connection.wait_closed()

    async with scripted_model_server(script) as url:
        with pytest.raises(TtsProtocolError):
            await _speak(url, [("p0", "One.")], timeout_s=HANG_GUARD_S)


async def test_error_event_without_piece_id() -> None:
    async def script(peer: Peer) -> None:
        await greet(peer)
        await peer.next_message()
        await peer.send(Error(code="overloaded", message="too many sessions"))
        await peer.connection.wait_closed()

    async with scripted_model_server(script) as url:
        with pytest.raises(TtsServerError) as caught:
            await _speak(url, [("p0", "One.")])
    assert caught.value.server_code == "overloaded" and caught.value.piece_id is None


async def test_sending_after_finish_is_refused() -> None:
    async def script(peer: Peer) -> None:
        await greet(peer)
        await peer.connection.wait_closed()

    async with scripted_model_server(script) as url:
        async with TtsSession(WebSocketConnector(url), timeout_s=HANG_GUARD_S) as session:
            await session.finish()
            with pytest.raises(TtsSessionClosed):
                await session.synthesize("p0", "Late.", "af_heart", 1.0)


async def test_session_closes_its_stream_on_exit() -> None:
    closed = asyncio.Event()

    async def script(peer: Peer) -> None:
        await greet(peer)
        await peer.connection.wait_closed()
        closed.set()

    async with scripted_model_server(script) as url:
        with pytest.raises(RuntimeError):
            async with TtsSession(WebSocketConnector(url), timeout_s=HANG_GUARD_S):
                raise RuntimeError("the caller went away")
        await asyncio.wait_for(closed.wait(), HANG_GUARD_S)
