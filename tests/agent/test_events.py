"""The SSE event vocabulary: encoded and decoded in one place; errors mapped in one place."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speech_protocol.transport import TtsServerError, TtsTimeout
from voice_agent.events import (
    AgentError,
    AudioChunk,
    ErrorEvent,
    EventDecodeError,
    PieceDone,
    PieceSent,
    Summary,
    TextDelta,
    error_event,
    from_wire,
    to_wire,
)

EVENTS = [
    TextDelta("Hello, "),
    PieceSent("p0", "Hello, world.", 0.41),
    AudioChunk("p0", 3, b"\x01\x02" * 10, 24_000),
    PieceDone("p0", 0.9, 1.4, 1.1, 0.3),
    PieceDone("p1", None, 2.0, 0.0, 0.0),
    Summary(0.9, 3.2, 2, "Hello, world.", 0.5, 4.0),
    Summary(None, 0.0, 0, "", 0.1, 0.2),
    ErrorEvent("tts_timeout", "no audio", "p1"),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.type)
def test_round_trip_through_json(event) -> None:
    assert from_wire(json.loads(json.dumps(to_wire(event)))) == event


@given(pcm=st.binary(max_size=2000), seq=st.integers(0, 10**6))
def test_audio_is_base64_pcm(pcm: bytes, seq: int) -> None:
    wire = to_wire(AudioChunk("p3", seq, pcm, 24_000))
    assert set(wire) == {"type", "id", "seq", "sample_rate", "pcm16"}
    assert from_wire(wire).pcm == pcm


@pytest.mark.parametrize(
    "obj",
    [
        None,
        [],
        "audio",
        {},
        {"type": "nope"},
        {"type": "text"},
        {"type": "audio", "id": "p0", "seq": 0, "sample_rate": 24000, "pcm16": "%%%not base64"},
        {"error": "boom", "error_type": "KeyError"},
    ],
)
def test_malformed_events_are_refused(obj) -> None:
    with pytest.raises(EventDecodeError):
        from_wire(obj)


def test_error_mapping() -> None:
    assert error_event(TtsTimeout("slow", piece_id="p2")) == ErrorEvent("tts_timeout", "slow", "p2")
    server = error_event(TtsServerError("unknown_voice: nope", server_code="unknown_voice", piece_id="p0"))
    assert (server.code, server.piece_id) == ("tts_server_error", "p0")
    assert error_event(AgentError("llm_failed", "throttled")) == ErrorEvent("llm_failed", "throttled")
    hidden = error_event(KeyError("/secret/path"))
    assert hidden.code == "internal_error" and "secret" not in hidden.message
