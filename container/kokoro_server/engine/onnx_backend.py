"""Kokoro-82M on onnxruntime: the CPU default (int8 weights from the offline set)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort

from kokoro_server.assets import STYLE_DIM, ModelAssets


class OnnxBackend:
    name = "onnx"

    def __init__(self, assets: ModelAssets, *, device: str = "cpu", threads: int = 0):
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        providers = ["CPUExecutionProvider"]
        if device == "cuda":
            providers.insert(0, "CUDAExecutionProvider")
        self._session = ort.InferenceSession(str(assets.onnx_model), options, providers=providers)
        self._vocab = assets.vocab()

    def infer(self, phonemes: str, style: np.ndarray, speed: float) -> np.ndarray:
        ids = [self._vocab[p] for p in phonemes if p in self._vocab]
        feeds = {
            "tokens": np.array([[0, *ids, 0]], dtype=np.int64),
            "style": np.asarray(style, dtype=np.float32).reshape(1, STYLE_DIM),
            "speed": np.array([speed], dtype=np.float32),
        }
        return self._session.run(None, feeds)[0].reshape(-1).astype(np.float32, copy=False)
