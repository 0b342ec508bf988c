"""The scripted model server's own checks reach the test: a script that asserts something false fails it."""

from __future__ import annotations

import pytest
from scripted_model_server import Peer, greet, scripted_model_server
from websockets.asyncio.client import connect

from speech_protocol.client_messages import Close, Synthesize, encode_client_message
from speech_protocol.errors import TtsSessionClosed
from speech_protocol.transports.websocket import WebSocketConnector, session_url
from speech_protocol.tts_session import TtsSession


async def expects_two(peer: Peer) -> None:
    """A script whose check is false for the client below, which says "One."."""
    await greet(peer)
    message = await peer.next_message()
    assert isinstance(message, Synthesize) and message.text == "Two.", message


async def test_a_false_assertion_in_a_script_fails_the_test_that_ran_it() -> None:
    with pytest.raises(ExceptionGroup) as caught:
        async with scripted_model_server(expects_two) as url, connect(session_url(url)) as ws:
            await ws.recv()  # ready
            await ws.send(encode_client_message(Synthesize(id="p0", text="One.", voice="af_heart", speed=1.0)))
            await ws.wait_closed()  # the script ended (its assertion failed) and the server closed
    assert caught.group_contains(AssertionError, match="text='One.'")


async def test_the_scripts_failure_is_raised_even_when_the_client_failed_first() -> None:
    """The client sees only a closed session; the script's assertion, the cause, is what the test reports."""
    with pytest.raises(ExceptionGroup) as caught:
        async with (
            scripted_model_server(expects_two) as url,
            TtsSession(WebSocketConnector(url), timeout_s=5.0) as session,
        ):
            await session.synthesize("p0", "One.", "af_heart", 1.0)
            async for _ in session.events():
                pass
    assert caught.group_contains(AssertionError)
    assert isinstance(caught.value.__cause__, TtsSessionClosed)


async def test_a_client_that_goes_away_is_no_failure() -> None:
    async def script(peer: Peer) -> None:
        await greet(peer)
        while True:
            await peer.next_message()  # raises ConnectionClosed when the client leaves

    async with scripted_model_server(script) as url, connect(session_url(url)) as ws:
        await ws.recv()
        await ws.send(encode_client_message(Close()))


async def expects_close(peer: Peer) -> None:
    await greet(peer)
    await peer.expect(Close)


async def test_a_client_that_closes_the_socket_instead_of_sending_close_fails_an_expecting_script() -> None:
    with pytest.raises(ExceptionGroup) as caught:
        async with scripted_model_server(expects_close) as url, connect(session_url(url)) as ws:
            await ws.recv()  # ready; then the socket closes without a Close message
    assert caught.group_contains(AssertionError, match="closed the socket without sending Close")


async def test_a_client_that_sends_close_satisfies_an_expecting_script() -> None:
    async with scripted_model_server(expects_close) as url, connect(session_url(url)) as ws:
        await ws.recv()
        await ws.send(encode_client_message(Close()))
