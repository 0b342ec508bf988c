"""Children end with their parent: each one runs in its own process group, which the CLI stops as a whole.

A CLI starts long-lived process trees (`cdk` -> the CDK app -> jsii's node; a model server of ~900 MB).
SIGTERM's default action ends the CLI without running any ``finally``, and a SIGINT sent to the CLI's PID
alone never reaches its children: either way they would outlive it under PID 1
(docs/decisions/023-signals-and-hostile-payloads.md).
:func:`end_children_with_parent` turns SIGTERM into the same ``KeyboardInterrupt`` as SIGINT, so every
context manager runs; :func:`running` puts each child in a new session (its own process group), and
:func:`stop` forwards SIGTERM to that whole group, then SIGKILL after a grace period.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

GRACE_S = 10.0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def end_children_with_parent() -> None:
    """SIGTERM unwinds the CLI like Ctrl-C (exit 130), stopping what it started; main thread only."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


@contextlib.contextmanager
def running(argv: list[str] | tuple[str, ...], *, grace_s: float = GRACE_S, **popen: Any) -> Iterator[subprocess.Popen]:
    """``subprocess.Popen`` in a process group of its own (the child's PID is the group's id), stopped by
    :func:`stop` when the block ends, however it ends; its pipes are closed then, as ``Popen``'s own ``with`` does.

    A Ctrl-C or SIGTERM that lands while ``Popen`` runs waits until the child is in hand: raised inside
    ``Popen`` after the fork, it left a child that nobody stopped (12 of 500 starts under a storm of
    SIGTERMs; decision 023).
    """
    child = None
    try:
        with _signals_held():
            child = subprocess.Popen(argv, start_new_session=True, **popen)
        yield child
    finally:
        if child is not None:
            stop(child, grace_s)
            for pipe in (child.stdin, child.stdout, child.stderr):
                if pipe is not None:
                    pipe.close()


def stop(child: subprocess.Popen, grace_s: float = GRACE_S) -> None:
    """SIGTERM to the child's whole group; after ``grace_s``, SIGKILL to whatever is left of it."""
    _signal_group(child, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=grace_s)
    _signal_group(child, signal.SIGKILL)  # descendants that outlived the leader, or a leader that hung
    child.wait()


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Inside the block, SIGINT and SIGTERM are noted instead of handled; at its end the first one noted
    goes to its Python handler (which raises ``KeyboardInterrupt``). Ignored or default dispositions are
    left as they are, and only the main thread runs signal handlers, so elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    held_handlers = {sig: handler for sig, handler in handlers.items() if callable(handler)}
    noted: list[int] = []
    for sig in held_handlers:
        signal.signal(sig, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        for sig, handler in held_handlers.items():
            signal.signal(sig, handler)
        if noted:
            held_handlers[signal.Signals(noted[0])](noted[0], None)


def _signal_group(child: subprocess.Popen, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, sig)
