"""The seam between the engine and a model runtime: phonemes and a style vector in, audio and durations out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

MAX_PHONEMES = 510  # Kokoro's context is 512 tokens including the two pad tokens
FRAME_SAMPLES = 600  # one predicted duration frame: 25 ms at 24 kHz (the decoder's total upsampling)


@dataclass(frozen=True)
class Inference:
    """One forward pass. ``frames`` has ``len(phonemes) + 2`` entries: the leading pad token, each
    character of the phonemes (0 for a character the model has no symbol for, which it skips), the
    trailing pad token; ``audio`` is exactly ``frames.sum() * FRAME_SAMPLES`` samples long."""

    audio: np.ndarray  # float32 mono, 24 kHz
    frames: np.ndarray  # int64


class Backend(Protocol):
    """One loaded model. ``infer`` is blocking and thread-safe; call it off the event loop."""

    name: str

    def infer(self, phonemes: str, style: np.ndarray, speed: float) -> Inference:
        """Speak ``phonemes`` (at most 510) with ``style`` (float32 ``[1, 256]``)."""
        ...


def token_ids(phonemes: str, vocab: Mapping[str, int]) -> list[int]:
    """The model's input ids for ``phonemes``: characters outside the vocabulary are skipped, as
    kokoro's own ``KModel`` does."""
    return [vocab[p] for p in phonemes if p in vocab]


def frames_per_character(phonemes: str, vocab: Mapping[str, int], token_frames: np.ndarray) -> np.ndarray:
    """Spread the model's frames per input token (pads included) over the characters of ``phonemes``."""
    token_frames = np.asarray(token_frames, dtype=np.int64).reshape(-1)
    known = np.array([p in vocab for p in phonemes], dtype=bool)
    if token_frames.size != int(known.sum()) + 2:
        raise ValueError(f"the model gave {token_frames.size} durations for {int(known.sum())} tokens + 2 pads")
    frames = np.zeros(len(phonemes) + 2, dtype=np.int64)
    frames[0], frames[-1] = token_frames[0], token_frames[-1]
    frames[1:-1][known] = token_frames[1:-1]
    return frames


def load_backend(engine: str, assets, device: str, threads: int) -> Backend:
    """Import and build the backend named ``engine``; the only place that picks one."""
    if engine == "onnx":
        from kokoro_server.engine.onnx_backend import OnnxBackend

        return OnnxBackend(assets, device=device, threads=threads)
    if engine == "torch":
        from kokoro_server.engine.torch_backend import TorchBackend

        return TorchBackend(assets, device=device, threads=threads)
    raise ValueError(f"unknown engine {engine!r}: use 'onnx' or 'torch'")
