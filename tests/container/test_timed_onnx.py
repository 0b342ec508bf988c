"""The timed ONNX model: the int8 graph with its durations exposed, built by set-up, same audio as the original."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from kokoro_server import assets as model_assets
from kokoro_server.engine.backend import FRAME_SAMPLES
from kokoro_server.engine.timed_onnx import DURATIONS_OUTPUT, GraphEditError, expose
from kokoro_server.offline_assets import build_timed_onnx

ORIGINAL = model_assets.REPO_ASSETS / model_assets.ONNX_FILE


@pytest.fixture(scope="module")
def original() -> bytes:
    return ORIGINAL.read_bytes()


def test_the_edit_is_the_pinned_model_and_idempotent(original, tmp_path):
    timed = expose(original)
    (tmp_path / "m.onnx").write_bytes(timed)
    assert model_assets.sha256_of(tmp_path / "m.onnx") == model_assets.manifest()["onnx_timed"]["sha256"]
    assert expose(timed) == timed
    assert len(timed) - len(original) < 100  # one output entry added; nothing else touched


def test_what_the_edit_cannot_apply_to_is_a_clear_error(original):
    with pytest.raises(GraphEditError, match="no typed tensor named 'nope'"):
        expose(original, "nope")
    for junk in (b"", b"not a model at all", b"\x3a\xff\xff\xff\xff\x0f"):
        with pytest.raises(GraphEditError):
            expose(junk)


def test_set_up_builds_and_verifies_it(tmp_path):
    (tmp_path / model_assets.ONNX_FILE).symlink_to(ORIGINAL)
    built = build_timed_onnx(tmp_path)
    assert built.name == model_assets.TIMED_ONNX_FILE
    before = built.stat().st_mtime_ns
    assert build_timed_onnx(tmp_path).stat().st_mtime_ns == before  # verified file kept, not rebuilt


@pytest.mark.slow
def test_same_audio_as_the_original_and_durations_cover_it_exactly(original):
    assets = model_assets.resolve("onnx")
    vocab, style = assets.vocab(), assets.load_voice("af_heart")
    phonemes = "ðə mjuzˈiəm ˈOpᵊnz ˈɛvɹi mˈɔɹnɪŋ, ænd ðə tˈʊɹ stˈɑɹts ˈlAtəɹ."
    tokens = np.array([[0, *(vocab[p] for p in phonemes if p in vocab), 0]], dtype=np.int64)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    plain = ort.InferenceSession(original, options)
    timed = ort.InferenceSession(str(assets.onnx_model), options)
    assert [o.name for o in timed.get_outputs()] == ["audio", DURATIONS_OUTPUT]
    for speed in (1.0, 1.4):
        feeds = {
            "tokens": tokens,
            "style": style[len(phonemes) - 1].reshape(1, 256),
            "speed": np.array([speed], dtype=np.float32),
        }
        (expected,) = plain.run(None, feeds)
        audio, frames = timed.run(None, feeds)
        assert np.array_equal(audio, expected)  # the graph is deterministic and unchanged
        assert frames.shape == tokens.shape and frames.min() >= 1
        assert audio.size == frames.sum() * FRAME_SAMPLES
