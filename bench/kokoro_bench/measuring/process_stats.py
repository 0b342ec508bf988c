"""A process's resident memory, open file descriptors and threads, read from ``/proc`` (Linux).

The soak samples these over time: a server that leaks grows one of them with every session it serves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import BenchError


@dataclass(frozen=True)
class Sample:
    t_s: float  # seconds since the soak began
    rss_mb: float
    fds: int
    threads: int


def sample(pid: int, t_s: float) -> Sample:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError as err:
        raise BenchError(f"cannot read process {pid} (Linux /proc): {err.strerror or err}") from err
    return Sample(round(t_s, 2), round(int(fields["VmRSS"].split()[0]) / 1024, 1), fds, int(fields["Threads"]))


def slope_per_minute(samples: list[Sample]) -> float | None:
    """Least-squares RSS growth in MB per minute over ``samples`` (None with fewer than three)."""
    if len(samples) < 3:
        return None
    ts = [s.t_s / 60 for s in samples]
    rs = [s.rss_mb for s in samples]
    mean_t, mean_r = sum(ts) / len(ts), sum(rs) / len(rs)
    spread = sum((t - mean_t) ** 2 for t in ts)
    if not spread:
        return None
    return round(sum((t - mean_t) * (r - mean_r) for t, r in zip(ts, rs)) / spread, 3)


def load_average() -> list[float]:
    """The machine's 1-, 5- and 15-minute load averages: every figure says how busy the machine was."""
    return [round(x, 2) for x in os.getloadavg()]
