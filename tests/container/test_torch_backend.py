"""The torch backend end to end, with a randomly initialised Kokoro model (the real .pth is GPU-image only).

The weights file is written in kokoro's own format and loaded through the real ``KModel(config=...,
model=...)`` path. Random duration predictors speak up to 1.25 s per phoneme (004-offline-weights.md), so the
texts here are a few phonemes long.
"""

from __future__ import annotations

import asyncio

import httpx
import numpy as np
import pytest
import torch
import websockets
from kokoro import KModel

from kokoro_server import assets as model_assets
from kokoro_server.engine.backend import load_backend
from servers import model_server_process
from speech_protocol.messages import SESSION_PATH, Audio, End, StreamDecoder, Synthesize, encode_client_message

PARTS = ("bert", "bert_encoder", "predictor", "text_encoder", "decoder")


@pytest.fixture(scope="module")
def random_weights(tmp_path_factory):
    folder = tmp_path_factory.mktemp("torch")
    empty = folder / "empty.pth"
    torch.save({}, empty)
    torch.manual_seed(0)
    model = KModel(repo_id="hexgrad/Kokoro-82M", config=str(model_assets.PACKAGE_DATA / "kokoro-82m-config.json"),
                   model=str(empty))
    weights = folder / "random-kokoro.pth"
    torch.save({part: getattr(model, part).state_dict() for part in PARTS}, weights)
    return weights


def test_backend_speaks_phonemes(random_weights):
    assets = model_assets.resolve("torch", torch_model=random_weights)
    backend = load_backend("torch", assets, "cpu", 0)
    audio = backend.infer("hˈI", assets.load_voice("af_heart")[2], 1.0)
    assert audio.dtype == np.float32 and audio.ndim == 1 and len(audio) >= 600 * 3


def test_cuda_without_a_gpu_is_a_clear_error(random_weights):
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="no CUDA device"):
        load_backend("torch", model_assets.resolve("torch", torch_model=random_weights), "cuda", 0)


def test_server_on_torch_engine_serves_http_and_session(random_weights):
    # A random model speaks up to 1.25 s per phoneme: warm up on a word, not the default sentence.
    with model_server_process("torch", "--torch-model", str(random_weights), "--warm-up-text", "Hi") as url:
        assert httpx.get(f"{url}/ping").json()["engine"] == "torch"
        r = httpx.post(f"{url}/invocations", json={"text": "Hi", "format": "pcm"}, timeout=120)
        assert r.status_code == 200 and len(r.content) > 0

        async def session() -> list:
            async with websockets.connect(url.replace("http", "ws") + SESSION_PATH) as ws:
                await ws.send(encode_client_message(Synthesize("Hi", id="t")).encode())
                decoder, events = StreamDecoder(), []
                while not any(isinstance(e, End) for e in events):
                    events += decoder.feed(await asyncio.wait_for(ws.recv(), timeout=120))
                return events

        events = asyncio.run(session())
        assert sum(len(e.pcm) for e in events if isinstance(e, Audio)) > 0
