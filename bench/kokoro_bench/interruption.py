"""How every benchmark command stops on Ctrl-C or SIGTERM: exit code 130 and one line, after the model
server it started has been stopped.

The app registers each command through :func:`interruptible_command`, so a new command cannot forget:
without it Typer turns Ctrl-C into "Aborted!" and exit 1, and a command with a thread inside onnxruntime
aborts (SIGABRT) while the interpreter finalizes.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from kokoro_processes import children

P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def interruptible(program: str) -> Iterator[None]:
    """Ctrl-C or SIGTERM ends a run with exit code 130 and one line, after the model server it started
    has been stopped (SIGTERM unwinds like Ctrl-C: :func:`kokoro_processes.children.end_children_with_parent`)."""
    children.end_children_with_parent()
    try:
        yield
    except KeyboardInterrupt:
        _exit_interrupted(program)


def _exit_interrupted(program: str) -> None:
    """The one line, then exit 130 at once, past the interpreter's finalization: a thread may still be
    inside onnxruntime (the overhead timing) or an import, and finalizing under it aborts the process
    (SIGABRT), as in decision 110."""
    sys.stdout.flush()
    sys.stderr.write(f"{program}: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


def interruptible_command(program: str, command: Callable[P, R]) -> Callable[P, R]:
    """``command`` run inside :func:`interruptible`; Typer reads the options from the wrapped signature."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with interruptible(program):
            return command(*args, **kwargs)

    return run


@contextlib.contextmanager
def interruptible_while_loading(program: str) -> Iterator[None]:
    """Ctrl-C or SIGTERM while the command line's libraries load (torch, spaCy: seconds, tens of them on a
    loaded machine) exits 130 with the same one line, not a ``KeyboardInterrupt`` traceback from inside an
    import. A signal that was ignored (SIGINT in a background job) stays ignored."""

    def stop(signum: int, frame: object) -> None:
        _exit_interrupted(program)

    defaults: dict[signal.Signals, Any] = {
        signal.SIGINT: signal.default_int_handler,
        signal.SIGTERM: signal.SIG_DFL,
    }
    caught = [sig for sig, default in defaults.items() if signal.getsignal(sig) is default]
    for sig in caught:
        signal.signal(sig, stop)
    try:
        yield
    finally:
        for sig in caught:
            signal.signal(sig, defaults[sig])
