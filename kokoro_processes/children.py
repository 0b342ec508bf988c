"""Children end with their parent: each one runs in its own process group, which the CLI stops as a whole.

A CLI starts long-lived process trees (`cdk` -> the CDK app -> jsii's node; a model server of ~900 MB).
SIGTERM's default action ends the CLI without running any ``finally``, and a SIGINT sent to the CLI's PID
alone never reaches its children: either way they would outlive it under PID 1
(docs/decisions/023-signals-and-hostile-payloads.md).
:func:`end_children_with_parent` turns SIGTERM into the same ``KeyboardInterrupt`` as SIGINT, so every
context manager runs; :func:`start` puts each child in a new session (its own process group), and
:func:`stop` forwards SIGTERM to that whole group, then SIGKILL after a grace period.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from typing import Any

GRACE_S = 10.0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def end_children_with_parent() -> None:
    """SIGTERM unwinds the CLI like Ctrl-C (exit 130), stopping what it started; main thread only."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


def start(argv: list[str] | tuple[str, ...], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen`` in a process group of its own (the child's PID is the group's id)."""
    return subprocess.Popen(argv, start_new_session=True, **popen)


def stop(child: subprocess.Popen, grace_s: float = GRACE_S) -> None:
    """SIGTERM to the child's whole group; after ``grace_s``, SIGKILL to whatever is left of it."""
    _signal_group(child, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=grace_s)
    _signal_group(child, signal.SIGKILL)  # descendants that outlived the leader, or a leader that hung
    child.wait()


def _signal_group(child: subprocess.Popen, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, sig)
