"""KModel weights rebuilt from the offline int8 ONNX export: they load strictly and hold numbers only, and
the torch engine (the GPU image's) speaks with them words the recognizer hears as meant.

The rebuild takes seconds, so it is done once per test process, into a temporary folder (the session fixtures
of tests/conftest.py, shared with the torch engine's other tests); the GPU image keeps the official weights
(086-torch-weights-from-onnx.md).
"""

from __future__ import annotations

import httpx
import pytest
import torch
from rebuilt_weights import CONFIG
from speech import assert_heard, misread, transcribe, wer

from kokoro_devtools.torch_weights import PARTS
from kokoro_devtools.torch_weights.__main__ import fresh_model
from speech_protocol.http.server_status import read_status

SENTENCE = "The museum has twelve rooms and forty paintings on show."


def test_converted_weights_load_strictly_into_kmodel(rebuilt_torch_weights):
    parts, _ = rebuilt_torch_weights
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
def test_the_torch_engine_with_the_rebuilt_weights_is_heard_as_meant(torch_server_url):
    """A server on the torch engine with the rebuilt weights, as the GPU image runs it (on CPU here), says a
    sentence the recognizer hears as meant; the same sentence with other numbers ("thirteen rooms and fifty
    paintings") is heard as wrong, so the check can fail."""
    with httpx.Client(timeout=300) as client:
        assert read_status(torch_server_url).engine == "torch"
        right, wrong = (
            client.post(f"{torch_server_url}/invocations", json={"text": text, "format": "pcm"}).content
            for text in (SENTENCE, misread(SENTENCE))
        )
    assert_heard(right, 24_000, SENTENCE)
    heard_wrong = transcribe(wrong, 24_000)
    assert wer(misread(SENTENCE), heard_wrong) <= 0.1, heard_wrong
    assert wer(SENTENCE, heard_wrong) > 0.1, heard_wrong
