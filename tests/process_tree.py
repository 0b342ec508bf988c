"""A process and every process below it, read from ``/proc`` (Linux): the model server does its work in
its G2P worker processes as well as in itself, so whether it is working is a question about the whole tree.

Whether a tree is working is read from its threads' states, sampled through a window: a thread rendering or
reading text is runnable (``R``: on a CPU, or waiting for one) at nearly every sample, on an idle machine or a
loaded one, where CPU time alone would mistake a render starved of a core for idleness; an idle server's
threads sleep (``S``) and are runnable only for the milliseconds its event loop wakes.
"""

from __future__ import annotations

import time
from pathlib import Path

from kokoro_processes.tree import descendants  # the suite's cost map reads the same tree

IDLE_WINDOW_S = 2.0
SAMPLES = 20  # thread states read across IDLE_WINDOW_S
# The share of samples in which some thread of an idle tree may be runnable: a working tree is at nearly all.
IDLE_RUNNABLE_SHARE = 0.25


def _runnable(pid: int) -> bool:
    """Whether a thread of ``pid`` is on a CPU or waiting for one now (``R``); False for one that is gone."""
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "R":
                return True
        except (OSError, IndexError):  # the thread ended since it was listed
            continue
    return False


def runnable_share(pid: int) -> float:
    """The share of SAMPLES, across IDLE_WINDOW_S, in which a thread of ``pid`` or of a process below it was
    runnable."""
    assert Path(f"/proc/{pid}/task").is_dir(), f"process {pid} is gone (or there is no /proc: run on Linux)"
    found = 0
    for _ in range(SAMPLES):
        found += any(_runnable(p) for p in {pid, *descendants(pid)})
        time.sleep(IDLE_WINDOW_S / SAMPLES)
    return found / SAMPLES


def wait_until_idle(pid: int, timeout_s: float) -> None:
    """Return once the tree of ``pid`` was runnable in under IDLE_RUNNABLE_SHARE of an IDLE_WINDOW_S; fail if it
    is still working after ``timeout_s`` (a bound against a hang only: the verdicts are the callers')."""
    deadline = time.monotonic() + timeout_s
    while runnable_share(pid) >= IDLE_RUNNABLE_SHARE:
        assert time.monotonic() < deadline, f"process {pid} and its children were still working after {timeout_s} s"
