"""A process tree's CPU time, read from ``/proc`` (Linux): what the suite's cost map, the tests that wait for a
server to go idle and the benchmark's per-answer server CPU all count.

A tree is a process, every process below it now (the children of each of its threads, and theirs), and the
children each of those has reaped (their time is in its ``cutime`` and ``cstime``).
"""

from __future__ import annotations

import os
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")


def _ticks(pid: int) -> int:
    """Clock ticks of ``pid`` and of the children it has waited for (utime, stime, cutime, cstime)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # gone since it was listed
        return 0
    return sum(int(f) for f in fields[11:15])


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (the children of each of its threads, and theirs)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found |= {child, *descendants(child)}
    return found


def tree_cpu_seconds(pid: int | None = None) -> float:
    """CPU seconds used so far by ``pid`` (this process by default), every process below it now, and every
    process below it that has ended and been waited for."""
    pid = os.getpid() if pid is None else pid
    return sum(_ticks(p) for p in {pid, *descendants(pid)}) / _TICK
