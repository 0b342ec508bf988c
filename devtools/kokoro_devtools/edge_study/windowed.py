"""The torch generator run on the heard window only, with its time statistics taken from the whole piece.

Kokoro's waveform generator is convolutions and AdaIN layers; each AdaIN normalizes over every step of its
input (an instance norm), the edge silence included. Running the generator on the heard steps alone
therefore changes what is heard (docs/decisions/122-the-edge-silence-is-decoded.md). This study separates
the two ways a window could differ from the whole run: the convolutions' view past the window's edges, and
the statistics. :class:`StatisticsTap` hooks kokoro's own modules (nothing is re-implemented): it records
each generator instance norm's mean and variance and the harmonic source on the whole run, and replays them
on the window, for every layer or for all but one group of layers. Equal audio with replayed statistics
means the convolutions' reach fits in the margin, and that a cheap estimate of the statistics is all a
windowed decode needs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from kokoro_server import assets as model_assets
from kokoro_server.assets import PACKAGE_DATA
from kokoro_server.audio import speech_bounds
from kokoro_server.engine.normalize import normalize
from kokoro_server.engine.phonemes import Phonemizer, chunk_phonemes
from kokoro_server.engine.voices import VoiceBank

STEP_SAMPLES = 300  # audio samples per generator input step (upsampling 10 x 6, iSTFT hop 5)
# The generator's instance norms in four groups: the main branch (``resblocks``) and the harmonic source's
# branch (``noise_res``), at each of its two upsampling stages.
GROUPS = ("main0", "main1", "source0", "source1")


@dataclass(frozen=True)
class GeneratorInput:
    """What the decoder hands the generator for one piece: features, style, pitch, each over ``steps``."""

    features: torch.Tensor  # [1, C, steps]
    style: torch.Tensor  # [1, 128]
    pitch: torch.Tensor  # [1, steps]

    @property
    def steps(self) -> int:
        return int(self.features.shape[-1])


class StatisticsTap:
    """Record the whole run's instance-norm statistics and harmonic source; replay them on a window."""

    def __init__(self, generator: Any) -> None:  # kokoro's Generator: its submodules are untyped ModuleLists
        self.generator = generator
        self.groups: dict[nn.Module, str] = {}
        for stage in range(generator.num_upsamples):
            for block in generator.resblocks[stage * generator.num_kernels : (stage + 1) * generator.num_kernels]:
                self.groups.update({ada.norm: f"main{stage}" for ada in [*block.adain1, *block.adain2]})
            noise = generator.noise_res[stage]
            self.groups.update({ada.norm: f"source{stage}" for ada in [*noise.adain1, *noise.adain2]})
        self.stats: dict[nn.Module, tuple[torch.Tensor, torch.Tensor]] = {}
        self.source: tuple[torch.Tensor, ...] = ()
        self._mode = "off"
        self._own: frozenset[str] = frozenset()
        self._window = (0, 0)
        self._handles = [norm.register_forward_hook(self._norm_hook) for norm in self.groups]
        self._handles.append(generator.m_source.register_forward_hook(self._source_hook))

    def close(self) -> None:
        for handle in self._handles:
            handle.remove()

    @contextmanager
    def recording(self) -> Iterator[None]:
        self.stats.clear()
        self._mode = "record"
        try:
            yield
        finally:
            self._mode = "off"

    @contextmanager
    def replaying(self, window: tuple[int, int], own: frozenset[str] = frozenset()) -> Iterator[None]:
        """Steps ``window`` of the recorded run; the groups in ``own`` take their statistics from it alone."""
        if not self.stats:
            raise RuntimeError("nothing recorded to replay")
        self._mode, self._own, self._window = "replay", own, window
        try:
            yield
        finally:
            self._mode = "off"

    def _norm_hook(self, norm: Any, inputs: tuple[Any, ...], output: torch.Tensor) -> torch.Tensor | None:
        x = inputs[0]
        if self._mode == "record":
            self.stats[norm] = (x.mean(dim=-1, keepdim=True), x.var(dim=-1, unbiased=False, keepdim=True))
            return None
        if self._mode != "replay" or self.groups[norm] in self._own:
            return None
        mean, var = self.stats[norm]
        normed = (x - mean) * torch.rsqrt(var + norm.eps)
        return normed * norm.weight[None, :, None] + norm.bias[None, :, None]

    def _source_hook(self, module: nn.Module, inputs: tuple[Any, ...], output: tuple[torch.Tensor, ...]) -> Any:
        if self._mode == "record":
            self.source = tuple(output)
            return None
        if self._mode != "replay":
            return None
        start, stop = (edge * STEP_SAMPLES for edge in self._window)
        return tuple(part[:, start:stop] for part in self.source)  # the whole run's random phase and noise


def capture_input(model: Any, phonemes: str, style: torch.Tensor) -> GeneratorInput:
    """Run the whole model once and keep what reached its generator."""
    seen: list[tuple[Any, ...]] = []
    handle = model.decoder.generator.register_forward_pre_hook(lambda _m, args: seen.append(args))
    try:
        with torch.inference_mode():
            model(phonemes, style)
    finally:
        handle.remove()
    features, s, pitch = seen[-1]
    steps = int(features.shape[-1])
    return GeneratorInput(features, s, pitch[..., :steps])


def generate(
    tap: StatisticsTap, given: GeneratorInput, window: tuple[int, int] | None = None, **replay: Any
) -> np.ndarray:
    """The generator's audio for the whole input (recording), or for ``window`` of steps (replaying)."""
    with torch.inference_mode():
        if window is None:
            with tap.recording():
                return tap.generator(given.features, given.style, given.pitch).reshape(-1).numpy()
        start, stop = window
        with tap.replaying(window, **replay):
            cut = tap.generator(given.features[..., start:stop], given.style, given.pitch[..., start:stop])
        return cut.reshape(-1).numpy()


def heard_window(first: int, stop: int, steps: int, margin: int) -> tuple[int, int]:
    """Steps covering audio samples ``[first, stop)`` and ``margin`` steps more each side."""
    return max(0, first // STEP_SAMPLES - margin), min(steps, math.ceil(stop / STEP_SAMPLES) + margin)


def snr_db(reference: np.ndarray, other: np.ndarray) -> float:
    noise = float(np.sum((reference - other) ** 2, dtype=np.float64))
    return 10 * math.log10(float(np.sum(reference**2, dtype=np.float64)) / max(noise, 1e-30))


def log_spectral_distance_db(reference: np.ndarray, other: np.ndarray, frame: int = 1200) -> float:
    """Mean absolute difference of the two log-magnitude spectra, 50 ms Hann frames, half overlapping."""

    def spectra(audio: np.ndarray) -> np.ndarray:
        window = np.hanning(frame)
        frames = [audio[i : i + frame] * window for i in range(0, len(audio) - frame, frame // 2)]
        return 20 * np.log10(np.abs(np.fft.rfft(np.array(frames), axis=1)) + 1e-4)

    return float(np.mean(np.abs(spectra(reference) - spectra(other))))


def timed(run: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``run(*args, **kwargs)`` and the seconds it took."""
    start = time.perf_counter()
    out = run(*args, **kwargs)
    return out, time.perf_counter() - start


# Short pieces, where the edge silence weighs most, and two sentences, as the agent cuts them.
TEXTS = (
    "Sure.",
    "Yes, of course.",
    "Here is a plan for your first day in the city.",
    "Of course, the museum is open every day from nine until five.",
)
MARGINS = (4, 8)
# (name, the groups whose statistics come from the window alone): none, each group, all.
VARIANTS = (
    ("whole statistics", frozenset()),
    *((f"all but {g}", frozenset({g})) for g in GROUPS),
    ("window statistics", frozenset(GROUPS)),
)


def study(model: Any, pieces: list[tuple[str, str, torch.Tensor]]) -> list[dict[str, Any]]:
    """Every piece (text, phonemes, style) decoded whole, then on its heard window per margin and variant."""
    tap = StatisticsTap(model.decoder.generator)
    rows: list[dict[str, Any]] = []
    try:
        for text, phonemes, style in pieces:
            given = capture_input(model, phonemes, style)
            whole, whole_s = timed(generate, tap, given)
            first, stop = speech_bounds(whole)
            reference = whole[first:stop]
            with torch.inference_mode():  # the model's own spread: the whole piece again, another random source
                again = tap.generator(given.features, given.style, given.pitch).reshape(-1).numpy()[first:stop]
            rows.append(
                {
                    "text": text,
                    "variant": "whole again, another random source",
                    "snr_db": round(snr_db(reference, again), 1),
                    "lsd_db": round(log_spectral_distance_db(reference, again), 2),
                }
            )
            for margin in MARGINS:
                window = heard_window(first, stop, given.steps, margin)
                for name, own in VARIANTS:
                    out, window_s = timed(generate, tap, given, window, own=own)
                    heard = out[first - window[0] * STEP_SAMPLES : stop - window[0] * STEP_SAMPLES]
                    rows.append(
                        {
                            "text": text,
                            "margin_steps": margin,
                            "variant": name,
                            "steps": [given.steps, window[1] - window[0]],
                            "seconds": [round(whole_s, 3), round(window_s, 3)],
                            "snr_db": round(snr_db(reference, heard), 1),
                            "lsd_db": round(log_spectral_distance_db(reference, heard), 2),
                            "loudness_db": round(
                                10 * math.log10(float(np.sum(heard**2)) / float(np.sum(reference**2))), 2
                            ),
                        }
                    )
                    print(rows[-1], flush=True)
    finally:
        tap.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The generator on the heard window, whole-run statistics replayed.")
    parser.add_argument(
        "--weights", type=Path, required=True, help="kokoro-v1_0.pth (python -m kokoro_devtools.torch_weights)"
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    from kokoro import KModel

    model = KModel(
        repo_id="hexgrad/Kokoro-82M", config=str(PACKAGE_DATA / "kokoro-82m-config.json"), model=str(args.weights)
    ).eval()
    phonemizer, voice = Phonemizer(), VoiceBank(model_assets.resolve("onnx")).get("af_heart")
    pieces = []
    for text in TEXTS:
        (phonemes,) = chunk_phonemes(phonemizer.phonemize(normalize(text).spoken, voice.lang)[0])
        style = torch.from_numpy(np.asarray(voice.vector_for(len(phonemes)), dtype=np.float32).reshape(1, -1))
        pieces.append((text, phonemes, style))
    rows = study(model, pieces)
    if args.json:
        command = "python -m kokoro_devtools.edge_study.windowed --weights kokoro-v1_0.pth"
        args.json.write_text(json.dumps({"command": command, "threads": args.threads, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
