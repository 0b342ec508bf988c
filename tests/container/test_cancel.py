"""Stop means stop: a render no one will hear is stopped where it is, with the real engines
(docs/decisions/120-cancel-the-running-inference.md).

Bounds here are relative to the same piece's uncancelled render, measured in the same test: a cancel must
free the worker within half of it (ONNX Runtime stops at the next node boundary, tens of milliseconds on a
CPU; the torch engine at its next stage). Without the machinery the worker stays busy for all of it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from contextlib import closing

import httpx
import numpy as np
import pytest
import torch
import websockets
from random_kokoro import write_random_weights
from session_client import ended, read_until, ws_url

from kokoro_server import assets as model_assets
from kokoro_server.engine.backend import CancelToken, RenderCancelled
from kokoro_server.engine.phonemes import Phonemizer
from kokoro_server.engine.registry import load_backend
from kokoro_server.engine.synthesizer import Chunk, Synthesizer
from kokoro_server.engine.voices import VoiceBank
from kokoro_server.scheduler import Scheduler
from speech_protocol.messages import Audio, Cancel, End, Error, Start, StreamDecoder, Synthesize, encode_client_message

pytestmark = pytest.mark.slow

# One sentence, one chunk of about 270 phonemes: several seconds of synthesis on a loaded CPU.
LONG = (
    "The river runs past the old mill and under two stone bridges, then it winds through the fields and the"
    " village where the market is held every Saturday morning, and at last it reaches the sea beyond the dunes"
    " where the fishing boats come in at dusk."
)
SHORT = "Yes, of course."


@pytest.fixture(scope="module")
def synth(phonemizer: Phonemizer) -> Synthesizer:
    assets = model_assets.resolve("onnx")
    return Synthesizer(
        load_backend("onnx", assets, "cpu", 0), phonemizer.read, VoiceBank(assets), default_voice="af_heart"
    )


@pytest.fixture(scope="module")
def long_chunk(synth: Synthesizer) -> Chunk:
    (chunk,) = synth.plan(LONG, None, 1.0)
    return chunk


@pytest.fixture(scope="module")
def full_s(synth: Synthesizer, long_chunk: Chunk) -> float:
    """The long chunk's uncancelled render time, in this run."""
    start = time.perf_counter()
    synth.render(long_chunk)
    return time.perf_counter() - start


async def _start_long_render(scheduler: Scheduler, synth: Synthesizer, chunk: Chunk, token: CancelToken):
    """The long render queued on ``scheduler``, once its worker has begun it."""
    began = threading.Event()

    def render():
        began.set()
        return synth.render(chunk, token)

    job = asyncio.ensure_future(scheduler.run(render, cancel=token))
    while not began.is_set():
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)  # inside the model's run
    return job


@pytest.mark.parametrize(
    ("stop", "raised"),
    [
        pytest.param(lambda job, token: token.cancel(), RenderCancelled, id="its-token"),
        # a client that vanished: its task is cancelled, and so is the render it was waiting for
        pytest.param(lambda job, token: job.cancel(), asyncio.CancelledError, id="the-awaiting-task"),
    ],
)
async def test_cancelling_a_render_frees_the_worker_within_half_its_render_time(
    synth, long_chunk, full_s, stop: Callable[[asyncio.Future, CancelToken], object], raised: type[BaseException]
):
    with closing(Scheduler(workers=1)) as scheduler:
        token = CancelToken()
        job = await _start_long_render(scheduler, synth, long_chunk, token)
        cancelled_at = time.perf_counter()
        stop(job, token)
        with pytest.raises(raised):
            await job  # at once: the caller does not wait for the engine to stop
        assert token.cancelled  # a cancelled task cancels its render's token too
        freed_at = await scheduler.run(time.perf_counter)  # runs once the worker is free
        assert freed_at - cancelled_at < full_s / 2, (freed_at - cancelled_at, full_s)


async def test_closing_the_scheduler_stops_a_running_render(synth, long_chunk, full_s):
    """SIGTERM: the lifespan closes the scheduler, and the worker thread ends instead of finishing the piece."""
    scheduler = Scheduler(workers=1)
    token = CancelToken()
    job = await _start_long_render(scheduler, synth, long_chunk, token)
    scheduler.close(wait_s=full_s / 2)
    assert token.cancelled
    assert not any(t.is_alive() for t in scheduler._threads)  # noqa: SLF001 - the workers themselves
    with pytest.raises(RenderCancelled):
        await job


def test_an_uncancelled_onnx_render_is_bit_identical_to_one_without_a_token(synth):
    backend = synth.backend
    (chunk,) = synth.plan(SHORT, None, 1.0)
    style = chunk.style.vector_for(len(chunk.phonemes))
    plain = backend.infer(chunk.phonemes, style, 1.0)
    again = backend.infer(chunk.phonemes, style, 1.0)
    assert np.array_equal(plain.audio, again.audio)  # the premise: the ONNX engine is deterministic
    watched = backend.infer(chunk.phonemes, style, 1.0, CancelToken())
    assert np.array_equal(plain.audio, watched.audio) and np.array_equal(plain.frames, watched.frames)


def test_a_token_cancelled_before_the_run_stops_it_before_any_work(synth):
    token = CancelToken()
    token.cancel()
    (chunk,) = synth.plan(SHORT, None, 1.0)
    with pytest.raises(RenderCancelled):
        synth.render(chunk, token)


# ---------------------------------------------------------------------------------------------- torch


@pytest.fixture(scope="module")
def torch_backend(tmp_path_factory):
    """The torch engine with random weights (the real ones are GPU-image only, test_torch_backend.py)."""
    assets = model_assets.resolve("torch", torch_model=write_random_weights(tmp_path_factory.mktemp("torch")))
    return load_backend("torch", assets, "cpu", 0), assets.load_voice("af_heart")[2]


def test_torch_cancel_during_the_durations_never_runs_the_decoder(torch_backend):
    backend, style = torch_backend
    model = backend._model  # noqa: SLF001 - the stages are what this test watches
    token, decoded = CancelToken(), []
    cancel = model.predictor.lstm.register_forward_hook(lambda *_: token.cancel())
    watch = model.decoder.register_forward_hook(lambda *_: decoded.append(1))
    try:
        with pytest.raises(RenderCancelled):
            backend.infer("hˈI", style, 1.0, token)
    finally:
        cancel.remove()
        watch.remove()
    assert decoded == []


def test_an_uncancelled_torch_render_is_bit_identical_to_kmodels_own(torch_backend):
    """The two stages compute what ``KModel`` computes in one call, token or not."""
    backend, style = torch_backend
    model = backend._model  # noqa: SLF001 - compared with the backend's own model
    torch.manual_seed(1)  # the decoder's harmonic source draws random noise
    with torch.inference_mode():
        own = model("hˈI", torch.from_numpy(style.reshape(1, -1)), 1.0, return_output=True)
    for token in (None, CancelToken()):
        torch.manual_seed(1)
        staged = backend.infer("hˈI", style, 1.0, token)
        assert np.array_equal(own.audio.numpy(), staged.audio)
        assert np.array_equal(own.pred_dur.numpy(), staged.frames)


# ---------------------------------------------------------------------------------------------- server


def _renders(url: str) -> int:
    return httpx.get(f"{url}/ping").json()["renders"]


async def _first_audio_s(url: str, text: str) -> float:
    """Send ``text`` on a fresh session; seconds from sending it to its first audio frame."""
    async with websockets.connect(ws_url(url)) as ws:
        await read_until(ws, StreamDecoder(), lambda events: len(events) >= 1)  # Ready
        sent = time.perf_counter()
        await ws.send(encode_client_message(Synthesize(text, id="next")))
        await read_until(ws, StreamDecoder(), lambda events: any(isinstance(e, Audio) for e in events))
        return time.perf_counter() - sent


async def _long_render_s(url: str) -> float:
    async with websockets.connect(ws_url(url)) as ws:
        await ws.send(encode_client_message(Synthesize(LONG, id="long")))
        events = await read_until(ws, StreamDecoder(), ended("long"), timeout=300)
    (end,) = [e for e in events if isinstance(e, End)]
    return end.synth_s


@pytest.fixture(scope="module")
def pace(model_server_url) -> tuple[float, float]:
    """The long piece's render time and a short piece's first audio on an idle server, in this run."""
    return asyncio.run(_long_render_s(model_server_url)), asyncio.run(_first_audio_s(model_server_url, SHORT))


async def test_a_cancel_mid_render_does_not_delay_the_next_sessions_first_audio(model_server_url, pace):
    long_s, fresh_s = pace
    before = _renders(model_server_url)
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize(LONG, id="long")))
        await read_until(ws, StreamDecoder(), lambda events: any(isinstance(e, Start) for e in events))
        await ws.send(encode_client_message(Cancel("long")))  # its render has just begun
        next_s = await _first_audio_s(model_server_url, SHORT)
        events = await read_until(ws, StreamDecoder(), ended("long"))
    assert next_s < fresh_s + long_s / 2, (next_s, fresh_s, long_s)
    (end,) = [e for e in events if isinstance(e, End)]
    assert end.cancelled and not [e for e in events if isinstance(e, (Error, Audio))]
    assert _renders(model_server_url) == before + 1  # the short piece only: a cancelled render is not timed


async def test_a_client_that_vanishes_mid_render_does_not_delay_the_next_session(model_server_url, pace):
    long_s, fresh_s = pace
    ws = await websockets.connect(ws_url(model_server_url))
    await ws.send(encode_client_message(Synthesize(LONG, id="long")))
    await read_until(ws, StreamDecoder(), lambda events: any(isinstance(e, Start) for e in events))
    ws.transport.abort()  # gone without a close handshake
    next_s = await _first_audio_s(model_server_url, SHORT)
    assert next_s < fresh_s + long_s / 2, (next_s, fresh_s, long_s)


async def test_an_http_client_that_hangs_up_mid_render_does_not_delay_the_next_session(model_server_url, pace):
    long_s, fresh_s = pace
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{model_server_url}/invocations", json={"text": LONG}) as response:
            assert response.status_code == 200
            # the WAV header comes first, then the render begins; hang up at once
    next_s = await _first_audio_s(model_server_url, SHORT)
    assert next_s < fresh_s + long_s / 2, (next_s, fresh_s, long_s)
