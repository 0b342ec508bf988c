"""Ratios against the replaced designs and the targets' verdicts, from hand-made results."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kokoro_bench.measuring.concurrency import ConcurrencyResult, against_one
from kokoro_bench.measuring.overhead import Overhead
from kokoro_bench.measuring.strategies import Trace
from kokoro_bench.measuring.timeline import AudioArrival
from kokoro_bench.reporting.results import StrategyResult, summarize
from kokoro_bench.reporting.targets import evaluate, ratios


def result(text: str, strategy: str, audible: float, stall: float = 0.0) -> StrategyResult:
    return StrategyResult(
        text=text,
        strategy=strategy,
        ttfa_s=audible - 0.02,
        audible_s=audible,
        last_audio_s=audible + 5,
        stall_s=stall,
        end_s=audible + 20,
        audio_s=20.0,
        pieces=6,
        first_piece="Yes, of course,",
        repeats=1,
        streamed_first_byte_s=None,
    )


def level(sessions: int, ttfa_p95: float, throughput: float) -> ConcurrencyResult:
    return ConcurrencyResult(
        sessions=sessions,
        ttfa_p50_s=ttfa_p95,
        ttfa_p95_s=ttfa_p95,
        audible_p50_s=ttfa_p95,
        audible_p95_s=ttfa_p95,
        max_stall_s=0.0,
        audio_s=30.0 * sessions,
        wall_s=30.0 * sessions / throughput,
        aggregate_rtf=1 / throughput,
        throughput_x=throughput,
    )


RESULTS = [
    result("typical", "whole", 10.0),
    result("typical", "sequential", 3.0),
    result("typical", "pipelined", 0.9),
    result("long", "whole", 20.0),
    result("long", "sequential", 2.0),
    result("long", "pipelined", 1.0, stall=0.4),
]


def test_ratios_are_the_pipelined_figures_over_each_baseline() -> None:
    by_text = {r["text"]: r for r in ratios(RESULTS)}
    assert by_text["typical"]["audible_vs_whole"] == 0.09
    assert by_text["typical"]["audible_vs_sequential"] == 0.3
    assert by_text["long"]["audible_vs_sequential"] == 0.5


def test_each_target_is_judged_and_a_missing_figure_is_not_measured() -> None:
    overhead = Overhead(pieces=(), median_ratio=1.05, median_extra_s=0.01, longest_piece_s=0.8, rtf=0.4)
    levels = against_one([level(1, 1.0, 2.0), level(4, 1.5, 1.9)])
    verdict = {t.name: t.met for t in evaluate(RESULTS, overhead, levels)}
    assert verdict["typical: audible vs whole answer"] is True
    assert verdict["typical: audible vs one at a time"] is True
    assert verdict["typical: stall (s)"] is True
    assert verdict["long: audible vs one at a time"] is False
    assert verdict["long: stall (s)"] is False
    assert verdict["server overhead"] is True
    assert verdict["4 sessions: throughput vs one"] is True  # 1.9 / 2.0 = 0.95
    assert verdict["4 sessions: extra first-audio wait p95 (s)"] is True  # 1.5 - 1.0 <= 0.8
    starved = against_one([level(1, 1.0, 2.0), level(4, 3.0, 1.9)])
    assert {t.name: t.met for t in evaluate(RESULTS, overhead, starved)}[
        "4 sessions: extra first-audio wait p95 (s)"
    ] is False
    assert {t.name: t.met for t in evaluate(RESULTS[:3], None, [])}["server overhead"] is None


def _trace(first_audio_s: float, first_piece: str) -> Trace:
    """A pipelined answer whose first audible sample arrives ``first_audio_s`` after the request."""
    loud = np.full(2400, 8000, dtype=np.int16).tobytes()  # 0.1 s at 24 kHz, far above -40 dBFS
    return Trace("pipelined", "typical", pieces=[(0.1, first_piece)], audio=[AudioArrival(first_audio_s, loud)])


def test_the_spread_across_repeats_is_their_range_over_the_median_and_each_first_piece_is_kept() -> None:
    summary = summarize([_trace(0.5, "Yes,"), _trace(0.6, "Yes, of course,"), _trace(0.4, "Yes,")])
    assert (summary.audible_min_s, summary.audible_s, summary.audible_max_s) == (0.4, 0.5, 0.6)
    assert summary.audible_spread == 0.4
    assert summary.first_pieces == ("Yes,", "Yes, of course,", "Yes,")


def test_first_audio_that_moves_more_than_a_fifth_across_repeats_misses_its_target() -> None:
    steady, flipping = (replace(result("typical", "pipelined", 0.9), repeats=3, audible_spread=x) for x in (0.1, 0.8))
    spread = "typical: spread of audible first audio across repeats"
    assert {t.name: t.met for t in evaluate([steady], None, [])}[spread] is True
    assert {t.name: t.met for t in evaluate([flipping], None, [])}[spread] is False
    assert {t.name: t.met for t in evaluate(RESULTS, None, [])}[spread] is None  # one repeat: no spread
