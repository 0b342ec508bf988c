"""``wait_until_idle`` (tests/process_tree.py) tells a starved process from an idle one: a process that spins
on a core taken by another, at the lowest scheduling class, gets almost no CPU but is still working."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from process_tree import IDLE_WINDOW_S, runnable_share, wait_until_idle

SPIN = "while True: pass"


def spinner(*, starved: bool) -> subprocess.Popen:
    """A process spinning on CPU 0; ``starved``: in SCHED_IDLE, which runs only when nothing else wants CPU 0."""
    lines = ["import os", "os.sched_setaffinity(0, {0})"]
    if starved:
        lines.append("os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))")
    return subprocess.Popen([sys.executable, "-c", "\n".join([*lines, SPIN])])


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of one process (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
def hog():
    """A spinner holding CPU 0 at normal priority."""
    proc = spinner(starved=False)
    yield proc
    proc.kill()
    proc.wait()


def test_a_starved_spinner_is_working_though_it_gets_little_cpu(hog):
    starved = spinner(starved=True)
    try:
        cpu_before = cpu_seconds(starved.pid)
        share = runnable_share(starved.pid)  # across IDLE_WINDOW_S
        cpu = cpu_seconds(starved.pid) - cpu_before
        assert cpu < 0.1 * IDLE_WINDOW_S, cpu  # what CPU time alone would have called idle ...
        assert share > 0.9, share  # ... is a process runnable all along
        with pytest.raises(AssertionError, match="still working"):
            wait_until_idle(starved.pid, timeout_s=2 * IDLE_WINDOW_S)
    finally:
        starved.kill()
        starved.wait()


def test_a_sleeping_process_is_idle():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        wait_until_idle(sleeper.pid, timeout_s=10 * IDLE_WINDOW_S)
    finally:
        sleeper.kill()
        sleeper.wait()
