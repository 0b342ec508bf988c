"""The agent app in the agent's Python 3.12 environment, as a subprocess on a free loopback port.

``deploy-agent local`` runs the agent in its own process (a thread) when it can; over the SageMaker
transport on a 3.11 CLI it cannot (no SDK there), so the same app runs here instead: the settings
travel as the agent's own environment variables (``settings_to_env``) and ``agent/main.py``'s factory
builds the app exactly as the deployed image does.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from cli import agent_python
from cli.agent_local_servers import free_port
from cli.errors import CommandFailed, PrerequisiteMissing
from voice_agent.settings import AgentSettings, settings_to_env

AGENT_START_S = 60.0  # strands and the SDK import in a few seconds; this bounds a hang


def _ready(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{url}/ping", timeout=2.0).status_code == 200
    return False


def agent_command(python: Path, host: str, port: int) -> list[str]:
    return [str(python), "-m", "uvicorn", "--factory", "main:app_from_env", "--app-dir",
            str(agent_python.REPO / "agent"), "--host", host, "--port", str(port), "--log-level", "warning"]


def agent_python_or_fail(python: Path | None = None) -> Path:
    python = python or agent_python.AGENT_PYTHON
    if not python.exists():
        raise PrerequisiteMissing(agent_python.missing_message(python))
    return python


@contextlib.contextmanager
def agent_server_process(settings: AgentSettings, python: Path | None = None) -> Iterator[str]:
    """Serve the agent with ``python`` (default: .venv312) on 127.0.0.1; yields its base URL."""
    python = agent_python_or_fail(python)
    port = free_port()
    command = agent_command(python, "127.0.0.1", port)
    log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: an unread pipe would freeze the agent
    proc = subprocess.Popen(command, env=agent_python.subprocess_env(settings_to_env(settings)),
                            stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + AGENT_START_S
        while not _ready(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise CommandFailed(f"the agent did not start under {python}", details=tuple(log.read().splitlines()[-10:]))
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
