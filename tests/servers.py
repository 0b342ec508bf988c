"""Helpers for tests that start real servers on free loopback ports (the model server itself is started
by the same code ``deploy-agent local`` uses: :func:`kokoro_processes.servers.model_server_process`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kokoro_processes.servers import free_port, model_server_child, model_server_process
from speech_protocol.http import readiness

REPO = Path(__file__).resolve().parents[1]
# A shared 2-core machine under load takes minutes to load the model; starting is not a speed test.
SERVER_START_S = 600.0
# For a server whose pace no test reads (its advertised rtf, the pieces sized from it, its capacity): a start-up
# that warms on one word, 6.3 CPU-s against 9.2-10.0 with the default warm-up text.
QUICK_WARM_UP = ("--warm-up-text", "Hi.")
__all__ = [
    "QUICK_WARM_UP",
    "REPO",
    "SERVER_START_S",
    "free_port",
    "model_server_child",
    "model_server_process",
    "wait_ready",
]


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 180.0, log: Path | None = None) -> None:
    """Poll ``url`` until it answers 200; fail with the server's own output (its pipe, or ``log``, the file
    it writes to) if it dies first."""
    try:
        readiness.wait_ready(url, timeout_s=timeout, alive=lambda: proc.poll() is None)
    except readiness.ServerGone:
        out = log.read_text(errors="replace") if log else proc.stdout.read() if proc.stdout else ""
        raise RuntimeError(f"server exited with {proc.returncode}:\n{out}") from None
