"""How every benchmark command stops on Ctrl-C or SIGTERM: exit code 130 and one line, after the model
server it started has been stopped."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

import typer

from kokoro_processes import children


@contextlib.contextmanager
def interruptible(program: str) -> Iterator[None]:
    """Ctrl-C or SIGTERM ends a run with exit code 130 and one line, after the model server it started
    has been stopped (SIGTERM unwinds like Ctrl-C: :func:`kokoro_processes.children.end_children_with_parent`)."""
    children.end_children_with_parent()
    try:
        yield
    except KeyboardInterrupt:
        typer.echo(f"{program}: interrupted", err=True)
        # At once, past the interpreter's finalization: a thread may still be inside onnxruntime (the
        # overhead timing), and finalizing under it aborts the process (SIGABRT), as in decision 110.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
