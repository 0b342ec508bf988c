"""The edge study's tools: the graph cut into parts that give the whole graph's audio bit for bit, and the
edge capping it measures (docs/decisions/122-the-edge-silence-is-decoded.md)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from kokoro_devtools.edge_study import Model, capped_edges, decode, edge_tokens, speech_span
from kokoro_devtools.edge_study.parts import extract
from kokoro_server import assets as model_assets
from kokoro_server.engine.onnx_wire import GraphEditError
from kokoro_server.engine.timed_onnx import DURATIONS_OUTPUT


def test_capping_takes_from_the_pads_first_and_leaves_every_token_a_frame():
    #        pad  “   h   i   ,   ”   pad
    frames = [19, 3, 2, 4, 7, 2, 5]
    spoken = [False, True, True, False, False]
    assert edge_tokens(spoken) == (2, 3)
    assert capped_edges(np.array(frames), spoken, lead=8, trail=4).tolist() == [5, 3, 2, 4, 2, 1, 1]
    assert capped_edges(np.array(frames), spoken, lead=1, trail=1).tolist() == [1, 1, 2, 4, 1, 1, 1]
    assert capped_edges(np.array([9, 3, 9]), [False], 1, 1).tolist() == [9, 3, 9]  # nothing spoken: as is
    with pytest.raises(ValueError, match="durations for 5 tokens"):
        capped_edges(np.array(frames[:-1]), spoken, 8, 4)


def test_the_speech_span_is_where_the_predicted_energy_rises_widened():
    energy = np.array([-10, -10, -9, 2, 8, 5, -8, -10, -10, -10], dtype=np.float32)
    assert speech_span(energy, lead=1, trail=2) == (2, 8)
    assert speech_span(np.full(4, -10.0), 1, 1) == (0, 4)


def test_a_part_that_needs_what_it_is_not_given_is_a_clear_error():
    path = model_assets.resolve("onnx").onnx_model
    assert path is not None
    model = path.read_bytes()
    with pytest.raises(GraphEditError, match="neither computed nor given"):
        extract(model, ("tokens",), (DURATIONS_OUTPUT,))  # the durations need the style too
    with pytest.raises(GraphEditError, match="no typed tensor named 'nope'"):
        extract(model, ("tokens", "style", "speed", "nope"), ("audio",))


@pytest.mark.slow
def test_the_parts_decode_the_whole_graphs_audio_bit_for_bit():
    assets = model_assets.resolve("onnx")
    model, whole = Model(assets), ort.InferenceSession(str(assets.onnx_model))
    phonemes = "jˈɛs, ʌv kˈɔɹs."
    style = assets.load_voice("af_heart")[len(phonemes)]
    feeds = {**model.inputs(phonemes, style), "speed": np.array([1.0], dtype=np.float32)}
    audio, frames = whole.run(["audio", DURATIONS_OUTPUT], feeds)
    parted = decode(model, phonemes, style, "whole", 0, 0)
    assert np.array_equal(parted.audio, audio.reshape(-1)) and np.array_equal(parted.frames, frames.reshape(-1))
    capped = decode(model, phonemes, style, "capped", 8, 4)  # decoded shorter: the frames say by how much
    assert len(capped.audio) == capped.frames.sum() * 600 < len(audio)
