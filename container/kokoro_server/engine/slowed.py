"""A backend slowed on purpose, for benchmarks: the agent's policy measured across real-time factors on one
machine (``--simulate-rtf``, docs/decisions/088-piece-overhead.md).

It wraps the real backend, so the server above it (warm-up, the pace it advertises, its running meter,
admission) measures the slowed engine as it would a slower one, with no knowledge of the slowing.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from kokoro_server.engine.backend import Backend, CancelToken, Inference
from speech_protocol.framing import SAMPLE_RATE

MAX_SIMULATED_RTF = 10.0


class SlowedBackend:
    """Each call takes at least ``rtf`` seconds per second of audio the model produced: the edge silence the
    server trims included, since a slower engine is slower on that too. A cancel ends the hold at once, as
    it would stop a slower engine's run."""

    def __init__(self, inner: Backend, rtf: float):
        if not 0 < rtf <= MAX_SIMULATED_RTF:
            raise ValueError(f"a slowed backend needs an rtf in (0, {MAX_SIMULATED_RTF:g}], got {rtf!r}")
        self.name = inner.name
        self.rtf = rtf
        self._inner = inner

    def infer(self, phonemes: str, style: np.ndarray, speed: float, cancel: CancelToken | None = None) -> Inference:
        start = time.perf_counter()
        out = self._inner.infer(phonemes, style, speed, cancel)
        hold_s = self.rtf * len(out.audio) / SAMPLE_RATE - (time.perf_counter() - start)
        if hold_s > 0:  # the worker thread is held, as a slower engine would hold it
            if cancel is None:
                time.sleep(hold_s)
            else:
                stopped = threading.Event()
                with cancel.on_cancel(stopped.set):
                    stopped.wait(hold_s)
                cancel.check()
        return out
