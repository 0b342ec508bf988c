"""Stop means stop: a render no one will hear is stopped where it is, with the real engines
(docs/decisions/120-cancel-the-running-inference.md).

In-process, a cancel must free the worker having spent under half the CPU time of the same piece's
uncancelled render, measured in the same test (ONNX Runtime stops at the next node boundary, tens of
milliseconds on a CPU; the torch engine at its next stage, seen by hooks on its stages). CPU time, not the
clock: what other processes on a shared machine do moves the one, not the other. Through the server the
verdict is the order of events on its one model worker: the next session's first piece is rendered with
the cancelled one never finished (the /ping render count). Without the machinery the worker stays busy
for all of it.
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
from kokoro_server.engine.registry import load_backend
from kokoro_server.engine.synthesizer import Synthesizer
from kokoro_server.scheduler import PlaybackClock, Scheduler
from kokoro_server.text.chunks import Chunk
from kokoro_server.text.phonemes import Phonemizer
from kokoro_server.text.reading import Reading
from speech_protocol.client_messages import Cancel, Synthesize, encode_client_message
from speech_protocol.http.server_status import read_status
from speech_protocol.server_events import Audio, End, Error, Start, StreamDecoder

pytestmark = pytest.mark.slow

# One sentence, one chunk of about 270 phonemes: several seconds of synthesis on a loaded CPU.
LONG = (
    "The river runs past the old mill and under two stone bridges, then it winds through the fields and the"
    " village where the market is held every Saturday morning, and at last it reaches the sea beyond the dunes"
    " where the fishing boats come in at dusk."
)
SHORT = "Yes, of course."


@pytest.fixture(scope="module")
def long_chunk(synth: Synthesizer, phonemizer: Phonemizer) -> Chunk:
    (chunk,) = Reading(LONG, synth.voice(None), 1.0, phonemizer.read).whole()
    return chunk


@pytest.fixture(scope="module")
def full_cpu_s(synth: Synthesizer, long_chunk: Chunk) -> float:
    """The CPU time of the long chunk's uncancelled render (this process's, all its threads), in this run."""
    start = time.process_time()
    synth.render(long_chunk)
    return time.process_time() - start


async def _start_long_render(scheduler: Scheduler, synth: Synthesizer, chunk: Chunk, token: CancelToken):
    """The long render queued on ``scheduler``, once its worker thread has spent 50 ms of its own CPU in it: then
    the model is running, however loaded the machine (a 50 ms sleep could end before the worker got a core)."""
    clock: list[int] = []

    def render():
        clock.append(time.pthread_getcpuclockid(threading.get_ident()))
        return synth.render(chunk, token)

    job = asyncio.ensure_future(scheduler.run(render, cancel=token))
    await _inside_the_model(clock)
    return job


async def _inside_the_model(cpu_clocks: list[int]) -> None:
    """Returns once the worker thread whose CPU clock is the last of ``cpu_clocks`` has spent 50 ms in its run."""
    while not cpu_clocks:
        await asyncio.sleep(0.005)
    started = time.clock_gettime(cpu_clocks[-1])
    while time.clock_gettime(cpu_clocks[-1]) - started < 0.05:  # inside the model's run
        await asyncio.sleep(0.005)


@pytest.mark.parametrize(
    ("stop", "raised"),
    [
        pytest.param(lambda job, token: token.cancel(), RenderCancelled, id="its-token"),
        # a client that vanished: its task is cancelled, and so is the render it was waiting for
        pytest.param(lambda job, token: job.cancel(), asyncio.CancelledError, id="the-awaiting-task"),
    ],
)
async def test_cancelling_a_render_frees_the_worker_within_half_its_work(
    synth,
    long_chunk,
    full_cpu_s,
    stop: Callable[[asyncio.Future, CancelToken], object],
    raised: type[BaseException],
):
    with closing(Scheduler(workers=1)) as scheduler:
        token = CancelToken()
        job = await _start_long_render(scheduler, synth, long_chunk, token)
        cancelled_at = time.process_time()
        stop(job, token)
        with pytest.raises(raised):
            await job  # at once: the caller does not wait for the engine to stop
        assert token.cancelled  # a cancelled task cancels its render's token too
        freed_at = await scheduler.run(time.process_time)  # runs once the worker is free
        assert freed_at - cancelled_at < full_cpu_s / 2, (freed_at - cancelled_at, full_cpu_s)
        assert scheduler.stopped == 1  # /ping's count of renders a cancel stopped


async def test_closing_the_scheduler_stops_a_running_render(synth, long_chunk):
    """SIGTERM: the lifespan closes the scheduler, and the worker thread ends instead of finishing the piece."""
    scheduler = Scheduler(workers=1)
    token = CancelToken()
    job = await _start_long_render(scheduler, synth, long_chunk, token)
    scheduler.close(wait_s=120)  # returns when the worker has ended; the bound only stops a hang
    assert token.cancelled
    assert not any(t.is_alive() for t in scheduler._threads)  # noqa: SLF001 - the workers themselves
    with pytest.raises(RenderCancelled):
        await job


async def test_a_render_stopped_for_a_newcomer_runs_again_to_the_same_audio(synth, phonemizer, long_chunk):
    """Preemption with the real engine (docs/decisions/168-preempt-a-render-that-can-wait.md): the long render
    of a listener with minutes in hand is stopped part-way for a newcomer's short one, then run again from the
    start, and its caller gets exactly the audio it would have had."""
    undisturbed = synth.render(long_chunk)
    (short_chunk,) = Reading(SHORT, synth.voice(None), 1.0, phonemizer.read).whole()
    order: list[str] = []
    cpu_clocks: list[int] = []
    ahead = PlaybackClock()
    ahead.played(300.0)

    def long_render(run: CancelToken):
        order.append("long")
        cpu_clocks.append(time.pthread_getcpuclockid(threading.get_ident()))
        return synth.render(long_chunk, run)

    with closing(Scheduler(workers=1)) as scheduler:
        job = asyncio.ensure_future(scheduler.run_preemptible(long_render, ahead, cost_s=60.0))
        await _inside_the_model(cpu_clocks)
        await scheduler.run(lambda: order.append("short") or synth.render(short_chunk), PlaybackClock(), cost_s=0.1)
        rendered = await job
        assert order == ["long", "short", "long"] and scheduler.preempted == 1
    assert np.array_equal(rendered.audio, undisturbed.audio)


def test_an_uncancelled_onnx_render_is_bit_identical_to_one_without_a_token(synth, phonemizer):
    backend = synth.backend
    (chunk,) = Reading(SHORT, synth.voice(None), 1.0, phonemizer.read).whole()
    style = synth.style(chunk)
    plain = backend.infer(chunk.phonemes, style, 1.0)
    again = backend.infer(chunk.phonemes, style, 1.0)
    assert np.array_equal(plain.audio, again.audio)  # the premise: the ONNX engine is deterministic
    watched = backend.infer(chunk.phonemes, style, 1.0, CancelToken())
    assert np.array_equal(plain.audio, watched.audio) and np.array_equal(plain.frames, watched.frames)


def test_a_token_cancelled_before_the_run_stops_it_before_any_work(synth, phonemizer):
    token = CancelToken()
    token.cancel()
    (chunk,) = Reading(SHORT, synth.voice(None), 1.0, phonemizer.read).whole()
    with pytest.raises(RenderCancelled):
        synth.render(chunk, token)


# ---------------------------------------------------------------------------------------------- torch


@pytest.fixture(scope="module")
def torch_backend(tmp_path_factory):
    """The torch engine with random weights (the real ones are GPU-image only, test_torch_backend.py)."""
    assets = model_assets.resolve("torch", torch_model=write_random_weights(tmp_path_factory.mktemp("torch")))
    return load_backend("torch", assets, "cpu", 0), assets.load_voice("af_heart")[2]


def _cancelled_when(backend, style, cancel_at: torch.nn.Module, watched: torch.nn.Module) -> bool:
    """A torch render whose token is cancelled once ``cancel_at`` starts: it raises RenderCancelled, and whether
    ``watched`` ran all the same is returned."""
    token, ran = CancelToken(), []
    cancel = cancel_at.register_forward_pre_hook(lambda *_: token.cancel())
    watch = watched.register_forward_hook(lambda *_: ran.append(1))
    try:
        with pytest.raises(RenderCancelled):
            backend.infer("hˈI", style, 1.0, token)
    finally:
        cancel.remove()
        watch.remove()
    return bool(ran)


def test_torch_cancel_during_the_durations_never_runs_the_decoder(torch_backend):
    backend, style = torch_backend
    model = backend._model  # noqa: SLF001 - the stages are what this test watches
    assert not _cancelled_when(backend, style, model.predictor.lstm, model.decoder)


def test_torch_cancel_inside_the_decoder_stops_it_before_its_last_layer(torch_backend):
    """A render stopped part-way through the decoder (a preemption, decision 168) frees the worker there."""
    backend, style = torch_backend
    generator = backend._model.decoder.generator  # noqa: SLF001 - the layers are what this test watches
    assert not _cancelled_when(backend, style, generator, generator.conv_post)
    assert len(backend.infer("hˈI", style, 1.0, CancelToken()).audio) > 0  # the next render runs whole


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
    return read_status(url).renders


async def _renders_at_first_audio(url: str, text: str) -> int:
    """Send ``text`` on a fresh session; the server's render count when its first audio frame arrives.

    The suite's server has one model worker (the default): the piece is rendered after whatever held the
    worker, and counted before its audio is sent. So the count at its first audio includes a render that
    was stopped only if that render ran to its end (a stopped render is never counted)."""
    async with websockets.connect(ws_url(url)) as ws:
        await ws.send(encode_client_message(Synthesize(text, id="next")))
        await read_until(ws, StreamDecoder(), lambda events: any(isinstance(e, Audio) for e in events))
        return _renders(url)


async def test_a_cancel_mid_render_does_not_delay_the_next_sessions_first_audio(model_server_url):
    before = _renders(model_server_url)
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize(LONG, id="long")))
        await read_until(ws, StreamDecoder(), lambda events: any(isinstance(e, Start) for e in events))
        await ws.send(encode_client_message(Cancel("long")))  # its render has just begun
        at_next = await _renders_at_first_audio(model_server_url, SHORT)
        events = await read_until(ws, StreamDecoder(), ended("long"))
    assert at_next == before + 1  # the short piece only: the long one was stopped, not finished first
    (end,) = [e for e in events if isinstance(e, End)]
    assert end.cancelled and not [e for e in events if isinstance(e, (Error, Audio))]
    assert _renders(model_server_url) == before + 1  # nor finished later


async def test_a_client_that_vanishes_mid_render_does_not_delay_the_next_session(model_server_url):
    before = _renders(model_server_url)
    ws = await websockets.connect(ws_url(model_server_url))
    await ws.send(encode_client_message(Synthesize(LONG, id="long")))
    await read_until(ws, StreamDecoder(), lambda events: any(isinstance(e, Start) for e in events))
    ws.transport.abort()  # gone without a close handshake
    assert await _renders_at_first_audio(model_server_url, SHORT) == before + 1


async def test_an_http_client_that_hangs_up_mid_render_does_not_delay_the_next_session(model_server_url):
    before = _renders(model_server_url)
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{model_server_url}/invocations", json={"text": LONG}) as response:
            assert response.status_code == 200
            # the WAV header comes first, then the render begins; hang up at once
    assert await _renders_at_first_audio(model_server_url, SHORT) == before + 1
