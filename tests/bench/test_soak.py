"""A one-minute soak on a real server: mixed traffic leaks no descriptors or threads, and every error
it meets is one the traffic provoked on purpose."""

from __future__ import annotations

import pytest
from servers import SERVER_START_S, model_server_child

from bench.process_stats import Sample, slope_per_minute
from bench.soak import soak
from bench.soak_cli import leaks


@pytest.mark.slow
async def test_a_minute_of_mixed_traffic_leaks_nothing() -> None:
    with model_server_child("onnx", "--max-sessions", "2", timeout_s=SERVER_START_S) as (url, proc):
        report = await soak(url, proc.pid, minutes=1.0, sessions=2)
    assert leaks(report) == [], report
    assert report["unexpected_errors"] == {}, report
    assert sum(report["completed"].values()) >= 2, report  # traffic actually ran


def test_the_rss_slope_is_least_squares_per_minute() -> None:
    samples = [Sample(t_s=60.0 * i, rss_mb=100 + 2 * i, fds=10, threads=5) for i in range(5)]
    assert slope_per_minute(samples) == 2.0
    assert slope_per_minute(samples[:2]) is None
