"""The three ways ``deploy-agent local`` runs the agent: one question (``--prompt``), the conversation page
(``--web``), or a server until Ctrl-C.

Each mode gets a :class:`LocalAgent`, which knows once where the agent runs: in this process (a thread, or
uvicorn in the foreground) when it can, else in the agent's 3.12 environment (the SageMaker transport needs
the 3.12-only SDK, so on a 3.11 CLI the same app runs there, :mod:`kokoro_cli.local.agent_process`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette

from kokoro_cli.checks.agent_client import invocation
from kokoro_cli.common import agent_python
from kokoro_cli.common.console import Console
from kokoro_cli.local.agent_process import agent_command, agent_python_or_fail, agent_server_process
from kokoro_cli.local.agent_web import serve_page
from kokoro_cli.local.asking import ask, report_answer
from kokoro_cli.local.running_model_server import running_model_server
from kokoro_cli.local.web_page import local_connect_url
from kokoro_processes.servers import agent_server_thread, model_server_process
from speech_protocol.http.browser_access import server_hosts
from voice_agent.settings import AgentSettings, settings_to_env


def speech_server(
    stack: contextlib.ExitStack, console: Console, model_url: str | None, engine: str, tts_endpoint: str | None
) -> str | None:
    """The model server the agent speaks to: ``model_url`` once it is ready, else one started here for as long
    as ``stack`` lasts; none when the agent speaks through a SageMaker endpoint."""
    if tts_endpoint is not None:
        return model_url
    if model_url is None:
        console.step(f"starting a local model server ({engine})")
        return stack.enter_context(model_server_process(engine))
    console.step(f"waiting for the model server at {model_url}")
    running_model_server(model_url)
    return model_url


@dataclass(frozen=True)
class LocalAgent:
    """The agent's settings, and where it runs, decided once (:meth:`of`)."""

    settings: AgentSettings
    speech: str  # what it speaks through, for the progress lines
    in_process: bool

    @classmethod
    def of(cls, settings: AgentSettings) -> LocalAgent:
        tts = settings.tts
        speech = f"model server {tts.url}"
        if tts.transport == "sagemaker":
            speech = f"SageMaker endpoint {tts.endpoint_name}" + (f" at {tts.endpoint_url}" if tts.endpoint_url else "")
        return cls(settings, speech, in_process=tts.transport == "websocket" or agent_python.sdk_here())

    def started(self, host: str = "127.0.0.1", port: int | None = None) -> contextlib.AbstractContextManager[str]:
        """The agent serving in the background while the block runs (port ``None``: a free one); yields its
        base URL. In the 3.12 environment it takes a free loopback port whatever ``host`` and ``port`` say."""
        if self.in_process:
            return agent_server_thread(_local_app(self.settings), host, port)
        return agent_server_process(self.settings)

    def serve(self, host: str, port: int) -> None:
        """The agent in the foreground until Ctrl-C; in the 3.12 environment it takes over this process."""
        if not self.in_process:
            python = agent_python_or_fail()
            env = agent_python.subprocess_env(settings_to_env(self.settings))
            os.execve(python, agent_command(python, host, port), env)  # the agent owns the process
        import uvicorn

        from voice_agent.app import SHUTDOWN_GRACE_S

        app = _local_app(self.settings)
        uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=SHUTDOWN_GRACE_S)


def ask_once(console: Console, agent: LocalAgent, prompt: str, out: Path) -> None:
    """``--prompt``: the agent in the background, asked one question; the answer is written to ``out``."""
    with agent.started() as agent_url:
        console.step(f"asking the agent ({agent.settings.llm.provider} LLM, {agent.speech})")
        report_answer(console, ask(agent_url, invocation(prompt)), out)


def serve_web(
    console: Console, agent: LocalAgent, host: str, port: int | None, web_port: int, hosts: frozenset[str] | None
) -> None:
    """``--web``: the agent in the background and the conversation page in front, until Ctrl-C."""
    with agent.started(host, port) as agent_url:  # port None: a free one, the page tells the browser where
        console.step(f"agent on {agent_url}/ws and /invocations ({agent.speech})")
        serve_page(console, local_connect_url(agent_url), web_port, agent_url, server_hosts("127.0.0.1", hosts))


def serve_agent(console: Console, agent: LocalAgent, host: str, port: int) -> None:
    """Neither: the agent on ``host:port`` until Ctrl-C."""
    console.step(f"agent on http://{host}:{port}/invocations ({agent.speech}); Ctrl-C stops")
    agent.serve(host, port)


def _local_app(settings: AgentSettings) -> Starlette:
    """The agent app for this terminal: bedrock_agentcore logs a JSON line per request (for CloudWatch on
    AgentCore), which would interleave with the CLI's own output, so only its warnings are shown here."""
    from voice_agent.app import create_app

    app = create_app(settings)
    logging.getLogger("bedrock_agentcore.app").setLevel(logging.WARNING)
    return app
