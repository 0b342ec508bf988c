"""The normalizer's benchmark produces every figure (its speed is printed, never asserted)."""

from __future__ import annotations

from kokoro_bench.studies.normalization import HOSTILE, measure, render


def test_every_figure_is_produced():
    figures = measure(repeats=1, with_g2p=False)
    assert set(figures["sentences"]) == {"normalization test set", "plain answers"}
    assert all(row["sentences"] > 0 and row["normalize_us_median"] > 0 for row in figures["sentences"].values())
    assert set(figures["hostile"]) == set(HOSTILE)
    lines = render(figures)
    assert lines[0].startswith("normalizer cost per sentence") and len(lines) == 2 + len(figures["sentences"]) + len(
        HOSTILE
    )
