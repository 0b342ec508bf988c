"""What batching needs to know without loading a model: a row, its length bucket, and frame groups.

The scheduler groups queued chunks by :func:`token_bucket` (a 3-word first piece is never padded to a
paragraph), and the torch engine splits a batch again by predicted frames (:func:`frame_groups`) before the
decoder, whose cost is in frames, under a bound on frames per pass (memory)
(docs/decisions/125-batched-synthesis.md). Nothing here imports torch: the scheduler and the ONNX image
use it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from kokoro_server.engine.backend import Backend, CancelToken, Inference, RenderCancelled

# Token buckets: a row of n phonemes shares a pass with rows of the same power-of-two bucket (at least 16).
MIN_TOKEN_BUCKET = 16
# The decoder's rows in one pass: the longest at most this many times the shortest, and the padded frames
# (rows x longest) at most MAX_BATCH_FRAMES (about 200 s of audio; some GiB of activations in fp32).
FRAME_BUCKET_RATIO = 1.5
MAX_BATCH_FRAMES = 8192


@dataclass(frozen=True)
class BatchRow:
    """One chunk of a batch: what :meth:`Backend.infer` takes, and the seed of the decoder's random source
    (its phase and noise), so that the row draws the same numbers alone or beside others."""

    phonemes: str
    style: np.ndarray  # float32 [1, 256]
    speed: float
    seed: int | None = None  # None: drawn from the process's generator, as a batch-1 render does


@runtime_checkable
class BatchBackend(Backend, Protocol):
    """A backend that can speak several rows in one forward pass."""

    def infer_batch(
        self, rows: Sequence[BatchRow], cancels: Sequence[CancelToken | None]
    ) -> list[Inference | RenderCancelled]:
        """Each row's :class:`Inference` as it would be alone (docs/decisions/125-batched-synthesis.md), or
        :class:`RenderCancelled` for a row whose token was cancelled before its audio was decoded."""
        ...


def token_bucket(phonemes: int) -> int:
    """The bucket of a row of ``phonemes`` characters: the next power of two, at least 16."""
    bucket = MIN_TOKEN_BUCKET
    while bucket < phonemes:
        bucket *= 2
    return bucket


def frame_groups(
    frames: Sequence[int], *, max_frames: int = MAX_BATCH_FRAMES, ratio: float = FRAME_BUCKET_RATIO
) -> list[list[int]]:
    """Indices of ``frames`` in decoder passes: sorted by length, a pass closes when the next row would be
    more than ``ratio`` times its shortest or would push rows x longest past ``max_frames`` (a row longer
    than that alone still gets its own pass)."""
    groups: list[list[int]] = []
    for index in sorted(range(len(frames)), key=lambda i: frames[i]):
        group = groups[-1] if groups else None
        if (
            group is not None
            and frames[index] <= ratio * frames[group[0]]
            and frames[index] * (len(group) + 1) <= max_frames
        ):
            group.append(index)
        else:
            groups.append([index])
    return groups
