"""Kokoro's torch model with random weights, written in kokoro's own format and loaded through the real
``KModel(config=..., model=...)`` path: the torch engine end to end without the real .pth (GPU-image only).
Writing it takes seconds: a test module does it once, into a temporary folder. torch and kokoro are imported
there, not here: every worker's collection imports this module, and kokoro pulls in transformers and misaki."""

from __future__ import annotations

from pathlib import Path

from kokoro_server.assets import PACKAGE_DATA

PARTS = ("bert", "bert_encoder", "predictor", "text_encoder", "decoder")


def write_random_weights(folder: Path) -> Path:
    """A .pth of a Kokoro model initialised from a fixed seed, written in ``folder``."""
    import torch
    from kokoro import KModel

    empty = folder / "empty.pth"
    torch.save({}, empty)
    torch.manual_seed(0)
    model = KModel(repo_id="hexgrad/Kokoro-82M", config=str(PACKAGE_DATA / "kokoro-82m-config.json"), model=str(empty))
    weights = folder / "random-kokoro.pth"
    torch.save({part: getattr(model, part).state_dict() for part in PARTS}, weights)
    return weights
