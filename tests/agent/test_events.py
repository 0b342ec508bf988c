"""The SSE event vocabulary: encoded and decoded in one place, read back from SSE lines by the one reader;
errors mapped in one place."""

from __future__ import annotations

import json

import pytest
from agent_sse import sse
from hypothesis import given
from hypothesis import strategies as st

from speech_protocol.errors import TtsServerError, TtsTimeout
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
    read_stream,
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


def test_the_wire_keeps_its_field_order() -> None:
    """``type`` is a class attribute, not a field, and still ends each object (audio: starts it)."""
    assert (
        json.dumps(to_wire(ErrorEvent("x", "y"))) == '{"code": "x", "message": "y", "piece_id": null, "type": "error"}'
    )
    assert list(to_wire(PieceSent("p0", "Hi.", 0.1))) == ["id", "text", "t_s", "type"]
    assert list(to_wire(AudioChunk("p0", 0, b"", 24_000))) == ["type", "id", "seq", "sample_rate", "pcm16"]
    assert TextDelta("a").type == TextDelta.type == "text"


def test_the_reader_skips_what_is_not_data_and_stops_at_an_error() -> None:
    lines = [": keep-alive", "event: x", *sse(TextDelta("a"), ErrorEvent("llm_failed", "no"), TextDelta("b"))]
    assert list(read_stream(lines)) == [TextDelta("a"), ErrorEvent("llm_failed", "no")]
    assert list(read_stream(line.encode() for line in sse(*EVENTS[:4]))) == EVENTS[:4]


def test_what_is_no_event_becomes_an_error_that_ends_the_stream() -> None:
    [crash] = read_stream(['data: {"error": "boom", "error_type": "KeyError"}', *sse(TextDelta("a"))])
    assert crash == ErrorEvent("agent_failed", "boom")
    [garbage] = read_stream([b"data: {nope", b"data: " + b"x" * 10])
    assert garbage.code == "bad_event" and garbage.message.startswith("undecodable event")
    [unknown] = read_stream(['data: {"type": "surprise"}'])
    assert unknown.code == "bad_event"
    *_, too_large = read_stream(sse(TextDelta("x" * 50)) * 10, max_bytes=200)
    assert too_large.code == "answer_too_large"


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
