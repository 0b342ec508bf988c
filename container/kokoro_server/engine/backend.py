"""The seam between the engine and a model runtime: phonemes and a style vector in, audio and durations out.

Only the interface: the backends implement it (:mod:`onnx_backend`, :mod:`torch_backend`, the benchmark's
:mod:`slowed`), :mod:`registry` picks one, and nothing here imports any of them.
"""

from __future__ import annotations

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
