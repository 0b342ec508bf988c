"""The CI smoke test of the benchmark itself: ``python -m kokoro_bench --quick`` produces every figure.

It measures the suite's shared real model server (``--server-url``) to its end; the run as a user types it,
starting its own, is docs/benchmark.md's first command, which tests/docs runs until it is measuring (its
first line) rather than doing the same run twice. No timing is asserted: only that each figure exists and
is well-formed (numbers where numbers belong, PNGs that are PNGs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIGURES = ("ttfa_s", "audible_s", "last_audio_s", "stall_s")


def number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory, model_server_url) -> tuple[subprocess.CompletedProcess, dict, Path]:
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "--quick", "--server-url", model_server_url]
        + ["--json", str(out / "bench.json"), "--plots", str(out)],
        cwd=REPO,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, json.loads((out / "bench.json").read_text()), out


@pytest.mark.slow
def test_every_strategy_has_every_figure(quick_run) -> None:
    _, report, _ = quick_run
    rows = {(r["text"], r["strategy"]): r for r in report["results"]}
    assert set(rows) == {("short", s) for s in ("whole", "sequential", "pipelined")}
    for row in rows.values():
        assert all(number(row[f]) for f in FIGURES), row
        assert row["ttfa_s"] <= row["last_audio_s"] <= row["end_s"] and row["audio_s"] > 0
    assert number(rows["short", "whole"]["streamed_first_byte_s"])
    assert {r["text"] for r in report["ratios"]} == {"short"}


@pytest.mark.slow
def test_overhead_concurrency_and_targets_are_reported(quick_run) -> None:
    _, report, _ = quick_run
    overhead = report["overhead"]
    assert overhead["pieces"] and all(p["ratio"] > 0 for p in overhead["pieces"])
    assert number(overhead["median_ratio"]) and number(overhead["rtf"])
    assert [c["sessions"] for c in report["concurrency"]] == [1, 2]
    for c in report["concurrency"]:
        assert c["ttfa_p50_s"] <= c["ttfa_p95_s"] and number(c["aggregate_rtf"]) and number(c["throughput_vs_one"])
    assert report["targets"] and all({"name", "value", "goal", "met"} <= set(t) for t in report["targets"])
    meta = report["meta"]
    assert meta["first_piece_min_words"] >= 1 and number(meta["load_average_start"][0])


@pytest.mark.slow
def test_the_tables_are_printed_and_the_timeline_is_a_png(quick_run) -> None:
    proc, _, out = quick_run
    for heading in ("First audio per text and strategy", "Server overhead", "Concurrent sessions", "Targets"):
        assert heading in proc.stdout
    png = out / "timeline_short.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000
