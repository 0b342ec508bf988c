"""POST /invocations with hostile input: a typed 400, never a 500, silence or a stalled server."""

from __future__ import annotations

import re

import httpx
import pytest
from speech import transcribe, words

JSON = {"content-type": "application/json"}
HELLO = '{"text": "Hello there."'
HANG_S = 300  # a bound against a hang, not a verdict: a loaded machine renders slowly


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (HELLO + ', "format": []}', "bad_format"),
        (HELLO + ', "format": {"a": 1}}', "bad_format"),
        (HELLO + ', "speed": 1' + "0" * 400 + "}", "bad_speed"),
        (HELLO + ', "speed": -1' + "0" * 400 + "}", "bad_speed"),
        (HELLO + ', "speed": NaN}', "bad_speed"),
        (HELLO + ', "speed": 1e999}', "bad_speed"),
        ("[" * 30_000, "bad_json"),
        ('{"a": ' * 5_000, "bad_json"),
        (HELLO + ', "speed": ' + "1" * 4_400 + "}", "bad_json"),
        ('{"text": ' + "7" * 4_400 + "}", "bad_json"),
        ('{"text": "\\ud800"}', "bad_text"),
        ('{"text": "Hi \\udfff there."}', "bad_text"),
        (HELLO + ', "voice": "af_heart\\ud800"}', "bad_voice"),
        (HELLO + ', "voice": "af_heart(1e40)"}', "unknown_voice"),
        (HELLO + ', "voice": "af_heart(1' + "0" * 40 + ')"}', "unknown_voice"),
        (HELLO + ', "voice": "af_heart(0.' + "0" * 49 + '1)"}', "unknown_voice"),
        (HELLO + ', "voice": "af_heart(1' + "0" * 40 + ')+af_bella(1)"}', "unknown_voice"),
    ],
)
def test_hostile_fields_get_typed_400(model_server_url, body, code):
    r = httpx.post(f"{model_server_url}/invocations", content=body.encode(), headers=JSON, timeout=60)
    assert (r.status_code, r.json()["error"]["code"]) == (400, code), r.text


def _audio_head(url: str, text: str, seconds: float) -> bytes:
    """The first ``seconds`` of a synthesis's PCM (or all of it, if shorter), read as it streams; then hang up."""
    wanted, head = round(seconds * 24_000) * 2, bytearray()
    with httpx.stream("POST", f"{url}/invocations", json={"text": text, "format": "pcm"}, timeout=300) as r:
        assert r.status_code == 200
        for chunk in r.iter_raw():
            head += chunk
            if len(head) >= wanted:
                break
    return bytes(head[:wanted])


def test_numbers_past_misakis_range_are_spoken(model_server_url):
    """misaki overflows on numbers past 10**306 (a plain-text 500 before); long digit runs are now read
    digit by digit, as IDs are. The 400 digits are the text's first sentence, and its first three seconds are
    heard as sevens (the whole takes minutes to render)."""
    heard = transcribe(_audio_head(model_server_url, "7" * 400 + ".", 3.0), 24_000)
    digits = re.sub(r"[^0-9a-z]", "", " ".join(words(heard)).replace("seven", "7"))
    # Mostly sevens (the recognizer may hear a stray letter in a run of one digit, "S7, 7, 7, ..."); a first
    # sentence of words, such as "Your code.", is not.
    assert digits.count("7") >= 3 and digits.count("7") >= 0.8 * len(digits), heard


def test_path_like_token_neither_stalls_nor_blocks_others(model_server_url):
    """ "a/" * 1500 held the only model worker for many minutes (G2P grows ~7x per doubling of such a
    token); now it is read in bounded slices: its audio starts, and a request arriving while its listener
    holds the stream open (reading nothing more: minutes of audio that cannot all be sent) is answered.
    A server that served one text after another could answer only once the long one had all been read to
    its listener, which never happens here: it would fail, at once or by the bound against a hang."""
    hostile = "Look here. /srv/" + "a/" * 1500  # a path: the normalizer reads URLs with a scheme itself
    body = {"text": hostile, "format": "pcm"}
    with httpx.stream("POST", f"{model_server_url}/invocations", json=body, timeout=HANG_S) as slow:
        assert slow.status_code == 200
        audio = slow.iter_raw()  # kept: a dropped iterator closes the response, and that is a hang-up
        while not next(audio):  # its first audio: the reading did not stall
            pass
        other = httpx.post(
            f"{model_server_url}/invocations", json={"text": "Still here.", "format": "pcm"}, timeout=HANG_S
        )
        assert other.status_code == 200 and len(other.content) > 4800
