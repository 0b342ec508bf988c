"""Batched synthesis on the torch engine, on CPU with the real weights (rebuilt from the ONNX export): a
batch of rows of mixed lengths, voices and speeds gives each row what it gives alone; a row cancelled
mid-batch is dropped and the others still speak; a server batches the pieces of sessions that wait together
and answers each with its own.

"Alone" is the unchanged batch-1 ``infer`` with the global generator seeded with the row's seed. Frames and
sample counts must be equal; the audio within the tolerance of docs/decisions/125-batched-synthesis.md (an
SNR of at least 30 dB: the model itself moves its audio that much for a style vector changed by one part
in a million).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import numpy as np
import pytest
import torch
from speech import assert_heard

from kokoro_server import assets as model_assets
from kokoro_server.engine.backend import FRAME_SAMPLES, CancelToken, Inference, RenderCancelled
from kokoro_server.engine.batch import BatchRow
from kokoro_server.engine.registry import load_backend
from kokoro_server.engine.torch_backend import TorchBackend
from speech_protocol.http.server_status import read_status

pytestmark = pytest.mark.slow

MIN_SNR_DB = 30.0
# Phonemes as G2P gives them (fixed here, so that this test is about the model only): a short first piece,
# a longer sentence and one in between, with different voices and speeds.
ROWS = (
    ("həlˈO ðˈɛɹ.", "af_heart", 1.0),
    ("ðə kwˈɪk bɹˈWn fˈɑks ʤˈʌmps ˈOvəɹ ðə lˈAzi dˈɔɡ.", "am_adam", 1.3),
    ("jˈɛs, ɒv kˈɔːs ˌI kˈan.", "bf_emma", 0.8),
)


@pytest.fixture(scope="module")
def weights(rebuilt_torch_weights: tuple[dict, Path]) -> Path:
    return rebuilt_torch_weights[1]


@pytest.fixture(scope="module")
def backend(weights: Path) -> TorchBackend:
    loaded = load_backend("torch", model_assets.resolve("torch", torch_model=weights), "cpu", 0)
    assert isinstance(loaded, TorchBackend)
    return loaded


@pytest.fixture(scope="module")
def rows(weights: Path) -> list[BatchRow]:
    assets = model_assets.resolve("torch", torch_model=weights)
    return [
        BatchRow(phonemes, assets.load_voice(voice)[len(phonemes)], speed, seed=100 + i)
        for i, (phonemes, voice, speed) in enumerate(ROWS)
    ]


@pytest.fixture(scope="module")
def alone(backend: TorchBackend, rows: list[BatchRow]) -> list[Inference]:
    out = []
    for row in rows:
        torch.manual_seed(row.seed)
        out.append(backend.infer(row.phonemes, row.style, row.speed))
    return out


def assert_as_alone(batched: Inference | RenderCancelled, alone: Inference) -> None:
    assert isinstance(batched, Inference)
    assert np.array_equal(batched.frames, alone.frames)
    assert len(batched.audio) == len(alone.audio) == alone.frames.sum() * FRAME_SAMPLES
    noise = float(np.sum((batched.audio - alone.audio) ** 2))
    snr_db = 10 * np.log10(float(np.sum(alone.audio**2)) / max(noise, 1e-30))
    assert snr_db >= MIN_SNR_DB, snr_db


def test_a_batch_in_one_decoder_pass_gives_each_row_what_it_gives_alone(backend, rows, alone, monkeypatch):
    """All rows padded into one pass of every stage, the decoder's included: the masking is what holds."""
    monkeypatch.setattr(backend, "frame_ratio", float("inf"))
    watched: list[int] = []
    hook = backend._model.decoder.register_forward_pre_hook(lambda *_: watched.append(1))  # noqa: SLF001 - counts passes
    try:
        out = backend.infer_batch(rows, [None] * len(rows))
    finally:
        hook.remove()
    assert watched == []  # the batched path runs the decoder's modules, never Decoder.forward itself
    for batched, single in zip(out, alone, strict=True):
        assert_as_alone(batched, single)


def test_a_row_cancelled_mid_batch_is_dropped_and_the_others_still_speak(backend, rows, alone):
    """Its session vanished while the batch's durations ran: no audio for it, the others' as alone (rows
    in the decoder's frame buckets, as the server runs them)."""
    tokens = [CancelToken() for _ in rows]
    model = backend._model  # noqa: SLF001 - the stage boundary is what this test uses
    hook = model.predictor.lstm.register_forward_hook(lambda *_: tokens[1].cancel())
    try:
        out = backend.infer_batch(rows, tokens)
    finally:
        hook.remove()
    assert isinstance(out[1], RenderCancelled)
    assert_as_alone(out[0], alone[0])
    assert_as_alone(out[2], alone[2])


def test_a_batch_whose_rows_are_all_cancelled_runs_nothing(backend, rows):
    tokens = [CancelToken() for _ in rows]
    for token in tokens:
        token.cancel()
    ran: list[int] = []
    hook = backend._model.bert.register_forward_hook(lambda *_: ran.append(1))  # noqa: SLF001 - watches the model
    try:
        out = backend.infer_batch(rows, tokens)
    finally:
        hook.remove()
    assert all(isinstance(o, RenderCancelled) for o in out) and ran == []


def test_a_batch_needs_one_token_per_row(backend, rows):
    with pytest.raises(ValueError, match="one cancel token"):
        backend.infer_batch(rows, [None])


# One sentence, one chunk of about 270 phonemes: seconds of the torch engine's CPU time, during which the short
# texts below are read and queued behind it.
LONG = (
    "The river runs past the old mill and under two stone bridges, then it winds through the fields and the"
    " village where the market is held every Saturday morning, and at last it reaches the sea beyond the dunes"
    " where the fishing boats come in at dusk."
)
# Three texts of one length bucket (22-23 phonemes): the pieces of three sessions that may share a pass.
SHORT = ("Hello there, my friend.", "Yes, of course I can.", "The train leaves at nine.")


def test_a_server_batching_across_sessions_renders_them_in_one_pass_and_answers_each(torch_server_url):
    """Three texts that arrive while the one model worker renders another session's long sentence wait together
    and are rendered in one pass (/ping's ``batched`` counts them: one at a time it stays put); each listener
    hears its own text, so no row went to another (torch_server_url: --max-batch 4, one worker)."""
    before = read_status(torch_server_url)
    assert before is not None and before.ready

    async def long_then_shorts() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=600) as client:
            post = lambda text: client.post(f"{torch_server_url}/invocations", json={"text": text, "format": "pcm"})  # noqa: E731
            long = asyncio.ensure_future(post(LONG))
            # Its sentence read (the G2P slice count), its render is on the worker for seconds; the short texts'
            # reading takes milliseconds, so they are queued before it ends however loaded the machine.
            while read_status(torch_server_url).g2p_slices == before.g2p_slices:
                await asyncio.sleep(0.01)
            shorts = await asyncio.gather(*(post(text) for text in SHORT))
            assert (await long).status_code == 200
            return shorts

    answers = asyncio.run(long_then_shorts())
    assert [r.status_code for r in answers] == [200, 200, 200]
    after = read_status(torch_server_url)
    assert after.batched - before.batched == len(SHORT), (before, after)
    assert after.renders - before.renders == 1 + len(SHORT)  # one timing per piece spoken
    for text, answer in zip(SHORT, answers, strict=True):
        assert_heard(answer.content, 24_000, text)
