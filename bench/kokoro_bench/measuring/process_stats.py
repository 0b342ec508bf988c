"""A process tree's resident memory, open file descriptors, threads and processes, read from ``/proc``
(Linux), and which process serves a port.

The soak samples these over time: a server that leaks grows one of them with every session it serves. The
model server reads text in G2P worker processes below it, so the tree is sampled, not the server alone: a
worker that leaks, or a replaced worker that is never reaped, shows too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kokoro_processes.tree import descendants

from ..errors import BenchError

_LISTEN = "0A"  # a socket's state in /proc/net/tcp: listening


@dataclass(frozen=True)
class Sample:
    t_s: float  # seconds since the soak began
    rss_mb: float  # summed over the tree's processes
    fds: int
    threads: int
    processes: int = 1


def _read(pid: int) -> tuple[int, int, int]:
    """RSS in kB, open descriptors and threads of one process; OSError if it is gone or unreadable."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    return int(fields["VmRSS"].split()[0]), len(os.listdir(f"/proc/{pid}/fd")), int(fields["Threads"])


def sample(pid: int, t_s: float) -> Sample:
    """``pid`` and every process below it now, added up. A child that ends between being listed and being
    read (a G2P worker replaced) is left out of this sample; ``pid`` itself must be readable."""
    try:
        totals = [_read(pid)]
    except OSError as err:
        raise BenchError(f"cannot read process {pid} (Linux /proc): {err.strerror or err}") from err
    for child in descendants(pid):
        try:
            totals.append(_read(child))
        except OSError:
            continue
    rss_kb, fds, threads = (sum(column) for column in zip(*totals))
    return Sample(round(t_s, 2), round(rss_kb / 1024, 1), fds, threads, len(totals))


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


def listening_pid(port: int) -> int:
    """The process that serves TCP ``port`` on this machine: it holds the listening socket, and its parent
    does not (a child that inherited the socket is below it). The frameworks' figures read its CPU time; a
    server given by URL has no other handle on it."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == _LISTEN:
                inodes.add(f"socket:[{fields[9]}]")
    holders: dict[int, int] = {}  # pid -> parent pid
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if os.readlink(fd) in inodes:
                pid = int(fd.parts[2])
                holders[pid] = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:  # gone, or not ours to read
            continue
    served = [pid for pid, parent in holders.items() if parent not in holders]
    if len(served) != 1:
        raise BenchError(f"no one process serves port {port} here (found {sorted(holders) or 'none'})")
    return served[0]
