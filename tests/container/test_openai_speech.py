"""The OpenAI speech API on the real server, driven by the official ``openai`` SDK: every format decoded by
FFmpeg (PyAV) and heard by the recognizer, the streamed and SSE variants reassembled, the word-timed
variant, the listings, and every refusal in OpenAI's error shape."""

from __future__ import annotations

import base64
import contextlib
import json
import time

import httpx
import openai
import pytest
import websockets
from audio_decode import RATE, container_name, decode
from speech import transcribe, wer

from kokoro_server.openai_api.request import MAX_INPUT_CHARS
from kokoro_server.openai_api.voices import OPENAI_VOICES
from speech_protocol.framing import SESSION_PATH
from speech_protocol.http.server_status import read_status

TEXT = "The museum opens at nine every morning. Tickets are sold at the door."
FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"]
CONTAINERS = {"mp3": "mp3", "opus": "ogg", "aac": "aac", "flac": "flac", "wav": "wav"}
MAX_WER = 0.15
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def client(model_server_url) -> openai.OpenAI:
    # max_retries=0: a refusal is what these tests look at, not something to retry past.
    return openai.OpenAI(base_url=f"{model_server_url}/v1", api_key="not-checked", max_retries=0, timeout=300)


def heard(pcm16: bytes) -> str:
    assert len(pcm16) > RATE, "under half a second of audio"
    return transcribe(pcm16, RATE)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_decodes_and_says_the_text(client, fmt):
    response = client.audio.speech.create(model="tts-1", voice="alloy", input=TEXT, response_format=fmt)
    if fmt != "pcm":
        assert container_name(response.content) == CONTAINERS[fmt]
    text = heard(decode(response.content, fmt))
    assert wer(TEXT, text) <= MAX_WER, text


def test_mp3_is_the_default_format(client):
    response = client.audio.speech.create(model="kokoro", voice="af_heart", input="Yes, of course.")
    assert response.response.headers["content-type"] == "audio/mpeg"
    assert container_name(response.content) == "mp3"


@pytest.mark.parametrize("fmt", ["opus", "pcm"])
def test_streaming_response_reassembles(client, fmt):
    with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="nova", input=TEXT, response_format=fmt
    ) as response:
        parts = list(response.iter_bytes())
    assert len(parts) >= 1
    assert wer(TEXT, heard(decode(b"".join(parts), fmt))) <= MAX_WER


@pytest.mark.parametrize("fmt", ["mp3", "opus", "aac", "flac"])
def test_compressed_audio_leaves_piece_by_piece(model_server_url, fmt):
    """Three sentences are three pieces: the container is not held back until the end."""
    body = {"input": "One moment please. " + TEXT, "voice": "af_heart", "response_format": fmt}
    with httpx.stream("POST", f"{model_server_url}/v1/audio/speech", json=body, timeout=300) as r:
        assert r.status_code == 200
        parts = [part for part in r.iter_raw() if part]
    assert len(parts) >= 2, [len(p) for p in parts]
    assert decode(b"".join(parts), fmt)


def sse_events(lines) -> list[dict]:
    """``data:`` payloads of an SSE stream, as the SSE format defines them (blank line ends an event)."""
    events, data = [], []
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
        elif not line and data:
            events.append(json.loads("\n".join(data)))
            data = []
    if data:
        events.append(json.loads("\n".join(data)))
    return events


@pytest.mark.parametrize("fmt", ["pcm", "mp3"])
def test_sse_deltas_reassemble_and_end_with_usage(client, fmt):
    with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="coral", input=TEXT, response_format=fmt, stream_format="sse"
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.iter_lines())
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "speech.audio.done" and set(kinds[:-1]) == {"speech.audio.delta"}
    audio = b"".join(base64.b64decode(e["audio"]) for e in events[:-1])
    assert wer(TEXT, heard(decode(audio, fmt))) <= MAX_WER
    usage = events[-1]["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_word_timestamps_cover_the_audio(model_server_url):
    # Plain words: what a written form ("$3.50") sounds like is the normalization tests'
    # job, so the hearing check here uses words a recognizer can only write one way.
    text = "Tickets are sold at the door of the museum."
    r = httpx.post(
        f"{model_server_url}/v1/audio/speech/timestamps",
        json={"input": text, "voice": "marin", "response_format": "wav"},
        timeout=300,
    )
    assert r.status_code == 200, r.text
    doc = r.json()
    pcm = decode(base64.b64decode(doc["audio"]), "wav")
    assert doc["duration_s"] == pytest.approx(len(pcm) / 2 / RATE, abs=0.01)
    words = doc["words"]
    assert [w["text"] for w in words] == text.split()
    starts = [w["start_s"] for w in words]
    assert starts == sorted(starts) and all(w["start_s"] < w["end_s"] <= doc["duration_s"] for w in words)
    assert wer(text, heard(pcm)) <= 0.2


def test_models_and_voices_list(client, model_server_url):
    assert {"kokoro", "tts-1", "tts-1-hd", "gpt-4o-mini-tts"} <= {m.id for m in client.models.list()}
    listing = httpx.get(f"{model_server_url}/v1/audio/voices", timeout=30).json()
    assert listing["aliases"] == OPENAI_VOICES and len(OPENAI_VOICES) == 13
    assert set(OPENAI_VOICES.values()) <= set(listing["voices"]) and "af_heart" in listing["voices"]


@pytest.mark.parametrize(
    "extra",
    [
        {"voice": "af_heart(2)+am_michael(1)"},
        {"voice": "Shimmer", "speed": 4.0},
        {"voice": {"id": "bf_emma"}, "speed": 0.25},
        {"model": "any-model-name", "instructions": "Speak like a pirate."},
        {"normalize": False},
    ],
)
def test_accepted_variants(model_server_url, extra):
    body = {"input": "Yes.", "voice": "alloy", "response_format": "pcm", **extra}
    r = httpx.post(f"{model_server_url}/v1/audio/speech", json=body, timeout=300)
    assert r.status_code == 200 and len(r.content) > 2400, r.text


LONG = "a" * (MAX_INPUT_CHARS + 1)


@pytest.mark.parametrize(
    ("body", "headers", "status", "code", "param"),
    [
        (b'{"voice": "alloy"}', JSON, 400, "missing_text", "input"),
        (b'{"input": "   "}', JSON, 400, "empty_text", "input"),
        (b'{"input": 7}', JSON, 400, "bad_text", "input"),
        (b'{"input": "Hi \\ud800"}', JSON, 400, "bad_text", "input"),
        (json.dumps({"input": LONG}).encode(), JSON, 400, "text_too_long", "input"),
        (b'{"input": "!!! ... ???"}', JSON, 400, "unspeakable_text", "input"),
        (b'{"input": "Hi", "voice": "zz_nobody"}', JSON, 400, "unknown_voice", "voice"),
        (b'{"input": "Hi", "voice": "af_heart(1e40)"}', JSON, 400, "unknown_voice", "voice"),
        (b'{"input": "Hi", "voice": ""}', JSON, 400, "bad_voice", "voice"),
        (b'{"input": "Hi", "voice": ["alloy"]}', JSON, 400, "bad_voice", "voice"),
        (b'{"input": "Hi", "speed": 0.2}', JSON, 400, "bad_speed", "speed"),
        (b'{"input": "Hi", "speed": 4.01}', JSON, 400, "bad_speed", "speed"),
        (b'{"input": "Hi", "speed": "fast"}', JSON, 400, "bad_speed", "speed"),
        (b'{"input": "Hi", "speed": true}', JSON, 400, "bad_speed", "speed"),
        (b'{"input": "Hi", "speed": NaN}', JSON, 400, "bad_speed", "speed"),
        (b'{"input": "Hi", "speed": 1' + b"0" * 400 + b"}", JSON, 400, "bad_speed", "speed"),
        (b'{"input": "Hi", "response_format": "ogg"}', JSON, 400, "bad_format", "response_format"),
        (b'{"input": "Hi", "stream_format": "chunks"}', JSON, 400, "bad_stream_format", "stream_format"),
        (b'{"input": "Hi", "model": 3}', JSON, 400, "bad_model", "model"),
        (b'{"input": "Hi", "instructions": {}}', JSON, 400, "bad_instructions", "instructions"),
        (b'{"input": "Hi", "normalize": "no"}', JSON, 400, "bad_normalize", "normalize"),
        (b"not json", JSON, 400, "bad_json", None),
        (b"[" * 30_000, JSON, 400, "bad_json", None),
        (b'["Hi"]', JSON, 400, "bad_message", None),
        (b'{"input": "Hi"}', {"content-type": "text/plain"}, 415, "unsupported_media_type", None),
        (b'{"input": "' + b"a" * 70_000 + b'"}', JSON, 413, "body_too_large", None),
    ],
)
def test_refusals_in_openai_shape(model_server_url, body, headers, status, code, param):
    r = httpx.post(f"{model_server_url}/v1/audio/speech", content=body, headers=headers, timeout=60)
    assert r.status_code == status, r.text
    assert r.json() == {
        "error": {
            "message": r.json()["error"]["message"],
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }
    assert r.json()["error"]["message"]


def test_timestamps_route_refuses_sse(model_server_url):
    body = {"input": "Hi", "stream_format": "sse"}
    r = httpx.post(f"{model_server_url}/v1/audio/speech/timestamps", json=body, timeout=60)
    assert (r.status_code, r.json()["error"]["param"]) == (400, "stream_format")


def test_sdk_raises_its_typed_error_with_the_body(client):
    with pytest.raises(openai.BadRequestError) as caught:
        client.audio.speech.create(model="tts-1", voice="nobody_here", input="Hello.")
    assert caught.value.status_code == 400 and caught.value.code == "unknown_voice"
    assert caught.value.param == "voice" and caught.value.type == "invalid_request_error"


def listeners(url: str) -> int:
    return read_status(url).listeners


def wait_for_listeners(url: str, count: int) -> None:
    """Until the server reports ``count`` listeners: a share is released when its stream has ended."""
    for _ in range(600):
        if listeners(url) == count:
            return
        time.sleep(0.1)
    raise AssertionError(f"the server still reports {listeners(url)} listeners, not {count}")


async def test_at_capacity_the_refusal_is_a_503_with_retry_after(model_server_url):
    """Idle sessions each hold a listener's share; with every share taken the speech route says when to
    come back, in OpenAI's shape, and the SDK sees the status its retry logic honours."""
    status = read_status(model_server_url)
    ws_url = model_server_url.replace("http", "ws", 1) + SESSION_PATH
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(status.capacity - status.listeners):
            ws = await stack.enter_async_context(websockets.connect(ws_url))
            await ws.recv()  # ready: this session holds a share
        async with httpx.AsyncClient(timeout=60) as http:
            r = await http.post(f"{model_server_url}/v1/audio/speech", json={"input": "Hello."})
    assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1
    assert r.json()["error"] | {"message": ""} == {
        "message": "",
        "type": "server_error",
        "param": None,
        "code": "server_busy",
    }


def test_a_client_that_hangs_up_mid_stream_frees_its_share(model_server_url):
    wait_for_listeners(model_server_url, 0)
    body = {"input": "One moment please. " + TEXT * 3, "voice": "af_heart", "response_format": "mp3"}
    with httpx.stream("POST", f"{model_server_url}/v1/audio/speech", json=body, timeout=300) as r:
        assert r.status_code == 200
        next(r.iter_raw())
    wait_for_listeners(model_server_url, 0)
