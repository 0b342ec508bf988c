"""The seam between the engine and a model runtime: phonemes and a style vector in, audio and durations out.

Only the interface: the backends implement it (:mod:`onnx_backend`, :mod:`torch_backend`, the benchmark's
:mod:`slowed`), :mod:`registry` picks one, and nothing here imports any of them.

A render can be stopped while it runs (:class:`CancelToken`): audio that no one will hear (an interrupt, a
``cancel``, a client gone, SIGTERM) must not hold the worker every session waits on
(docs/decisions/120-cancel-the-running-inference.md).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

FRAME_SAMPLES = 600  # one predicted duration frame: 25 ms at 24 kHz (the decoder's total upsampling)


class RenderCancelled(Exception):
    """The render was stopped because no one will hear it; not an error to report to anyone."""


class CancelToken:
    """Cancelled once, from any thread; whoever is doing the work stops at its next chance.

    A backend registers what stops its running call (:meth:`on_cancel`: ONNX Runtime's terminate flag) and
    checks :meth:`check` between its stages; the scheduler drops a queued job whose token is cancelled.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._hooks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Cancel (idempotent) and run every hook registered now, on the calling thread."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            hooks = list(self._hooks)
        for hook in hooks:
            hook()

    def check(self) -> None:
        """Raise :class:`RenderCancelled` once cancelled: for work between its stages."""
        if self._cancelled:
            raise RenderCancelled("the render was cancelled")

    @contextlib.contextmanager
    def on_cancel(self, hook: Callable[[], None]) -> Iterator[None]:
        """Run ``hook`` if the token is cancelled while inside the block (at once if it already is)."""
        with self._lock:
            now = self._cancelled
            if not now:
                self._hooks.append(hook)
        if now:
            hook()
        try:
            yield
        finally:
            with self._lock:
                if hook in self._hooks:
                    self._hooks.remove(hook)


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

    def infer(self, phonemes: str, style: np.ndarray, speed: float, cancel: CancelToken | None = None) -> Inference:
        """Speak ``phonemes`` (at most 510: kokoro_server.text.chunks.MAX_PHONEMES) with ``style`` (float32 ``[1, 256]``); raises
        :class:`RenderCancelled` once ``cancel`` is cancelled, as soon as the runtime can stop."""
        ...
