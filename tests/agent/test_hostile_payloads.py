"""Hostile payloads against the real AgentCore app on a real socket (scripted LLM).

Same-session concurrency, numbers too big for a float or for Python's parser, deep nesting, and a
hypothesis fuzz of the payload (80 cases): every reply is a typed error or a normal answer, never an
untyped 500 or an event without a ``type``, and a normal request works afterwards. What is judged is the
agent's parsing and its events, so the many short answers are spoken by a scripted model server that times
every word (word_server.py) in milliseconds; the concurrent turns of one session are spoken by the real
model server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scripted_model_server import scripted_model_server_thread
from word_server import WordServer

from kokoro_processes.servers import agent_server_thread
from voice_agent.app import create_app
from voice_agent.settings import AgentSettings, LlmSettings, TtsSettings

SHORT_REPLY = "Yes, gladly."


@pytest.fixture(scope="module")
def slow_agent(model_server_url: str) -> Iterator[str]:
    """An agent whose answers take seconds (3 words/s), so that requests overlap."""
    settings = AgentSettings(
        tts=TtsSettings(transport="websocket", url=model_server_url, timeout_s=60.0),
        llm=LlmSettings(provider="scripted", reply="One two three four five six.", tokens_per_s=3.0),
    )
    with agent_server_thread(create_app(settings)) as url:
        yield url


@pytest.fixture(scope="module")
def quick_agent() -> Iterator[str]:
    with scripted_model_server_thread(WordServer(pace_s=0.0)) as model_url:
        settings = AgentSettings(
            tts=TtsSettings(transport="websocket", url=model_url, timeout_s=60.0),
            llm=LlmSettings(provider="scripted", reply=SHORT_REPLY, tokens_per_s=500.0),
        )
        with agent_server_thread(create_app(settings)) as url:
            yield url


def typed_events(reply: httpx.Response) -> list[dict]:
    """Every SSE event of a 200 reply; each must carry a ``type``."""
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/event-stream"), reply.text
    events = [json.loads(line[5:]) for line in reply.text.splitlines() if line.startswith("data:")]
    assert events and all(isinstance(e, dict) and "type" in e for e in events), events
    return events


def post(url: str, body: bytes, timeout: float = 120) -> httpx.Response:
    return httpx.post(f"{url}/invocations", content=body, timeout=timeout)


def assert_answers_normally(url: str) -> None:
    events = typed_events(post(url, json.dumps({"prompt": "Hello"}).encode()))
    assert events[-1]["type"] == "summary" and any(e["type"] == "audio" for e in events)


async def test_concurrent_turns_of_one_session_get_session_busy_and_the_session_goes_on(slow_agent: str):
    body = json.dumps({"prompt": "Count for me.", "session": "same1"})
    async with httpx.AsyncClient(timeout=120) as client:
        async with client.stream("POST", f"{slow_agent}/invocations", content=body) as first:
            lines = first.aiter_lines()
            async for line in lines:
                if line.startswith("data:"):
                    break  # the first turn is under way
            others = await asyncio.gather(*(client.post(f"{slow_agent}/invocations", content=body) for _ in range(2)))
            rest = [line async for line in lines]
    for other in others:
        (event,) = typed_events(other)
        assert event["type"] == "error" and event["code"] == "session_busy", event
    finished = [json.loads(line[5:]) for line in rest if line.startswith("data:")]
    assert finished[-1]["type"] == "summary", finished[-1]
    again = typed_events(post(slow_agent, body))  # the turn is over: the session answers again
    assert again[-1]["type"] == "summary"


@pytest.mark.parametrize("speed", ["1" + "0" * 400, "-" + "9" * 400, "1e400", "1" + "0" * 400 + ".5"])
def test_a_speed_too_big_for_a_float_is_bad_speed(quick_agent: str, speed: str):
    events = typed_events(post(quick_agent, ('{"prompt": "hi", "speed": ' + speed + "}").encode()))
    assert [(e["type"], e["code"]) for e in events] == [("error", "bad_speed")]


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 30_000 + b"]" * 30_000,
        b'{"prompt": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
        b'{"prompt": "hi", "speed": ' + b"7" * 4_400 + b"}",
        b'{"prompt": "hi", "session": ' + b"1" * 5_000 + b"}",
        b"\xff\xfe{",
        b"",
    ],
)
def test_bodies_python_cannot_parse_are_a_typed_400(quick_agent: str, body: bytes):
    reply = post(quick_agent, body)
    assert reply.status_code == 400 and reply.json()["error"]["code"] == "bad_json", reply.text
    assert "sys." not in reply.json()["error"]["message"]  # advice a remote client can follow, not Python's
    assert_answers_normally(quick_agent)


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["af_heart", "zz_nobody", "1.0", "same2", "hello"]),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)
_FIELD = st.sampled_from(["prompt", "voice", "speed", "session", "extra"])
_PAYLOAD = st.one_of(
    _JSON,
    st.dictionaries(_FIELD, _JSON, max_size=4),
    st.fixed_dictionaries(
        {"prompt": st.text(min_size=1, max_size=30)},
        optional={"voice": _SCALARS, "speed": _SCALARS, "session": _SCALARS},
    ),
)


@settings(max_examples=80)
@given(payload=_PAYLOAD)
@example(payload={"\x85": None})  # a NEL in a field name: echoed escaped, never a raw line break in the stream
@example(payload={"\u2028x": 1, "prompt": "hi"})
def test_payload_fuzz_gives_a_typed_error_or_an_answer(quick_agent: str, payload: object):
    reply = post(quick_agent, json.dumps(payload).encode())
    if reply.status_code != 200:
        assert reply.status_code in (400, 413) and reply.json()["error"]["code"], reply.text
        return
    events = typed_events(reply)
    assert events[-1]["type"] in ("summary", "error")
    if events[-1]["type"] == "error":
        assert isinstance(events[-1]["code"], str) and events[-1]["code"] != "internal_error", events[-1]


def test_a_normal_request_works_after_the_fuzz(quick_agent: str):
    assert_answers_normally(quick_agent)
