"""Capacity from the concurrency ladder, and cost only where the run measured that engine and device."""

from __future__ import annotations

import pytest

from kokoro_bench.measuring.concurrency import ConcurrencyResult
from kokoro_bench.reporting.cost import (
    MeasuredRun,
    at_ladder_top,
    capacity,
    cost_rows,
    load_prices,
    machine_label,
)
from kokoro_bench.reporting.run_tables import run_markdown


def level(sessions: int, stall: float, p95: float, throughput: float = 2.0) -> ConcurrencyResult:
    return ConcurrencyResult(sessions, p95, p95, p95, p95, stall, 10.0, 5.0, 0.5, throughput)


def test_capacity_is_the_most_sessions_with_no_stall_and_quick_first_audio() -> None:
    ladder = [level(1, 0, 0.6, 1.8), level(2, 0, 0.9, 2.4), level(3, 0, 1.4), level(4, 2.7, 0.8)]
    cap = capacity(ladder, 0.33)
    assert (cap.sessions, cap.throughput_x, cap.rtf) == (2, 2.4, 0.33)
    assert capacity([level(1, 1.0, 0.5)], 0.9).sessions is None


def test_cost_for_the_measured_engine_only_and_never_estimated_for_the_gpu() -> None:
    prices = load_prices()
    assert prices["source"] and prices["date"]
    run = MeasuredRun(capacity([level(2, 0, 0.9, 2.0)], 0.3), "onnx", "cpu", "here")
    rows = {r.instance: r for r in cost_rows([run], prices)}
    gpu, cpu = rows["ml.g5.xlarge"], rows["ml.m5.xlarge"]
    assert not gpu.measured and gpu.usd_per_voice_hour is None and "not measured" in gpu.note
    assert cpu.measured and cpu.sessions == 2
    assert cpu.usd_per_voice_hour == pytest.approx(cpu.usd_per_hour / 2, abs=1e-4)
    assert cpu.usd_per_speech_hour == pytest.approx(cpu.usd_per_hour / 2.0, abs=1e-4)


def test_a_gpu_run_fills_the_gpu_row_labelled_with_the_card_it_ran_on() -> None:
    prices = load_prices()
    where = machine_label({"machine": "x86_64, 16 CPU cores, x86_64", "gpu": "NVIDIA H200"})
    ladder = [level(8, 0, 0.5, 6.0), level(16, 0.5, 0.7)]
    gpu_run = MeasuredRun(capacity(ladder, 0.02), "torch", "cuda", where, at_ladder_top(capacity(ladder, 0.02), ladder))
    cpu_run = MeasuredRun(capacity([level(1, 0, 0.9, 1.0)], 0.3), "onnx", "cpu", "here")
    rows = {r.instance: r for r in cost_rows([cpu_run, gpu_run], prices)}
    gpu = rows["ml.g5.xlarge"]
    assert gpu.measured and gpu.sessions == 8
    assert gpu.usd_per_voice_hour == pytest.approx(gpu.usd_per_hour / 8, abs=1e-4)
    assert "NVIDIA H200" in gpu.note and "not on the instance itself" in gpu.note and "A10G" in gpu.note
    assert "lower bound" not in gpu.note  # 16 sessions stalled: 8 is the limit, not the ladder's top
    assert rows["ml.m5.xlarge"].sessions == 1


def test_a_capacity_at_the_top_of_the_ladder_is_called_a_lower_bound() -> None:
    ladder = [level(32, 0, 0.3, 40.0), level(64, 0, 0.3, 45.0)]
    cap = capacity(ladder, 0.03)
    assert at_ladder_top(cap, ladder) and not at_ladder_top(capacity(ladder[:1] + [level(64, 1.0, 0.3)], 0.03), ladder)
    row = next(r for r in cost_rows([MeasuredRun(cap, "torch", "cuda", "there", True)], load_prices()) if r.measured)
    assert row.sessions == 64 and "lower bound" in row.note


@pytest.mark.parametrize(("sessions", "said"), [(None, "p95 < 1 s: **none**."), (3, "p95 < 1 s: **3**.")])
def test_the_printed_capacity_reads_as_a_sentence(sessions: int | None, said: str) -> None:
    meta = {"machine": "m", "engine": "onnx", "device": "cpu", "tokens_per_s": 40, "load_average_start": 0}
    cap = {"sessions": sessions, "throughput_x": None, "rtf": 0.6}
    text = run_markdown({"meta": meta, "results": [], "targets": [], "capacity": cap})
    assert said in text and "none concurrent" not in text
