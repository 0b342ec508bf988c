"""GET /ping and POST /invocations against the real server on a real socket."""

from __future__ import annotations

import io
import wave

import httpx
import numpy as np
import pytest

from speech_protocol.client_messages import MAX_TEXT_CHARS
from speech_protocol.http.server_status import read_status

JSON = {"content-type": "application/json"}


def test_ping_is_ready_and_says_what_it_is(model_server_url):
    r = httpx.get(f"{model_server_url}/ping")
    assert r.status_code == 200 and r.json()["status"] == "ready"
    found = read_status(model_server_url)  # every field a reader has, typed (speech_protocol.http.server_status)
    assert found is not None and found.ready and found.engine == "onnx"
    assert found.capacity >= 1 and found.g2p_workers >= 1 and found.renders >= 0 and found.listeners >= 0


def test_wav_by_default_with_streaming_sizes(model_server_url):
    r = httpx.post(f"{model_server_url}/invocations", json={"text": "Hello there. How are you today"}, timeout=60)
    assert r.status_code == 200 and r.headers["content-type"] == "audio/wav"
    assert r.content[4:8] == b"\xff\xff\xff\xff"  # RIFF size unknown when streaming
    with wave.open(io.BytesIO(r.content)) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (24000, 1, 2)
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    assert len(pcm) / 24000 > 1.0 and np.abs(pcm).max() > 1000


def test_pcm_format_is_raw_samples(model_server_url):
    r = httpx.post(f"{model_server_url}/invocations", json={"text": "Yes.", "format": "pcm"}, timeout=60)
    assert r.status_code == 200 and r.headers["content-type"].startswith("audio/pcm")
    assert len(r.content) % 2 == 0 and len(r.content) > 4800 and r.content[:4] != b"RIFF"


def _renders(url: str) -> int:
    """How many chunks the server has synthesized so far (its /ping counts every render)."""
    return read_status(url).renders


def test_streams_first_chunk_before_the_rest(model_server_url):
    """The first audio leaves while the server still has sentences to synthesize: when it arrives, the
    server has rendered fewer chunks than the whole answer takes. A response buffered until the end would
    arrive only after every render, however many network reads it came in."""
    text = "First sentence here. " + " ".join(["Then another sentence follows."] * 6)
    before = _renders(model_server_url)
    body = bytearray()
    with httpx.stream("POST", f"{model_server_url}/invocations", json={"text": text, "format": "pcm"}, timeout=60) as r:
        parts = r.iter_raw()
        body += next(part for part in parts if part)
        at_first_audio = _renders(model_server_url) - before
        for part in parts:
            body += part
    after = _renders(model_server_url) - before
    assert after >= 4, after  # the answer is several chunks, so "fewer than all" means something
    assert at_first_audio < after, (at_first_audio, after)
    assert len(body) / 48_000 > 4.0  # and the whole answer came: seven sentences of speech


def test_voice_blend_and_speed(model_server_url):
    slow = httpx.post(
        f"{model_server_url}/invocations",
        json={"text": "One two three four.", "speed": 0.7, "format": "pcm"},
        timeout=60,
    )
    fast = httpx.post(
        f"{model_server_url}/invocations",
        json={"text": "One two three four.", "speed": 1.6, "format": "pcm", "voice": "af_heart(2)+am_michael(1)"},
        timeout=60,
    )
    assert slow.status_code == fast.status_code == 200
    assert len(slow.content) > 1.5 * len(fast.content)


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        (b"not json", JSON, 400, "bad_json"),
        (b"[1]", JSON, 400, "bad_message"),
        (b"{}", JSON, 400, "missing_text"),
        (b'{"text": ""}', JSON, 400, "empty_text"),
        (b'{"text": 5}', JSON, 400, "bad_text"),
        (('{"text": "%s"}' % ("a" * (MAX_TEXT_CHARS + 1))).encode(), JSON, 400, "text_too_long"),
        (b'{"text": "hi", "voice": "zz_nobody"}', JSON, 400, "unknown_voice"),
        (b'{"text": "hi", "voice": "af_heart(-1)"}', JSON, 400, "unknown_voice"),
        (b'{"text": "hi", "voice": "$(rm -rf /)"}', JSON, 400, "unknown_voice"),
        (b'{"text": "hi", "speed": 0}', JSON, 400, "bad_speed"),
        (b'{"text": "hi", "format": "mp3"}', JSON, 400, "bad_format"),
        (b'{"text": "!!! ... ???"}', JSON, 400, "unspeakable_text"),
        (b'{"text": "hi"}', {"content-type": "text/plain"}, 415, "unsupported_media_type"),
        (b'{"text": "hi"}', {}, 415, "unsupported_media_type"),
        (b'{"text": "' + b"a" * 70_000 + b'"}', JSON, 413, "body_too_large"),
    ],
)
def test_bad_requests_get_json_errors_and_server_keeps_serving(model_server_url, body, headers, status, code):
    r = httpx.post(f"{model_server_url}/invocations", content=body, headers=headers, timeout=30)
    assert r.status_code == status
    assert r.json()["error"]["code"] == code and r.json()["error"]["message"]
    ok = httpx.post(f"{model_server_url}/invocations", json={"text": "Ok."}, timeout=60)
    assert ok.status_code == 200


def test_wrong_method_and_path(model_server_url):
    assert httpx.get(f"{model_server_url}/invocations").status_code == 405
    assert httpx.get(f"{model_server_url}/nothing").status_code == 404
