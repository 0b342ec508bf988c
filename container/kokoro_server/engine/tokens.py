"""Between the phoneme string and a model's tokens: the input ids, and the model's durations per character.

Both backends feed Kokoro the same vocabulary and read back one duration per token, so they share these.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


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
