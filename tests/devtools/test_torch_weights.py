"""KModel weights rebuilt from the offline int8 ONNX export load strictly, and hold numbers only.

Whether they speak is checked where it was decided (086-torch-weights-from-onnx.md); this test keeps the
name mapping honest: a parameter the graph no longer gives, or one of the wrong shape, fails here.
"""

from __future__ import annotations

import torch

from devtools.torch_weights import PARTS
from devtools.torch_weights.__main__ import convert, fresh_model
from kokoro_server.assets import ONNX_FILE, PACKAGE_DATA, REPO_ASSETS

CONFIG = PACKAGE_DATA / "kokoro-82m-config.json"


def test_converted_weights_load_strictly_into_kmodel():
    parts = convert(REPO_ASSETS / ONNX_FILE, CONFIG)
    model = fresh_model(CONFIG)
    for part in PARTS:
        getattr(model, part).load_state_dict(parts[part], strict=True)
    assert all(torch.isfinite(t).all() for sd in parts.values() for t in sd.values())
    # weight norm reproduces the export's folded weights (no NaN from all-zero channels)
    assert all(torch.isfinite(p).all() for p in model.decoder.parameters())
    conv = model.decoder.generator.resblocks[5].convs2[1]
    conv.eval()
    assert torch.isfinite(conv(torch.ones(1, 128, 16))).all()
