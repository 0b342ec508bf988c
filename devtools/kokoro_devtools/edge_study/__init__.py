"""What decoding less of each piece's edge silence would change in what is heard (issue 21, part 1).

Kokoro decodes every frame it predicts, the edge silence too: the leading pad and the trailing punctuation
and pad, about 0.6-0.75 s a piece that the server then trims (docs/decisions/088-piece-overhead.md). The
waveform generator is about 92 % of a render and its cost grows with its frames. This study decodes each
sentence whole (the baseline: today's audio, bit for bit) and two ways shorter, and measures against the
baseline's trimmed audio:

* ``capped``: the edge tokens' predicted durations capped before the rest of the model runs (the leading
  pad and punctuation to ``lead`` frames, the trailing to ``trail``), every phoneme's duration untouched;
* ``sliced``: the whole prosody computed as today, then only the generator's input around the speech
  (half-frames whose predicted energy is above ``ENERGY_SPEECH``, widened by ``lead`` and ``trail``).

Figures per treatment: the unheard audio decoded (seconds beyond what trimming keeps), how far the audible
onset and end moved against the phonemes (ms; positive: later), the trimmed audio's loudness change (dB)
and the energy of its first and last 50 ms against the baseline's. Findings: docs/decisions/
122-the-edge-silence-is-decoded.md; run with ``python -m kokoro_devtools.edge_study``. The torch engine's
generator on the heard window alone, with the whole run's statistics replayed: :mod:`.windowed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import onnxruntime as ort

from kokoro_devtools.edge_study.parts import DECODED, FEATURES, PITCH, split
from kokoro_server.assets import STYLE_DIM, ModelAssets
from kokoro_server.audio import cut, speech_bounds
from kokoro_server.engine.timed_onnx import DURATIONS_OUTPUT
from kokoro_server.engine.tokens import token_ids

FRAME = 600  # samples per predicted frame (kokoro_server.engine.backend.FRAME_SAMPLES)
HALF_FRAME = FRAME // 2  # the prosody's and the generator's time step
ENERGY_SPEECH = -3.0  # predicted energy above this: speech (silence reads about -10, speech 0 to 9)
EDGE_S = 0.05  # the onset and ending windows compared


@dataclass(frozen=True)
class Decoded:
    """One decode: its audio, the frames per token it was decoded with, and where its speech is."""

    audio: np.ndarray
    frames: np.ndarray
    offset: int = 0  # samples of the whole decode left out before this audio (sliced)

    def bounds(self) -> tuple[int, int]:
        return speech_bounds(self.audio)

    def trimmed(self) -> np.ndarray:
        return cut(self.audio, *self.bounds())


class Model:
    """The int8 graph as its three parts (:mod:`kokoro_devtools.edge_study.parts`)."""

    def __init__(self, assets: ModelAssets, threads: int = 0):
        if assets.onnx_model is None:
            raise ValueError("the edge study needs the ONNX model")
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        durations, prosody, generator = split(assets.onnx_model.read_bytes())
        self.durations = ort.InferenceSession(durations, options)
        self.prosody = ort.InferenceSession(prosody, options)
        self.generator = ort.InferenceSession(generator, options)
        self.vocab = assets.vocab()

    def inputs(self, phonemes: str, style: np.ndarray) -> dict[str, np.ndarray]:
        ids = np.array([[0, *token_ids(phonemes, self.vocab), 0]], dtype=np.int64)
        return {"tokens": ids, "style": np.asarray(style, dtype=np.float32).reshape(1, STYLE_DIM)}

    def predict(self, feeds: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        frames, features = self.durations.run(None, {**feeds, "speed": np.array([1.0], dtype=np.float32)})
        return frames, features

    def prosody_of(self, feeds: dict, frames: np.ndarray, features: np.ndarray) -> list[np.ndarray]:
        return self.prosody.run(None, {**feeds, DURATIONS_OUTPUT: frames, FEATURES: features})

    def generate(self, feeds: dict, decoded: np.ndarray, pitch: np.ndarray) -> np.ndarray:
        (audio,) = self.generator.run(None, {"style": feeds["style"], DECODED: decoded, PITCH: pitch})
        return audio.reshape(-1)


def edge_tokens(spoken: Sequence[bool]) -> tuple[int, int]:
    """Tokens (pads included) before the first phoneme and after the last one."""
    first = next((i for i, s in enumerate(spoken) if s), len(spoken))
    last = next((i for i, s in enumerate(reversed(spoken)) if s), len(spoken))
    return 1 + first, 1 + last


def _cap(frames: np.ndarray, cap: int) -> None:
    """Take frames from ``frames`` in order, in place, until they sum to at most ``cap``; each keeps one."""
    excess = int(frames.sum()) - cap
    for i in range(len(frames)):
        take = max(0, min(excess, int(frames[i]) - 1))
        frames[i] -= take
        excess -= take


def capped_edges(frames: np.ndarray, spoken: Sequence[bool], lead: int, trail: int) -> np.ndarray:
    """``frames`` (per token, pads included) with the edge tokens' frames capped, the pads first."""
    out = np.array(frames, dtype=np.int64).reshape(-1)
    if len(out) != len(spoken) + 2:
        raise ValueError(f"{len(out)} durations for {len(spoken)} tokens + 2 pads")
    if any(spoken):
        head, tail = edge_tokens(spoken)
        _cap(out[:head], lead)
        _cap(out[::-1][:tail], trail)
    return out


def speech_span(energy: np.ndarray, lead: int, trail: int) -> tuple[int, int]:
    """Half-frames ``[first, stop)`` of predicted speech widened by ``lead`` and ``trail``; all if none."""
    loud = np.flatnonzero(energy.reshape(-1) > ENERGY_SPEECH)
    if loud.size == 0:
        return 0, energy.size
    return max(0, int(loud[0]) - lead), min(energy.size, int(loud[-1]) + 1 + trail)


def decode(model: Model, phonemes: str, style: np.ndarray, treatment: str, lead: int, trail: int) -> Decoded:
    """Decode ``phonemes`` whole (``treatment`` "whole") or shortened ("capped", "sliced")."""
    feeds = model.inputs(phonemes, style)
    frames, features = model.predict(feeds)
    if treatment == "capped":
        spoken = [p.isalpha() for p in phonemes if p in model.vocab]
        frames = capped_edges(frames, spoken, lead, trail).reshape(1, -1)
    decoded, pitch, energy = model.prosody_of(feeds, frames, features)
    if treatment != "sliced":
        return Decoded(model.generate(feeds, decoded, pitch), frames.reshape(-1))
    first, stop = speech_span(energy, lead, trail)
    part = np.ascontiguousarray(decoded[:, :, first:stop]), np.ascontiguousarray(pitch[:, :, first:stop])
    return Decoded(model.generate(feeds, *part), frames.reshape(-1), offset=first * HALF_FRAME)


def _energy(audio: np.ndarray) -> float:
    return float(np.sum(np.square(audio, dtype=np.float64)))


def compare(base: Decoded, other: Decoded, head: int, tail: int) -> dict[str, float]:
    """``other`` against ``base``: where its speech sits against its phonemes, its loudness and edges."""

    def speech_marks(d: Decoded) -> tuple[int, int]:
        first_phoneme = int(d.frames[:head].sum()) * FRAME - d.offset
        last_phoneme_end = int(d.frames[: len(d.frames) - tail].sum()) * FRAME - d.offset
        start, stop = speech_bounds(d.audio, lead_s=0.0, trail_s=0.0)  # the audible speech itself
        return start - first_phoneme, stop - last_phoneme_end

    (b0, b1), (o0, o1) = speech_marks(base), speech_marks(other)
    bt, ot = base.trimmed(), other.trimmed()
    edge = int(EDGE_S * 24_000)
    start, stop = other.bounds()
    return {
        "unheard_s": round((len(other.audio) - (stop - start)) / 24_000, 3),
        "onset_ms": round((o0 - b0) / 24, 1),
        "end_ms": round((o1 - b1) / 24, 1),
        "loudness_db": round(10 * np.log10((_energy(ot) / len(ot)) / (_energy(bt) / len(bt))), 2),
        "first_50ms": round(_energy(ot[:edge]) / _energy(bt[:edge]), 3),
        "last_50ms": round(_energy(ot[-edge:]) / _energy(bt[-edge:]), 3),
        "decoded": round(len(other.audio) / max(1, len(base.audio)), 3),
    }
