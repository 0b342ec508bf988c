"""``python -m kokoro_bench soak``: the endurance run's command line (see :mod:`kokoro_bench.measuring.soak`).

Exit codes: 0 when nothing leaked and no unexpected error occurred, 1 when something did (the report says
what), 2 when an option is wrong or the server could not start, 130 when stopped by Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from kokoro_processes.errors import ServerFailed
from kokoro_processes.servers import model_server_child
from kokoro_server.settings import offline_environment

from ..errors import BenchError
from .machine import run_record
from .server import running_status
from .soak import soak

FD_SLACK = 8  # descriptors a quiet server may legitimately hold beyond its warm count (log, a late socket)
THREAD_SLACK = 2
# Resident memory a server may gain after warm-up, as a share of its warm size (docs/decisions/096-soak-memory.md).
RSS_SLACK = 0.05
SERVER_START_S = 600.0  # a saturated 2-core machine loads the model slowly


def leaks(report: dict) -> list[str]:
    """What grew that must not: resident memory, descriptors or threads past their warm size (plus slack), or
    the number of processes at all (a G2P worker that is replaced must be reaped)."""
    found = []
    if report["rss_mb"]["end"] > report["rss_mb"]["after_warm_up"] * (1 + RSS_SLACK):
        found.append(f"RSS {report['rss_mb']['after_warm_up']} -> {report['rss_mb']['end']} MB")
    if report["fds"]["end"] > report["fds"]["after_warm_up"] + FD_SLACK:
        found.append(f"descriptors {report['fds']['after_warm_up']} -> {report['fds']['end']}")
    if report["threads"]["end"] > report["threads"]["after_warm_up"] + THREAD_SLACK:
        found.append(f"threads {report['threads']['after_warm_up']} -> {report['threads']['end']}")
    if report["processes"]["end"] > report["processes"]["after_warm_up"]:
        found.append(f"processes {report['processes']['after_warm_up']} -> {report['processes']['end']}")
    return found


def run(
    minutes: Annotated[float, typer.Option(help="How long to run (it stops by itself).")] = 10.0,
    sessions: Annotated[int, typer.Option(help="Concurrent clients.")] = 4,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the report (and samples) here.")] = None,
    terminated: Annotated[
        bool, typer.Option(help="Also stop renders while they run (a cancel, a client gone): 2 runs in 6.")
    ] = False,
) -> None:
    """Mixed traffic against one local model server; reports RSS slope, descriptors, threads, processes, errors."""
    offline_environment()
    try:
        # The listener limit is lifted so that every client keeps the server busy; admission itself is
        # tested in tests/container/test_admission.py.
        with model_server_child(
            "onnx", "--log-level", "warning", "--max-sessions", str(sessions), timeout_s=SERVER_START_S
        ) as (url, proc):
            typer.echo(f"server ready at {url}; {sessions} sessions for {minutes:g} minutes", err=True)
            report = asyncio.run(soak(url, proc.pid, minutes, sessions, terminated=terminated))
            report["server_rtf"] = running_status(url).rtf  # the pace it kept under the soak's load
    except (BenchError, ServerFailed) as err:
        typer.echo(f"bench soak: {getattr(err, 'message', err)}", err=True)
        raise typer.Exit(2) from None
    report["leaks"] = leaks(report)
    report |= run_record()
    summary = {k: v for k, v in report.items() if k != "samples"}
    typer.echo(json.dumps(summary, indent=1))
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if report["leaks"] or report["unexpected_errors"]:
        raise typer.Exit(1)
