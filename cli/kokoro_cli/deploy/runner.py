"""Runs one `cdk` command, streaming its output as it happens and keeping the lines that explain a failure.

Deploys take 5-15 minutes: the user must see CloudFormation's events while they happen, so every line
the child prints is handed to ``on_line`` at once (the CLIs send it to stderr, keeping stdout for the
``--json`` result). When the command fails, the last lines, led by the ones cdk marks as errors, become
the :class:`~kokoro_cli.common.errors.CommandFailed` details instead of a stack trace.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from kokoro_cli.common.errors import CommandFailed, PrerequisiteMissing
from kokoro_cli.deploy.cdk_command import CdkCall
from kokoro_processes import children

TAIL_LINES = 40
_ERROR_MARKERS = ("❌", "error", "failed", "unable to")


@dataclass(frozen=True)
class RunResult:
    returncode: int
    tail: tuple[str, ...]


def failure_lines(tail: tuple[str, ...], limit: int = 12) -> tuple[str, ...]:
    """The lines that say why a command failed: those with an error marker, else the last few."""
    marked = [line for line in tail if any(m in line.lower() for m in _ERROR_MARKERS)]
    return tuple((marked or list(tail))[-limit:])


def run(call: CdkCall, on_line: Callable[[str], None]) -> RunResult:
    """Run ``call`` to completion; stdout and stderr are merged, line by line, into ``on_line``."""
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    # Ctrl-C, SIGTERM or a failing on_line: the block's end stops cdk's whole tree
    with contextlib.ExitStack() as stack:
        try:
            child = stack.enter_context(
                children.running(
                    call.argv,
                    cwd=call.cwd,
                    env={**os.environ, **call.env},
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    errors="replace",
                )
            )
        except (FileNotFoundError, PermissionError) as err:
            raise PrerequisiteMissing(
                f"cannot run {call.argv[0]}: {err.strerror}",
                fix="run ./setup.sh (it installs the pinned CDK CLI into node_modules/.bin/cdk)",
            ) from err
        assert child.stdout is not None
        for raw in child.stdout:
            line = raw.rstrip("\n")
            tail.append(line)
            on_line(line)
        child.wait()
    return RunResult(child.returncode, tuple(tail))


def run_checked(call: CdkCall, what: str, on_line: Callable[[str], None]) -> RunResult:
    """Like :func:`run`, but a non-zero exit becomes :class:`CommandFailed` naming ``what``."""
    result = run(call, on_line)
    if result.returncode != 0:
        raise CommandFailed(
            f"{what} failed (cdk exited with {result.returncode})",
            details=failure_lines(result.tail),
        )
    return result
