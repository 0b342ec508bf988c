"""The agent app in the agent's Python 3.12 environment, as a subprocess on a free loopback port.

``deploy-agent local`` runs the agent in its own process (a thread) when it can; over the SageMaker
transport on a 3.11 CLI it cannot (no SDK there), so the same app runs here instead: the settings
travel as the agent's own environment variables (``settings_to_env``) and ``agent/main.py``'s factory
builds the app exactly as the deployed image does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from kokoro_cli.common import agent_python
from kokoro_cli.common.errors import PrerequisiteMissing
from kokoro_processes.servers import free_port, ready_process
from voice_agent.settings import AgentSettings, settings_to_env

AGENT_START_S = 120.0  # strands and the SDK import in seconds (more on a loaded machine); bounds a hang


def agent_command(python: Path, host: str, port: int) -> list[str]:
    return [
        str(python),
        "-m",
        "uvicorn",
        "--factory",
        "main:app_from_env",
        "--app-dir",
        str(agent_python.REPO / "agent"),
        "--host",
        host,
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]


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
    env = agent_python.subprocess_env(settings_to_env(settings))
    with ready_process(
        agent_command(python, "127.0.0.1", port),
        f"http://127.0.0.1:{port}",
        env=env,
        timeout_s=AGENT_START_S,
        what=f"the agent under {python}",
    ) as url:
        yield url
