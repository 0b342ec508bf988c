"""Helpers for tests that start real servers on free loopback ports (the model server itself is started
by the same code ``deploy-agent local`` uses: :func:`cli.local.agent_local_servers.model_server_process`)."""

from __future__ import annotations

import contextlib
import subprocess
import time
from pathlib import Path

import httpx

from cli.local.agent_local_servers import free_port, model_server_child, model_server_process

REPO = Path(__file__).resolve().parents[1]
# A shared 2-core machine under load takes minutes to load the model; starting is not a speed test.
SERVER_START_S = 600.0
__all__ = ["REPO", "SERVER_START_S", "free_port", "model_server_child", "model_server_process", "wait_ready"]


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 180.0, log: Path | None = None) -> None:
    """Poll ``url`` until it answers 200; fail with the server's own output (its pipe, or ``log``, the file
    it writes to) if it dies first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = log.read_text(errors="replace") if log else proc.stdout.read() if proc.stdout else ""
            raise RuntimeError(f"server exited with {proc.returncode}:\n{out}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise TimeoutError(f"{url} not ready after {timeout} s")
