"""The model server killed mid-answer: the agent ends that answer with one typed error, and once the
server is back on the same address the next answer works, with the same agent process."""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

import httpx
import pytest
from servers import SERVER_START_S, model_server_child
from test_app import agent_for

from voice_agent.events import AudioChunk, ErrorEvent, Summary, from_wire

REPLY = (
    "The old town is best early in the morning. The cathedral opens at eight and is free before ten. "
    "The covered market has breakfast at small counters. The river walk takes forty minutes."
)
TIMEOUT_S = 60.0  # the agent's TTS timeout in agent_for


async def stream_events(agent_url: str, on_first_audio=None) -> list:
    events = []
    async with httpx.AsyncClient(timeout=300) as client:
        async with client.stream("POST", f"{agent_url}/invocations", json={"prompt": "Plan my day"}) as reply:
            async for line in reply.aiter_lines():
                if not line.startswith("data:"):
                    continue
                event = from_wire(json.loads(line[5:]))
                if (
                    isinstance(event, AudioChunk)
                    and on_first_audio
                    and not any(isinstance(e, AudioChunk) for e in events)
                ):
                    on_first_audio()
                events.append(event)
    return events


@pytest.mark.slow
async def test_a_killed_model_server_ends_the_answer_typed_and_the_next_answer_works() -> None:
    with model_server_child("onnx", timeout_s=SERVER_START_S) as (model_url, proc):
        port = urlsplit(model_url).port
        with agent_for(model_url, reply=REPLY, tokens_per_s=20.0) as agent_url:
            killed_at: list[float] = []

            def kill() -> None:
                proc.kill()
                killed_at.append(time.monotonic())

            events = await stream_events(agent_url, on_first_audio=kill)
            ended = time.monotonic()
            assert killed_at, "no audio arrived before the kill"
            assert isinstance(events[-1], ErrorEvent), events[-1]
            assert events[-1].code in ("tts_session_closed", "tts_timeout"), events[-1]
            assert ended - killed_at[0] < TIMEOUT_S + 5  # within the agent's own timeout
            assert not any(isinstance(e, ErrorEvent) for e in events[:-1])

            with model_server_child("onnx", timeout_s=SERVER_START_S, port=port):
                again = await stream_events(agent_url)
    assert isinstance(again[-1], Summary), again[-1]
    assert again[-1].audio_s > 5
