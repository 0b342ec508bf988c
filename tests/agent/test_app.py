"""The AgentCore app on a real socket (uvicorn), with the scripted LLM and real model servers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from scripted_model_server import Peer, close_after_first_message, greet, scripted_model_server
from servers import free_port
from speech import assert_heard
from strands import Agent

from kokoro_processes.servers import agent_server_thread
from speech_protocol.http.browser_access import BrowserAccess
from voice_agent.app import create_app
from voice_agent.events import AudioChunk, ErrorEvent, PieceSent, Summary, TextDelta, read_stream
from voice_agent.llm import VOICE_SYSTEM_PROMPT, ScriptedReplyModel, scripted_tokens
from voice_agent.request import MAX_PROMPT_CHARS
from voice_agent.settings import AgentSettings, LlmSettings, TtsSettings

REPLY = "The weather is lovely today. You could walk along the river after lunch. Remember to bring a hat"
# How long the held LLM waits for the caller to hear audio before it gives up and finishes: a guard against a
# hang only; the verdict is whether the wait ended because audio was heard, whatever the machine's speed.
HOLD_LIMIT_S = 120.0


class HeldReplyModel(ScriptedReplyModel):
    """The scripted LLM, holding the last word of its reply until ``heard`` is set (the caller received
    audio). The agent may size its first piece to hold a whole clause or more on a slow server, but it must
    not wait for the end: an agent that waited for the LLM to finish would never let it go on, the hold would
    run to its limit and ``held_until_heard`` would be False."""

    def __init__(self, reply: str, heard: threading.Event):
        super().__init__(reply, tokens_per_s=50.0)
        self.heard = heard
        self.held_until_heard: bool | None = None

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any):
        last, written = len(scripted_tokens(self.config["reply"])), 0
        async for event in super().stream(messages, tool_specs, system_prompt, **kwargs):
            written += "contentBlockDelta" in event
            if written == last and self.held_until_heard is None:
                self.held_until_heard = await asyncio.to_thread(self.heard.wait, HOLD_LIMIT_S)
            yield event


@contextlib.contextmanager
def agent_for(
    model_url: str,
    reply: str = REPLY,
    tokens_per_s: float = 50.0,
    access: BrowserAccess = BrowserAccess(),
    new_agent: Callable[[], Agent] | None = None,
) -> Iterator[str]:
    """The agent on a free loopback port; ``access``: as deployed (no check) unless a test gives one;
    ``new_agent``: the scripted LLM from ``settings`` unless a test gives its own."""
    settings = AgentSettings(
        tts=TtsSettings(transport="websocket", url=model_url, timeout_s=60.0),
        llm=LlmSettings(provider="scripted", reply=reply, tokens_per_s=tokens_per_s),
        access=access,
    )
    with agent_server_thread(create_app(settings, new_agent=new_agent)) as url:
        yield url


async def ask(agent_url: str, body: object, on_audio: Callable[[], object] = lambda: None) -> list:
    """The answer's events; ``on_audio`` is called as each audio event arrives, while the answer goes on."""
    async with httpx.AsyncClient(timeout=120) as client:
        async with client.stream("POST", f"{agent_url}/invocations", content=json.dumps(body)) as reply:
            assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/event-stream")
            return list(read_stream([line async for line in _calling_on_audio(reply.aiter_lines(), on_audio)]))


async def _calling_on_audio(lines: AsyncIterator[str], on_audio: Callable[[], object]) -> AsyncIterator[str]:
    async for line in lines:
        if line.startswith("data:") and '"type": "audio"' in line:
            on_audio()
        yield line


async def hang_up_after_first_audio(agent_url: str) -> None:
    """Ask for an answer, read its stream until the first audio event, then close the connection."""
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{agent_url}/invocations", content=b'{"prompt": "talk"}') as reply:
            async for line in reply.aiter_lines():
                if line.startswith("data:") and '"type": "audio"' in line:
                    return


@pytest.fixture(scope="module")
def agent_url(model_server_url: str) -> Iterator[str]:
    with agent_for(model_server_url) as url:
        yield url


@pytest.mark.slow
async def test_three_sentences_are_spoken_as_they_are_written(model_server_url: str) -> None:
    """The LLM holds its last word until the caller has heard audio: the first audio must come from what
    was written before it, however fast or slow the machine renders it."""
    heard = threading.Event()
    model = HeldReplyModel(REPLY, heard)
    with agent_for(model_server_url, new_agent=lambda: build(model)) as url:
        events = await ask(url, {"prompt": "What should I do today?", "session": "s-1"}, on_audio=heard.set)
    assert model.held_until_heard, "the first audio waited for the LLM to finish"
    assert isinstance(events[-1], Summary), events[-1]
    kinds = [type(e) for e in events]
    last_text = max(i for i, kind in enumerate(kinds) if kind is TextDelta)
    assert kinds.index(AudioChunk) < last_text
    pieces = [e.text for e in events if isinstance(e, PieceSent)]
    assert pieces[-1].endswith("bring a hat")  # the last sentence has no punctuation and is spoken
    pcm = b"".join(e.pcm for e in events if isinstance(e, AudioChunk))
    assert_heard(pcm, 24_000, REPLY)
    assert events[-1].text == REPLY and events[-1].audio_s == pytest.approx(len(pcm) / 48_000, abs=0.01)


def build(model: ScriptedReplyModel) -> Agent:
    return Agent(model=model, system_prompt=VOICE_SYSTEM_PROMPT, callback_handler=None)


async def test_ping(agent_url: str) -> None:
    async with httpx.AsyncClient() as client:
        assert (await client.get(f"{agent_url}/ping")).status_code == 200


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "missing_prompt"),
        ({"prompt": None}, "missing_prompt"),
        ({"prompt": 42}, "bad_prompt"),
        ({"prompt": ["a"]}, "bad_prompt"),
        ({"prompt": "   "}, "empty_prompt"),
        ({"prompt": "x" * (MAX_PROMPT_CHARS + 1)}, "prompt_too_long"),
        ({"prompt": "hi", "speed": "fast"}, "bad_speed"),
        ({"prompt": "hi", "speed": 9}, "bad_speed"),
        ({"prompt": "hi", "speed": True}, "bad_speed"),
        ({"prompt": "hi", "voice": "../../etc/passwd"}, "bad_voice"),
        ({"prompt": "hi", "voice": ""}, "bad_voice"),
        ({"prompt": "hi", "session": "x" * 500}, "bad_session"),
        ({"prompt": "hi", "tools": ["rm -rf"]}, "bad_payload"),
        ([], "bad_payload"),
        ("hello", "bad_payload"),
        (None, "bad_payload"),
        (3.5, "bad_payload"),
    ],
)
async def test_bad_payload_is_one_typed_error_event(agent_url: str, body: object, code: str) -> None:
    events = await ask(agent_url, body)
    assert len(events) == 1 and isinstance(events[0], ErrorEvent) and events[0].code == code


async def test_body_that_is_not_json_is_refused(agent_url: str) -> None:
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{agent_url}/invocations", content=b"\xff{not json")
    assert reply.status_code == 400 and "error" in reply.json()


async def test_unknown_voice_is_the_servers_error_event(agent_url: str) -> None:
    events = await ask(agent_url, {"prompt": "hi", "voice": "zz_nobody"})
    assert isinstance(events[-1], ErrorEvent) and events[-1].code == "tts_server_error"
    assert "unknown_voice" in events[-1].message


async def test_model_server_down_is_one_typed_error_event() -> None:
    with agent_for(f"http://127.0.0.1:{free_port()}") as url:
        events = await ask(url, {"prompt": "hi"})
    assert isinstance(events[-1], ErrorEvent) and events[-1].code == "tts_unreachable"
    assert not any(isinstance(e, ErrorEvent) for e in events[:-1])


async def test_model_server_closing_mid_answer_is_one_typed_error_event() -> None:
    async with scripted_model_server(close_after_first_message) as model_url:
        with agent_for(model_url) as url:
            events = await ask(url, {"prompt": "hi"})
    assert isinstance(events[-1], ErrorEvent) and events[-1].code == "tts_session_closed"
    assert json.dumps(events[-1].message)  # a plain message, no traceback object


@pytest.mark.parametrize("size", [70_000, 5_000_000])
async def test_oversized_body_is_refused_before_it_is_read(agent_url: str, size: int) -> None:
    async with httpx.AsyncClient() as client:
        declared = await client.post(f"{agent_url}/invocations", content=b"x" * size)

        async def chunks():
            for _ in range(size // 10_000):
                yield b"x" * 10_000

        streamed = await client.post(f"{agent_url}/invocations", content=chunks())
    for reply in (declared, streamed):
        assert reply.status_code == 413 and reply.json()["error"]["code"] == "body_too_large"


async def test_caller_leaving_closes_the_speech_session() -> None:
    """A long, slow answer: the caller hangs up after the first audio, and the session must end."""
    import asyncio

    from speech_protocol.client_messages import Synthesize

    closed = asyncio.Event()

    async def script(peer: Peer) -> None:
        await greet(peer)
        try:
            while isinstance(message := await peer.next_message(), Synthesize):
                await peer.speak(message)
        finally:
            closed.set()

    long_reply = "This answer goes on and on. " * 120
    async with scripted_model_server(script) as model_url:
        with agent_for(model_url, reply=long_reply, tokens_per_s=10.0) as url:
            await hang_up_after_first_audio(url)
            # the whole answer would take 70 s at this rate; only cancellation ends it sooner
            await asyncio.wait_for(closed.wait(), 30)


async def test_hanging_up_while_the_server_is_silent_still_ends_the_answer() -> None:
    """No event would be written after the hang-up (the server goes quiet mid-piece), so only the app's
    own disconnect watch can end the answer; the TTS timeout (60 s) is longer than this test waits."""
    import asyncio

    from scripted_model_server import PCM_CHUNK

    from speech_protocol.client_messages import Synthesize
    from speech_protocol.server_events import Audio, Start

    closed = asyncio.Event()

    async def script(peer: Peer) -> None:
        await greet(peer)
        try:
            message = await peer.next_message()
            assert isinstance(message, Synthesize)
            await peer.send(Start(id=message.id or ""), Audio(id=message.id or "", seq=0, pcm=PCM_CHUNK))
            await peer.connection.wait_closed()  # silent from here on
        finally:
            closed.set()

    async with scripted_model_server(script) as model_url:
        with agent_for(model_url, reply="One short sentence. " * 50, tokens_per_s=10.0) as url:
            await hang_up_after_first_audio(url)
            await asyncio.wait_for(closed.wait(), 30)
