"""Kokoro-82M on onnxruntime: the CPU default (int8 weights from the offline set).

The graph is loaded with its duration tensor exposed as a second output (:mod:`timed_onnx`): the offline
set's timed model already has it; any other Kokoro v1.0 export given with ``--onnx-model`` gets the same
edit in memory.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort

from kokoro_server.assets import STYLE_DIM, ModelAssets
from kokoro_server.engine.backend import CancelToken, Inference
from kokoro_server.engine.timed_onnx import DURATIONS_OUTPUT, expose
from kokoro_server.engine.tokens import frames_per_character, token_ids


class OnnxBackend:
    name = "onnx"

    def __init__(self, assets: ModelAssets, *, device: str = "cpu", threads: int = 0, spin: bool = True):
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        # ONNX Runtime's own default is to spin (docs/decisions/158-onnx-threads-that-sleep.md)
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        providers = ["CPUExecutionProvider"]
        if device == "cuda":
            # ONNX Runtime falls back to the CPU without a word when CUDA is missing: say so instead.
            if "CUDAExecutionProvider" not in ort.get_available_providers():
                raise RuntimeError(
                    "--device cuda was asked for, but this onnxruntime has no CUDA provider "
                    "(install onnxruntime-gpu, or run the GPU image's engine: --engine torch)"
                )
            providers.insert(0, "CUDAExecutionProvider")
        if assets.onnx_model is None:
            raise ValueError("these model assets hold no ONNX model (resolve them for engine 'onnx')")
        model = expose(assets.onnx_model.read_bytes())
        self._session = ort.InferenceSession(model, options, providers=providers)
        if self._session.get_providers()[0] != providers[0]:  # CUDA present but unusable (drivers, libraries)
            raise RuntimeError(f"--device {device} was asked for, but onnxruntime could not use {providers[0]}")
        self._vocab = assets.vocab()

    def infer(self, phonemes: str, style: np.ndarray, speed: float, cancel: CancelToken | None = None) -> Inference:
        feeds: dict[str, np.ndarray] = {
            "tokens": np.array([[0, *token_ids(phonemes, self._vocab), 0]], dtype=np.int64),
            "style": np.asarray(style, dtype=np.float32).reshape(1, STYLE_DIM),
            "speed": np.array([speed], dtype=np.float32),
        }
        audio, durations = self._run(["audio", DURATIONS_OUTPUT], feeds, cancel)
        return Inference(
            audio=audio.reshape(-1).astype(np.float32, copy=False),
            frames=frames_per_character(phonemes, self._vocab, durations),
        )

    def _run(self, outputs: list[str], feeds: dict[str, np.ndarray], cancel: CancelToken | None) -> list:
        """One ``session.run`` that ``cancel`` stops at the next node boundary: ONNX Runtime checks its
        ``RunOptions.terminate`` flag between nodes and the run raises (a generic failure, no code of its
        own, so a run that fails after a cancel is taken as the cancel). One options object per run."""
        if cancel is None:
            return self._session.run(outputs, feeds)
        options = ort.RunOptions()
        with cancel.on_cancel(lambda: setattr(options, "terminate", True)):
            cancel.check()
            try:
                return self._session.run(outputs, feeds, options)
            except Exception:
                cancel.check()
                raise
