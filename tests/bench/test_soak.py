"""A one-minute soak on a real server: mixed traffic leaks no memory, descriptors or threads, and every
error it meets is one the traffic provoked on purpose."""

from __future__ import annotations

import subprocess
import sys

import pytest
from servers import SERVER_START_S, model_server_child

from kokoro_bench.measuring.process_stats import Sample, sample, slope_per_minute
from kokoro_bench.measuring.soak import soak
from kokoro_bench.measuring.soak_command import leaks


@pytest.mark.slow
async def test_a_minute_of_mixed_traffic_leaks_nothing() -> None:
    with model_server_child("onnx", "--max-sessions", "2", timeout_s=SERVER_START_S) as (url, proc):
        report = await soak(url, proc.pid, minutes=1.0, sessions=2)
    # the memory, descriptors and threads of the server and its G2P worker were read, after warm-up and at the end
    assert len(report["samples"]) >= 3, report
    assert all(s["rss_mb"] > 0 and s["fds"] > 0 and s["threads"] > 0 for s in report["samples"]), report
    assert all(s["processes"] >= 2 for s in report["samples"]), report
    assert leaks(report) == [], report
    assert report["unexpected_errors"] == {}, report
    assert sum(report["completed"].values()) >= 2, report  # traffic actually ran


def _report(rss_mb: float = 500.0, fds: int = 20, threads: int = 6, processes: int = 2) -> dict:
    """A soak report whose figures after warm-up are 500 MB, 20 descriptors, 6 threads and 2 processes."""
    return {
        "rss_mb": {"after_warm_up": 500.0, "end": rss_mb},
        "fds": {"after_warm_up": 20, "end": fds},
        "threads": {"after_warm_up": 6, "end": threads},
        "processes": {"after_warm_up": 2, "end": processes},
    }


@pytest.mark.parametrize(
    ("grown", "found"),
    [
        ({"rss_mb": 560.0}, "RSS 500.0 -> 560.0 MB"),
        ({"fds": 40}, "descriptors 20 -> 40"),
        ({"threads": 12}, "threads 6 -> 12"),
        ({"processes": 3}, "processes 2 -> 3"),
    ],
)
def test_each_kind_of_growth_is_a_leak(grown: dict, found: str) -> None:
    assert leaks(_report(**grown)) == [found]


def test_allocator_noise_and_a_closed_socket_are_no_leak() -> None:
    assert leaks(_report(rss_mb=510.0, fds=24, threads=7)) == []
    assert leaks(_report(rss_mb=480.0, fds=17, threads=6, processes=1)) == []


def test_a_sample_adds_up_the_process_and_every_process_below_it() -> None:
    """A child holding 200 MB counts in its parent's sample: the model server's G2P workers are its children."""
    holder = "x = bytearray(200 * 2**20); print('ready', flush=True); import sys; sys.stdin.read()"
    parent = (
        "import subprocess, sys; child = subprocess.Popen([sys.executable, '-c', sys.argv[1]], stdin=sys.stdin);"
        "child.wait()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", parent, holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline() == "ready\n"  # the child has touched its 200 MB
        found = sample(proc.pid, 0.0)
        assert found.processes == 2
        assert found.rss_mb >= 200
        assert found.threads >= 2
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0


def test_the_rss_slope_is_least_squares_per_minute() -> None:
    samples = [Sample(t_s=60.0 * i, rss_mb=100 + 2 * i, fds=10, threads=5) for i in range(5)]
    assert slope_per_minute(samples) == 2.0
    assert slope_per_minute(samples[:2]) is None
