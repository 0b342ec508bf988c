"""The torch backend end to end: in-process with a randomly initialised Kokoro model written by random_kokoro.py
(random duration predictors speak up to 1.25 s per phoneme, 004-offline-weights.md, so the texts here are a few
phonemes long), and as a server on the real weights rebuilt from the ONNX export (tests/conftest.py).
"""

from __future__ import annotations

import asyncio

import httpx
import numpy as np
import pytest
import torch
import websockets
from random_kokoro import write_random_weights
from session_client import ended, read_until, ws_url

from kokoro_server import assets as model_assets
from kokoro_server.engine.backend import FRAME_SAMPLES
from kokoro_server.engine.registry import load_backend
from kokoro_server.engine.synthesizer import Synthesizer
from kokoro_server.engine.voices import VoiceBank
from kokoro_server.engine.word_timing import WordTimeline
from kokoro_server.text.reading import Reading
from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.http.server_status import read_status
from speech_protocol.server_events import Audio, StreamDecoder, Words


@pytest.fixture(scope="module")
def random_weights(tmp_path_factory):
    return write_random_weights(tmp_path_factory.mktemp("torch"))


def test_backend_speaks_phonemes(random_weights):
    assets = model_assets.resolve("torch", torch_model=random_weights)
    backend = load_backend("torch", assets, "cpu", 0)
    out = backend.infer("hˈI", assets.load_voice("af_heart")[2], 1.0)
    assert out.audio.dtype == np.float32 and out.audio.ndim == 1 and len(out.audio) >= 600 * 3
    # pred_dur per character of the phonemes, between the two pads; it is exactly the audio's length
    assert len(out.frames) == 3 + 2 and out.frames.min() >= 1
    assert len(out.audio) == out.frames.sum() * FRAME_SAMPLES


def test_word_spans_have_the_right_structure(random_weights, phonemizer):
    # Random weights speak noise, so only the structure can be checked: one span per written word, in
    # order, inside the audio (the spans' content is checked on real weights in test_word_timing_speech).
    assets = model_assets.resolve("torch", torch_model=random_weights)
    synth = Synthesizer(load_backend("torch", assets, "cpu", 0), VoiceBank(assets), default_voice="af_heart")
    chunks = Reading("Hi, you. Go!", synth.voice(None), 1.0, phonemizer.read).whole()
    timeline = WordTimeline(chunks[0].words)
    for chunk in chunks:
        rendered = synth.render(chunk)
        timeline.add(rendered.spans, len(rendered.audio))
    spans = timeline.spans()
    assert [w.text for w in spans] == ["Hi,", "you.", "Go!"]
    edges = [t for w in spans for t in (w.start_s, w.end_s)]
    assert edges == sorted(edges) and 0 <= edges[0] and edges[-1] <= timeline.samples / 24_000
    assert all(w.start_s < w.end_s for w in spans)


def test_cuda_runs_where_there_is_a_gpu_and_is_a_clear_error_where_not(random_weights, monkeypatch):
    """On a GPU machine the backend speaks on the GPU; then (and on any other machine) a machine where torch
    sees no CUDA device gets the clear error, never a silent CPU run."""
    assets = model_assets.resolve("torch", torch_model=random_weights)
    if torch.cuda.is_available():
        out = load_backend("torch", assets, "cuda", 0).infer("hˈI", assets.load_voice("af_heart")[2], 1.0)
        assert len(out.audio) == out.frames.sum() * FRAME_SAMPLES > 0
        monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="no CUDA device"):
        load_backend("torch", assets, "cuda", 0)


def test_server_on_torch_engine_serves_http_and_session(torch_server_url):
    # The suite's torch server, on the real weights rebuilt from the ONNX export (tests/conftest.py).
    url = torch_server_url
    assert read_status(url).engine == "torch"
    r = httpx.post(f"{url}/invocations", json={"text": "Hi", "format": "pcm"}, timeout=120)
    assert r.status_code == 200 and len(r.content) > 0

    async def session() -> list:
        async with websockets.connect(ws_url(url)) as ws:
            await ws.send(encode_client_message(Synthesize("Hi", id="t")).encode())
            return await read_until(ws, StreamDecoder(), ended("t"), timeout=120)

    events = asyncio.run(session())
    samples = sum(len(e.pcm) for e in events if isinstance(e, Audio)) // 2
    assert samples > 0
    (words,) = [e for e in events if isinstance(e, Words)]
    assert [w.text for w in words.words] == ["Hi"]
    assert 0 <= words.words[0].start_s < words.words[0].end_s <= samples / 24_000
