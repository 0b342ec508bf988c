"""Real speech from real weights: what the server says is what it was asked to say."""

from __future__ import annotations

import asyncio

import httpx
import numpy as np
import pytest
import websockets
from session_client import ends, read_until, ws_url
from speech import assert_heard, misread, transcribe, wer

from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.server_events import Audio, StreamDecoder

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Please book a table for four people at seven thirty tonight.",
    "Streaming speech makes a voice agent feel fast and natural",  # no final punctuation
]


@pytest.mark.parametrize("text", SENTENCES)
def test_invocations_speech_is_intelligible(model_server_url, text):
    r = httpx.post(f"{model_server_url}/invocations", json={"text": text, "format": "pcm"}, timeout=60)
    assert_heard(r.content, 24000, text)


def test_session_speech_over_binary_frames_is_intelligible(model_server_url):
    async def speak() -> bytes:
        async with websockets.connect(ws_url(model_server_url)) as ws:
            for i, text in enumerate(SENTENCES):
                await ws.send(encode_client_message(Synthesize(text, id=str(i), voice="bf_emma")).encode())
            events = await read_until(ws, StreamDecoder(), ends(len(SENTENCES)))
            return b"".join(e.pcm for e in events if isinstance(e, Audio))

    pcm = asyncio.run(speak())
    assert_heard(pcm, 24000, " ".join(SENTENCES))


def test_a_wrong_number_is_heard_as_wrong(model_server_url):
    """Guards the checks above: the sentence said with other numbers ("five people at eight forty") is
    not heard as the right one."""
    wrong = misread(SENTENCES[1])
    r = httpx.post(f"{model_server_url}/invocations", json={"text": wrong, "format": "pcm"}, timeout=60)
    heard = transcribe(r.content, 24000)
    assert wer(wrong, heard) <= 0.1, heard
    assert wer(SENTENCES[1], heard) > 0.1, heard


def test_recogniser_does_not_hear_words_in_noise():
    """Guards the check above: noise must not pass for speech."""
    noise = (np.random.default_rng(0).normal(0, 0.1, 24000 * 2) * 32767).astype("<i2").tobytes()
    assert wer(SENTENCES[0], transcribe(noise, 24000)) > 0.5
