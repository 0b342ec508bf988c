"""The windowed-generator study's instrument (docs/decisions/122-the-edge-silence-is-decoded.md): with the
whole run's statistics replayed, the generator on a window gives the whole run's audio there; with the
window's own statistics it does not. Kokoro's own generator with random weights and a made-up input whose
edges are quiet and unvoiced, as a piece's edge silence is: the architecture is what is tested."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from kokoro_devtools.edge_study.windowed import (
    GROUPS,
    STEP_SAMPLES,
    GeneratorInput,
    StatisticsTap,
    generate,
    heard_window,
    snr_db,
)
from kokoro_server.assets import PACKAGE_DATA

MARGIN = 4  # steps of 12.5 ms: the reach the study found enough with the real weights
STEPS = 64
SPEECH = (24, 40)  # the "speech": a quarter of the steps, in the middle
CONFIG = json.loads((PACKAGE_DATA / "kokoro-82m-config.json").read_text(encoding="utf-8"))


def random_generator() -> torch.nn.Module:
    """Kokoro's iSTFTNet generator as the model's config builds it, with torch's random initial weights. kokoro
    is imported here: every worker's collection imports this module, and kokoro pulls in transformers and misaki."""
    from kokoro.istftnet import Decoder

    decoder = Decoder(
        dim_in=CONFIG["hidden_dim"], style_dim=CONFIG["style_dim"], dim_out=CONFIG["n_mels"], **CONFIG["istftnet"]
    )
    return decoder.generator.eval()


@pytest.fixture(scope="module")
def tapped():
    torch.manual_seed(0)
    generator = random_generator()
    loud = torch.zeros(STEPS)
    loud[SPEECH[0] : SPEECH[1]] = 1.0
    features = torch.randn(1, CONFIG["istftnet"]["upsample_initial_channel"], STEPS) * (0.05 + loud)
    given = GeneratorInput(features, torch.randn(1, CONFIG["style_dim"]) * 0.1, (200.0 * loud)[None])
    tap = StatisticsTap(generator)
    yield tap, given
    tap.close()


def window_against_whole(tap, given, **replay) -> float:
    torch.manual_seed(0)  # the harmonic source's noise: the same whatever ran before
    whole = generate(tap, given)
    window = (SPEECH[0] - MARGIN, SPEECH[1] + MARGIN)
    out = generate(tap, given, window, **replay)
    return snr_db(
        whole[SPEECH[0] * STEP_SAMPLES : SPEECH[1] * STEP_SAMPLES], out[MARGIN * STEP_SAMPLES : -MARGIN * STEP_SAMPLES]
    )


def test_the_whole_runs_statistics_make_the_window_sound_as_the_whole(tapped) -> None:
    assert window_against_whole(*tapped) > 40


def test_the_windows_own_statistics_change_it(tapped) -> None:
    """The control: without the replay the same comparison fails."""
    assert window_against_whole(*tapped, own=frozenset(GROUPS)) < 25


def test_a_replay_needs_a_recording(tapped) -> None:
    fresh = StatisticsTap(tapped[0].generator)
    try:
        with pytest.raises(RuntimeError, match="nothing recorded"), fresh.replaying((0, 4)):
            pass
    finally:
        fresh.close()


def test_a_closed_tap_leaves_the_generator_as_it_was() -> None:
    generator = random_generator()
    hooks = sum(len(m._forward_hooks) for m in generator.modules())
    StatisticsTap(generator).close()
    assert sum(len(m._forward_hooks) for m in generator.modules()) == hooks


@pytest.mark.parametrize(
    ("first", "stop", "window"), [(3000, 6000, (6, 24)), (0, 600, (0, 6)), (29_000, 30_000, (92, 100))]
)
def test_the_heard_window_covers_the_heard_samples_and_the_margin(first, stop, window) -> None:
    assert heard_window(first, stop, 100, MARGIN) == window
    assert np.all(np.array(window) >= 0)
