"""Property-based fuzzing of the OpenAI speech routes on the real server, as test_fuzz_http.py does for
/invocations: whatever the body, the answer is audio (or its SSE events, or the timestamps document) or a
typed error in OpenAI's shape, never a 500 or a dropped connection; the server still speaks afterwards.

Texts are kept short (each accepted one is synthesized and encoded for real)."""

from __future__ import annotations

import json

import httpx
from hostile_values import json_values, short_texts, voices
from hypothesis import given, settings
from hypothesis import strategies as st

from kokoro_server.encoders import FORMATS
from kokoro_server.openai_api.voices import OPENAI_VOICES

FUZZ_EXAMPLES = 40
TYPED_STATUSES = {400, 413, 415}
ROUTES = ["/v1/audio/speech", "/v1/audio/speech/timestamps"]

openai_fields = st.fixed_dictionaries(
    {},
    optional={
        "input": short_texts | json_values,
        "voice": voices | st.sampled_from([*OPENAI_VOICES, "ALLOY", {"id": "af_bella"}, {"id": 5}]) | json_values,
        "model": st.sampled_from(["kokoro", "tts-1", "tts-1-hd", "gpt-4o-mini-tts"]) | json_values,
        "speed": st.sampled_from([0.25, 1, 4.0, 4.5, 0]) | json_values,
        "response_format": st.sampled_from([*FORMATS, "ogg", "MP3"]) | json_values,
        "stream_format": st.sampled_from(["audio", "sse", "chunks"]) | json_values,
        "instructions": st.just("Speak calmly.") | json_values,
        "normalize": json_values,
    },
)
raw_bodies = st.binary(max_size=64) | st.sampled_from(
    [b"[" * 5000, b'{"input": ' + b"9" * 4400 + b"}", b'{"input": "\\ud800"}', b'{"input": "Hi", "voice": {}}']
)
bodies = openai_fields.map(lambda obj: json.dumps(obj).encode()) | raw_bodies


@settings(max_examples=FUZZ_EXAMPLES)
@given(route=st.sampled_from(ROUTES), body=bodies)
def test_any_body_gets_audio_or_an_openai_error(model_server_url, route, body):
    r = httpx.post(
        f"{model_server_url}{route}", content=body, headers={"content-type": "application/json"}, timeout=300
    )
    if r.status_code == 200:
        kind = r.headers["content-type"]
        assert kind.startswith(("audio/", "text/event-stream", "application/json")) and len(r.content) > 0
    else:
        assert r.status_code in TYPED_STATUSES, (r.status_code, r.text)
        error = r.json()["error"]
        assert set(error) == {"message", "type", "param", "code"} and error["type"] == "invalid_request_error"
        assert isinstance(error["code"], str) and error["message"]


def test_server_still_speaks_after_the_fuzzing(model_server_url):
    body = {"input": "Still standing.", "voice": "echo", "response_format": "pcm"}
    r = httpx.post(f"{model_server_url}/v1/audio/speech", json=body, timeout=300)
    assert r.status_code == 200 and len(r.content) > 4800
