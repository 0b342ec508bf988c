"""A process and every process below it, read from ``/proc`` (Linux): the model server does its work in
its G2P worker processes as well as in itself, so whether it is working is a question about the whole tree."""

from __future__ import annotations

import os
import time
from pathlib import Path

from kokoro_processes.tree import descendants  # the suite's cost map reads the same tree

IDLE_WINDOW_S = 2.0
# CPU seconds a tree may use in IDLE_WINDOW_S and still be idle: a render or a G2P call keeps a core busy
# for all of it (a share of a core on a loaded machine, still far above this), an idle server's event loop
# wakes for a few milliseconds.
IDLE_CPU_S = 0.2


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of one process (all its threads); 0 for one that is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` and of every process below it."""
    assert Path(f"/proc/{pid}/stat").is_file(), f"process {pid} is gone (or there is no /proc: run on Linux)"
    return sum(map(cpu_seconds, {pid, *descendants(pid)}))


def wait_until_idle(pid: int, timeout_s: float) -> None:
    """Return once the tree of ``pid`` used under IDLE_CPU_S in an IDLE_WINDOW_S; fail if it is still
    working after ``timeout_s`` (a bound against a hang only: the verdicts are the callers')."""
    deadline = time.monotonic() + timeout_s
    while True:
        before = tree_cpu_seconds(pid)
        time.sleep(IDLE_WINDOW_S)
        if tree_cpu_seconds(pid) - before < IDLE_CPU_S:
            return
        assert time.monotonic() < deadline, f"process {pid} and its children were still working after {timeout_s} s"
