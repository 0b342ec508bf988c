"""Kokoro-82M on PyTorch through kokoro's own ``KModel``: the GPU image's engine.

Loaded with an explicit config and weights file, so the Hugging Face hub is never contacted.
"""

from __future__ import annotations

import numpy as np
import torch
from kokoro import KModel

from kokoro_server.assets import STYLE_DIM, ModelAssets
from kokoro_server.engine.backend import Inference
from kokoro_server.engine.tokens import frames_per_character


class TorchBackend:
    name = "torch"

    def __init__(self, assets: ModelAssets, *, device: str = "cpu", threads: int = 0):
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("--device cuda was asked for, but torch sees no CUDA device")
        if threads:
            torch.set_num_threads(threads)
        self._device = device
        self._model = (
            KModel(repo_id="hexgrad/Kokoro-82M", config=str(assets.config), model=str(assets.torch_model))
            .to(device)
            .eval()
        )

    def infer(self, phonemes: str, style: np.ndarray, speed: float) -> Inference:
        ref_s = torch.from_numpy(np.asarray(style, dtype=np.float32).reshape(1, STYLE_DIM))
        with torch.inference_mode():
            out = self._model(phonemes, ref_s, speed, return_output=True)
        return Inference(
            audio=out.audio.reshape(-1).float().numpy(),
            frames=frames_per_character(phonemes, self._model.vocab, out.pred_dur.numpy()),
        )
