"""``python -m kokoro_bench normalization``: what the speech normalizer costs before the first audio.

The normalizer runs on the hot path (in ``kokoro_server.text.reading.Reading``, before G2P), so its cost is measured per
sentence next to G2P's on the same sentences: the normalization test set (numbers, dates, money, ... in
every sentence) and the benchmark's plain answers split into sentences (medians over ``--repeats``
runs). Then its cost on hostile inputs of 1,000 and 5,000 characters (the fastest of 5 runs each), which
shows it grows linearly. Prints the figures; with ``--json PATH`` also writes them.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kokoro_server.settings import offline_environment
from kokoro_server.text.normalize import normalize

from ..paths import REPO
from ..texts import TEXTS

if TYPE_CHECKING:
    from kokoro_server.text.phonemes import Phonemizer

CASES = REPO / "tests" / "container" / "normalization_cases.json"
HOSTILE = {"digits": "7", "dashes": "9-", "money": "$1", "dates": "2026-11-30 ", "symbols": "@#/~"}


def _per_call_us(work: Callable[[], object], repeats: int, pick=statistics.median) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return pick(times) * 1e6


def _sentences() -> dict[str, list[str]]:
    cases = [c["written"] for c in json.loads(CASES.read_text())["cases"]]
    plain = [s for text in TEXTS.values() for s in re.split(r"(?<=[.!?:])\s+", text) if s.strip()]
    return {"normalization test set": cases, "plain answers": plain}


def _g2p(phonemizer: Phonemizer, text: str) -> object:
    """What the engine runs on a sentence before synthesis: normalization, then G2P."""
    return phonemizer.phonemize(normalize(text).spoken, "a")


def measure(repeats: int, with_g2p: bool) -> dict:
    phonemizer = None
    if with_g2p:
        from kokoro_server.text.phonemes import Phonemizer  # spaCy loads in seconds: only when asked

        phonemizer = Phonemizer()
    sets = {}
    for name, sentences in _sentences().items():
        norm = [_per_call_us(partial(normalize, s), repeats) for s in sentences]
        row = {
            "sentences": len(sentences),
            "mean_chars": round(statistics.mean(map(len, sentences)), 1),
            "normalize_us_median": round(statistics.median(norm), 1),
            "normalize_us_max": round(max(norm), 1),
        }
        if phonemizer:
            g2p = [_per_call_us(partial(_g2p, phonemizer, s), max(1, repeats // 5)) for s in sentences]
            row["g2p_us_median"] = round(statistics.median(g2p), 1)
        sets[name] = row
    scaling = {}
    for name, unit in HOSTILE.items():
        small, large = unit * (1000 // len(unit)), unit * (5000 // len(unit))
        # the fastest of 5: on a shared machine one descheduling would otherwise hide the shape
        scaling[name] = {
            f"{len(t)}_chars_ms": round(_per_call_us(partial(normalize, t), 5, min) / 1000, 2) for t in (small, large)
        }
    return {"sentences": sets, "hostile": scaling}


def render(figures: dict) -> list[str]:
    lines = ["normalizer cost per sentence (median of runs, this machine):"]
    for name, row in figures["sentences"].items():
        g2p = f", G2P after it {row['g2p_us_median'] / 1000:.2f} ms" if "g2p_us_median" in row else ""
        lines.append(
            f"  {name}: {row['sentences']} sentences of {row['mean_chars']} chars on average: "
            f"median {row['normalize_us_median']:.0f} us, max {row['normalize_us_max']:.0f} us{g2p}"
        )
    lines.append("hostile input, 1,000 vs 5,000 characters (linear: about 5x):")
    for name, sizes in figures["hostile"].items():
        lines.append(f"  {name}: " + ", ".join(f"{k.replace('_chars_ms', '')} chars {v} ms" for k, v in sizes.items()))
    return lines


def main(
    repeats: Annotated[int, typer.Option(min=1, max=1000, help="Runs per sentence (medians).")] = 50,
    g2p: Annotated[bool, typer.Option(help="Also time G2P on the normalized text, for scale.")] = True,
    json_path: Annotated[Path | None, typer.Option("--json", help="Also write the figures here.")] = None,
) -> None:
    """Time the normalizer per sentence and on long hostile input."""
    offline_environment()
    figures = measure(repeats, g2p)
    for line in render(figures):
        typer.echo(line)
    if json_path:
        json_path.write_text(json.dumps(figures, indent=1) + "\n")
