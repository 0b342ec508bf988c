"""The model server killed mid-answer: the agent ends that answer with one typed error, and once the
server is back on the same address the next answer works, with the same agent process."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from servers import QUICK_WARM_UP, SERVER_START_S, model_server_child
from test_app import agent_for, ask

from voice_agent.events import ErrorEvent, Summary

REPLY = (
    "The old town is best early in the morning. The cathedral opens at eight and is free before ten. "
    "The covered market has breakfast at small counters. The river walk takes forty minutes."
)
PROMPT = {"prompt": "Plan my day"}


@pytest.mark.slow
async def test_a_killed_model_server_ends_the_answer_typed_and_the_next_answer_works() -> None:
    with model_server_child("onnx", *QUICK_WARM_UP, timeout_s=SERVER_START_S) as (model_url, proc):
        port = urlsplit(model_url).port
        with agent_for(model_url, reply=REPLY, tokens_per_s=20.0) as agent_url:
            killed: list[bool] = []

            def kill() -> None:  # at the first audio
                if not killed:
                    proc.kill()
                    killed.append(True)

            # An answer that never ended would fail ask's read timeout; one that ends does so with the error
            # after the kill, whatever the machine's load makes of the seconds in between. The kernel closes a
            # killed process's sockets: the agent must see its session closed, not wait for it to time out.
            events = await ask(agent_url, PROMPT, on_audio=kill)
            assert killed, "no audio arrived before the kill"
            assert isinstance(events[-1], ErrorEvent), events[-1]
            assert events[-1].code == "tts_session_closed", events[-1]
            assert not any(isinstance(e, ErrorEvent) for e in events[:-1])

            with model_server_child("onnx", *QUICK_WARM_UP, timeout_s=SERVER_START_S, port=port):
                again = await ask(agent_url, PROMPT)
    assert isinstance(again[-1], Summary), again[-1]
    assert again[-1].audio_s > 5
