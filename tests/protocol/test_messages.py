"""The wire protocol: client message parsing and server stream reassembly at any byte boundary."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speech_protocol.client_messages import (
    MAX_FRAME_BYTES,
    MAX_TEXT_CHARS,
    Cancel,
    Close,
    Synthesize,
    decode_client_frame,
    encode_client_message,
    parse_client_message,
    parse_synthesize,
)
from speech_protocol.errors import ProtocolError
from speech_protocol.server_events import Audio, End, Error, Ready, Start, StreamDecoder, Words, WordSpan, encode_event


def test_text_and_binary_frames_decode_alike():
    raw = encode_client_message(Synthesize("Hello.", id="a", voice="af_heart", speed=1.2))
    assert (
        decode_client_frame(raw)
        == decode_client_frame(raw.encode())
        == [Synthesize("Hello.", id="a", voice="af_heart", speed=1.2)]
    )


def test_bare_text_means_synthesize_and_merged_frames_split_on_newlines():
    msgs = decode_client_frame('{"text": "One."}\n{"type": "cancel", "id": 7}\n{"type": "close"}\n')
    assert msgs == [Synthesize("One."), Cancel("7"), Close()]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("", "bad_json"),
        ("not json", "bad_json"),
        ("[1, 2]", "bad_message"),
        ('{"id": "x"}', "bad_message"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": "synthesize"}', "missing_text"),
        ('{"text": 42}', "bad_text"),
        ('{"text": "   "}', "empty_text"),
        (json.dumps({"text": "a" * (MAX_TEXT_CHARS + 1)}), "text_too_long"),
        ('{"text": "hi", "speed": "fast"}', "bad_speed"),
        ('{"text": "hi", "speed": 9}', "bad_speed"),
        ('{"text": "hi", "speed": true}', "bad_speed"),
        ('{"text": "hi", "voice": ""}', "bad_voice"),
        ('{"text": "hi", "id": {"a": 1}}', "bad_id"),
        (json.dumps({"text": "hi", "id": "x" * 500}), "bad_id"),
        (b"\xff\xfe\x00", "bad_encoding"),
        (b"{" * (MAX_FRAME_BYTES + 1), "frame_too_large"),
    ],
)
def test_bad_frames_become_typed_errors(frame, code):
    (err,) = decode_client_frame(frame)
    assert isinstance(err, ProtocolError) and err.code == code


def test_error_keeps_the_utterance_id():
    (err,) = decode_client_frame('{"type": "synthesize", "id": "s9", "text": ""}')
    assert err.code == "empty_text" and err.id == "s9"


EVENTS = [
    Ready("abc", voices=28, rtf=0.41, piece_overhead_s=0.23),
    Start("s1"),
    Audio("s1", 0, bytes(range(256)) * 9),
    Audio("s1", 1, b'\n\n{"type": "end"}\n'),  # PCM that looks like protocol text
    Words("s1", [WordSpan("Café,", 0.02, 0.41), WordSpan("$3.50", 0.46, 1.2)]),
    End("s1", audio_s=1.5, first_audio_s=0.2, synth_s=0.5, queued_s=0.0),
    Error("bad_json", "not valid JSON", "s2"),
]


def _stream() -> bytes:
    out = b""
    for event in EVENTS:
        for frame in encode_event(event):
            out += frame.encode() if isinstance(frame, str) else frame
    return out


@given(st.lists(st.integers(min_value=0, max_value=len(_stream())), max_size=40))
def test_decoder_survives_any_split_or_merge(cuts):
    data = _stream()
    bounds = sorted({0, len(data), *cuts})
    decoder = StreamDecoder()
    events = []
    for a, b in zip(bounds, bounds[1:]):
        events += decoder.feed(data[a:b])
    assert events == EVENTS and decoder.pending == 0


def test_truncated_stream_is_visible():
    decoder = StreamDecoder()
    data = _stream()
    decoder.feed(data[:-3])
    assert decoder.pending > 0


def test_words_event_on_the_wire():
    (frame,) = encode_event(Words("s1", [WordSpan("Hello,", 0.02, 0.31), WordSpan("there.", 0.36, 0.62)]))
    assert json.loads(frame) == {
        "type": "words",
        "id": "s1",
        "words": [
            {"text": "Hello,", "start_s": 0.02, "end_s": 0.31},
            {"text": "there.", "start_s": 0.36, "end_s": 0.62},
        ],
    }
    assert StreamDecoder().feed(frame) == [
        Words("s1", [WordSpan("Hello,", 0.02, 0.31), WordSpan("there.", 0.36, 0.62)])
    ]


def test_malformed_words_event_is_an_error_not_a_crash():
    for bad in (
        '{"type": "words", "id": "s1", "words": [{"text": "a"}]}',
        '{"type": "words", "id": "s1"}',
        '{"type": "words", "id": "s1", "words": 3}',
    ):
        with pytest.raises(ProtocolError, match="malformed words event"):
            StreamDecoder().feed(bad + "\n")


def test_unknown_server_event_is_an_error():
    with pytest.raises(ProtocolError):
        StreamDecoder().feed(b'{"type": "party"}\n')


def test_the_running_pace_rides_on_end_only_when_sent_and_unknown_fields_are_ignored():
    """A new optional field is how the protocol grows: a decoder keeps the fields it knows (an unknown
    *event* type is an error, above), so the running pace travels on ``end``, absent when unchanged."""
    plain, told = End("s1", 1.0, 0.3, 0.5, 0.0), End("s1", 1.0, 0.3, 0.5, 0.0, rtf=0.52, piece_overhead_s=0.11)
    assert "rtf" not in encode_event(plain)[0] and '"rtf": 0.52' in encode_event(told)[0]
    assert StreamDecoder().feed(encode_event(told)[0]) == [told]
    newer = b'{"type": "end", "id": "s1", "audio_s": 1.0, "first_audio_s": 0.3, "synth_s": 0.5, "queued_s": 0.0,'
    newer += b' "rtf": 0.52, "piece_overhead_s": 0.11, "from_the_future": {"x": 1}}\n'
    assert StreamDecoder().feed(newer) == [told]


def test_a_language_travels_in_the_synthesize_message():
    msg = parse_client_message({"text": "Hola.", "language": " es "})
    assert msg == Synthesize("Hola.", language="es")
    assert parse_client_message(json.loads(encode_client_message(msg))) == msg
    assert "language" not in encode_client_message(Synthesize("Hi"))
    for bad in (5, "", "x" * 17, "\ud800", ["es"]):
        with pytest.raises(ProtocolError) as err:
            parse_client_message({"text": "Hola.", "language": bad, "id": 7})
        assert (err.value.code, err.value.id) == ("bad_language", "7")


def test_one_synthesis_request_for_the_session_and_the_http_body() -> None:
    """``/invocations``' body and a session's message are one request type: the same fields, the same checks;
    the body's own keys (``format``) are left to it, and a refused field names the utterance it belongs to."""
    body = {"text": "Hola.", "voice": "ef_dora", "speed": 1.25, "normalize": False, "language": "es", "format": "pcm"}
    assert parse_synthesize(body) == Synthesize("Hola.", voice="ef_dora", speed=1.25, normalize=False, language="es")
    assert parse_client_message({**body, "id": "u1"}) == parse_synthesize(body, "u1")
    with pytest.raises(ProtocolError) as refused:
        parse_synthesize({"text": "Hola.", "speed": 9}, "u2")
    assert (refused.value.code, refused.value.id) == ("bad_speed", "u2")
