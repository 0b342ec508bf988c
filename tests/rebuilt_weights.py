"""Kokoro's torch weights rebuilt from the offline int8 ONNX export (086-torch-weights-from-onnx.md): the
real model on the torch engine, for tests that need its speech (random weights speak noise of random
length). The rebuild takes seconds: a test module does it once, into a temporary folder."""

from __future__ import annotations

from pathlib import Path

import torch

from kokoro_devtools.torch_weights.__main__ import convert
from kokoro_server.assets import ONNX_FILE, PACKAGE_DATA, REPO_ASSETS

CONFIG = PACKAGE_DATA / "kokoro-82m-config.json"


def rebuild(folder: Path) -> tuple[dict[str, dict[str, torch.Tensor]], Path]:
    """The rebuilt state dicts, and the .pth file ``python -m kokoro_devtools.torch_weights`` would write there."""
    parts = convert(REPO_ASSETS / ONNX_FILE, CONFIG)
    path = folder / "kokoro-v1_0.pth"
    torch.save(parts, path)
    return parts, path
