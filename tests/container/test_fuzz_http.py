"""Property-based fuzzing of POST /invocations on the real server: whatever the body, the answer is audio
or a typed JSON error, never a 500 or a dropped connection, and a normal request still works afterwards.

Texts are kept short (each accepted one is synthesized for real), so the run stays within CI time.
"""

from __future__ import annotations

import json

import httpx
from hostile_values import request_fields
from hypothesis import given, settings
from hypothesis import strategies as st

FUZZ_EXAMPLES = 40
TYPED_STATUSES = {400, 413, 415}


def _encode(obj) -> bytes:
    """JSON as a hostile client would send it: NaN, Infinity and lone surrogates included."""
    return json.dumps(obj).encode()


raw_bodies = st.binary(max_size=64) | st.sampled_from(
    [b"[" * 5000, b'{"text": ' + b"9" * 4400 + b"}", b'{"text": "\\ud800"}']
)
bodies = request_fields.map(_encode) | raw_bodies


@settings(max_examples=FUZZ_EXAMPLES)
@given(body=bodies)
def test_any_body_gets_audio_or_a_typed_error(model_server_url, body):
    r = httpx.post(
        f"{model_server_url}/invocations", content=body, headers={"content-type": "application/json"}, timeout=120
    )
    if r.status_code == 200:
        assert r.headers["content-type"].startswith("audio/") and len(r.content) > 0
    else:
        assert r.status_code in TYPED_STATUSES, (r.status_code, r.text)
        error = r.json()["error"]
        assert isinstance(error["code"], str) and error["message"]


def test_server_still_speaks_after_the_fuzzing(model_server_url):
    r = httpx.post(f"{model_server_url}/invocations", json={"text": "Still standing.", "format": "pcm"}, timeout=120)
    assert r.status_code == 200 and len(r.content) > 4800
