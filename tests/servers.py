"""Start real servers as subprocesses on free loopback ports, for tests across processes."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import httpx

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 180.0) -> None:
    """Poll ``url`` until it answers 200; fail with the server's own output if it dies first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            raise RuntimeError(f"server exited with {proc.returncode}:\n{out}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise TimeoutError(f"{url} not ready after {timeout} s")


@contextlib.contextmanager
def model_server(*args: str, ready: bool = True) -> Iterator[tuple[str, subprocess.Popen]]:
    """``python -m kokoro_server`` on a free port; yields (base URL, process)."""
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "KOKORO_LOG_LEVEL": "warning"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kokoro_server", "--port", str(port), *args],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        if ready:
            wait_ready(f"{url}/ping", proc)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
