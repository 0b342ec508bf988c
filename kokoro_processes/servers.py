"""The servers a local run starts on this machine (``deploy-agent local``, the benchmark, the tests): a
model server subprocess, the agent app (or a stand-in) in a thread.

Both bind 127.0.0.1 on a free port unless told otherwise, and both are context managers so they stop
when the command ends, whether it succeeded, failed or was interrupted.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator

import uvicorn

from speech_protocol.http.readiness import ServerGone, ServerNotReady, wait_ready
from speech_protocol.http.server_status import FAILED, StatusError, read_status

from . import children
from .errors import ServerFailed

MODEL_SERVER_START_S = 180.0  # G2P and ONNX load take seconds; a first run may also verify assets


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def model_failed(url: str) -> bool:
    """The model server at ``url`` answers ``/ping`` with its model failed to load: it stays up for SageMaker's
    health checks, so waiting longer changes nothing."""
    with contextlib.suppress(StatusError):
        found = read_status(url)
        return found is not None and found.status == FAILED
    return False


@contextlib.contextmanager
def ready_process(
    command: list[str],
    url: str,
    *,
    env: dict[str, str],
    timeout_s: float,
    what: str,
    fix: str | None = None,
    started: list[subprocess.Popen] | None = None,
) -> Iterator[str]:
    """Run ``command`` until ``url``/ping answers 200; yields ``url``; stops the process on exit.

    ``started``, if given, receives the process (the soak samples its memory; a test kills it).

    Its output goes to a file, not a pipe: an unread pipe fills after ~64 KiB of access log and would
    freeze a long-running server. Its tail explains a failed start.
    """
    with (
        tempfile.TemporaryFile(mode="w+") as log,
        children.running(command, grace_s=15, env=env, stdout=log, stderr=subprocess.STDOUT, text=True) as proc,
    ):
        if started is not None:
            started.append(proc)
        ping = f"{url}/ping"
        try:
            wait_ready(ping, timeout_s=timeout_s, alive=lambda: proc.poll() is None and not model_failed(url))
        except (ServerGone, ServerNotReady):
            why = ": its model failed to load" if proc.poll() is None and model_failed(url) else ""
            children.stop(proc, grace_s=0)
            log.seek(0)
            raise ServerFailed(
                f"{what} did not become ready{why}", fix=fix, details=tuple(log.read().strip().splitlines()[-10:])
            ) from None
        yield url


@contextlib.contextmanager
def model_server_process(
    engine: str = "onnx", *extra_args: str, timeout_s: float = MODEL_SERVER_START_S, python: str = sys.executable
) -> Iterator[str]:
    """``python -m kokoro_server`` on a free loopback port, warm; yields its base URL.

    ``extra_args`` go to ``kokoro-serve`` as they are (tests pass asset paths and a short warm-up).
    ``python`` is the interpreter whose environment has the model server (the 3.12 agent environment
    has not: its tests start the server with ``.venv``'s).
    """
    with model_server_child(engine, *extra_args, timeout_s=timeout_s, python=python) as (url, _proc):
        yield url


@contextlib.contextmanager
def model_server_child(
    engine: str = "onnx",
    *extra_args: str,
    timeout_s: float = MODEL_SERVER_START_S,
    python: str = sys.executable,
    port: int | None = None,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """:func:`model_server_process`, also yielding the process (the soak samples its memory and files);
    ``port`` restarts a server where a killed one was."""
    port = port or free_port()
    command = [
        python,
        "-m",
        "kokoro_server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--engine",
        engine,
        *extra_args,
    ]
    started: list[subprocess.Popen] = []
    with ready_process(
        command,
        f"http://127.0.0.1:{port}",
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout_s=timeout_s,
        what=f"the local model server (kokoro_server --engine {engine})",
        fix="run it yourself to see why: .venv/bin/python -m kokoro_server --port 8090",
        started=started,
    ) as url:
        yield url, started[0]


@contextlib.contextmanager
def agent_server_thread(
    app, host: str = "127.0.0.1", port: int | None = None, *, graceful_s: int | None = None
) -> Iterator[str]:
    """An ASGI app (the agent, or a test's stand-in server) under uvicorn in a background thread; yields
    its base URL once it accepts. ``graceful_s`` bounds the wait for open connections at shutdown."""
    port = port or free_port()
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="off", timeout_graceful_shutdown=graceful_s
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="agent-server", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30.0
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise ServerFailed(f"the agent server did not start on {host}:{port}")
            time.sleep(0.05)
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
