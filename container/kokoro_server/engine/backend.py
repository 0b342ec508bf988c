"""The seam between the engine and a model runtime: phonemes and a style vector in, audio out."""

from __future__ import annotations

from typing import Protocol

import numpy as np

MAX_PHONEMES = 510  # Kokoro's context is 512 tokens including the two pad tokens


class Backend(Protocol):
    """One loaded model. ``infer`` is blocking and thread-safe; call it off the event loop."""

    name: str

    def infer(self, phonemes: str, style: np.ndarray, speed: float) -> np.ndarray:
        """Speak ``phonemes`` (at most 510) with ``style`` (float32 ``[1, 256]``): float32 mono audio."""
        ...


def load_backend(engine: str, assets, device: str, threads: int) -> Backend:
    """Import and build the backend named ``engine``; the only place that picks one."""
    if engine == "onnx":
        from kokoro_server.engine.onnx_backend import OnnxBackend

        return OnnxBackend(assets, device=device, threads=threads)
    if engine == "torch":
        from kokoro_server.engine.torch_backend import TorchBackend

        return TorchBackend(assets, device=device, threads=threads)
    raise ValueError(f"unknown engine {engine!r}: use 'onnx' or 'torch'")
