"""The session with hostile frames: each gets an ``error`` event, never a dropped connection, and the
session goes on with its queued work intact (docs/decisions/042-hostile-input-errors.md)."""

from __future__ import annotations

import json

import websockets
from session_client import ended, pcm_bytes, read_until, ws_url

from speech_protocol.client_messages import Close, Synthesize, encode_client_message
from speech_protocol.server_events import End, Error, StreamDecoder

BIG = "1" * 4_400  # over Python's 4,300-digit limit for int(str)


async def test_hostile_frames_get_errors_and_queued_work_survives(model_server_url):
    frames = [
        ('{"type": "synthesize", "id": "s", "text": "hi", "speed": 1' + "0" * 400 + "}", "bad_speed"),
        ('{"type": "synthesize", "id": "n", "text": "hi", "speed": ' + BIG + "}", "bad_json"),
        ('{"type": "synthesize", "id": ' + BIG + ', "text": "hi"}', "bad_json"),
        ('{"type": "synthesize", "text": ' + BIG + "}", "bad_json"),
        ('{"type": "cancel", "id": ' + BIG + "}", "bad_json"),
        ('{"type": ' + BIG + "}", "bad_json"),
        ("[" * 30_000, "bad_json"),
        ('{"type": "synthesize", "id": "u", "text": "\\ud800"}', "bad_text"),
        ('{"type": "synthesize", "id": "\\udfff", "text": "hi"}', "bad_id"),
        ('{"type": "synthesize", "id": 1' + "0" * 200 + ', "text": "hi"}', "bad_id"),
        ('{"type": "synthesize", "id": "v", "text": "hi", "voice": "af_heart(1' + "0" * 40 + ')"}', "unknown_voice"),
    ]
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize("Queued first. Then a second sentence.", id="first")))
        for frame, _code in frames:
            await ws.send(frame)
        await ws.send(encode_client_message(Synthesize("And after all that.", id="last")))
        # generous: the model may still be finishing a long piece another test abandoned
        events = await read_until(ws, StreamDecoder(), ended("last"), timeout=300)
    errors = [e for e in events if isinstance(e, Error)]
    assert [e.code for e in errors] == [code for _frame, code in frames]
    assert [e.id for e in errors if e.id] == ["s", "u", "v"]
    assert pcm_bytes(events, "first") > 24_000 and pcm_bytes(events, "last") > 0
    assert all(not e.cancelled for e in events if isinstance(e, End))


async def test_session_closing_error_names_the_utterance(model_server_url):
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize("Last words.", id="a")))
        await ws.send(encode_client_message(Close()))
        await ws.send(json.dumps({"type": "synthesize", "id": "b", "text": "Too late."}))
        await ws.send(json.dumps({"type": "cancel", "id": "c"}))
        events = await read_until(ws, StreamDecoder(), ended("a"))
    closing = [e for e in events if isinstance(e, Error)]
    assert [(e.code, e.id) for e in closing] == [("session_closing", "b"), ("session_closing", "c")]
