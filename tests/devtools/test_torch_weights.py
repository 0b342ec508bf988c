"""KModel weights rebuilt from the offline int8 ONNX export: they load strictly and hold numbers only, and
the torch engine (the GPU image's) speaks with them words the recognizer hears as meant.

The rebuild takes seconds, so it is done once for this module, into a temporary folder; the GPU image
keeps the official weights (086-torch-weights-from-onnx.md).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import torch
from rebuilt_weights import CONFIG, rebuild
from servers import SERVER_START_S, model_server_process
from speech import assert_heard, misread, transcribe, wer

from kokoro_devtools.torch_weights import PARTS
from kokoro_devtools.torch_weights.__main__ import fresh_model

SENTENCE = "The museum has twelve rooms and forty paintings on show."


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, torch.Tensor]], Path]:
    """The rebuilt state dicts, and the .pth file ``python -m kokoro_devtools.torch_weights`` would write."""
    return rebuild(tmp_path_factory.mktemp("torch-weights"))


def test_converted_weights_load_strictly_into_kmodel(rebuilt):
    parts, _ = rebuilt
    model = fresh_model(CONFIG)
    for part in PARTS:
        getattr(model, part).load_state_dict(parts[part], strict=True)
    assert all(torch.isfinite(t).all() for sd in parts.values() for t in sd.values())
    # weight norm reproduces the export's folded weights (no NaN from all-zero channels)
    assert all(torch.isfinite(p).all() for p in model.decoder.parameters())
    conv = model.decoder.generator.resblocks[5].convs2[1]
    conv.eval()
    assert torch.isfinite(conv(torch.ones(1, 128, 16))).all()


@pytest.mark.slow
def test_the_torch_engine_with_the_rebuilt_weights_is_heard_as_meant(rebuilt):
    """A server on the torch engine, as the GPU image runs it (on CPU here), says a sentence the recognizer
    hears as meant; the same sentence with other numbers ("thirteen rooms and fifty paintings") is heard as
    wrong, so the check can fail."""
    _, weights = rebuilt
    with (
        model_server_process(
            "torch", "--torch-model", str(weights), "--warm-up-text", "Hi.", timeout_s=SERVER_START_S
        ) as url,
        httpx.Client(timeout=300) as client,
    ):
        assert client.get(f"{url}/ping").json()["engine"] == "torch"
        right, wrong = (
            client.post(f"{url}/invocations", json={"text": text, "format": "pcm"}).content
            for text in (SENTENCE, misread(SENTENCE))
        )
    assert_heard(right, 24_000, SENTENCE)
    heard_wrong = transcribe(wrong, 24_000)
    assert wer(misread(SENTENCE), heard_wrong) <= 0.1, heard_wrong
    assert wer(SENTENCE, heard_wrong) > 0.1, heard_wrong
