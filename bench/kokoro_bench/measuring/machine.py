"""What a results file says of the run that wrote it, in one shape for every study: the commit and the date it
was measured at, and the machine (processor, cores, Python, the load it ran under). A figure means little
without them: the same run on this shared machine differs several-fold from hour to hour.

The machine is read when the run ends (``load_average_1m`` is the load it ran under); the reports read these
keys from every file alike.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess

from ..paths import REPO


def commit() -> str | None:
    """The checkout's commit, short; None outside a git checkout."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
    return done.stdout.strip() or None


def machine() -> dict:
    return {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def run_record() -> dict:
    """``commit``, ``date`` (UTC, to the second) and ``machine``: the keys every results file starts with."""
    return {
        "commit": commit(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
    }
