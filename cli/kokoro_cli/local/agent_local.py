"""``deploy-agent local`` and ``deploy-agent invoke``: the voice agent end to end without AWS.

``local`` runs the agent app on this machine against a model server (one it starts itself unless
``--model-url`` names one). With ``--prompt`` it asks one question instead of serving and writes
``answer.wav`` + ``report.json``; ``invoke`` does the same against an agent that is already running,
local (a URL) or deployed (an AgentCore runtime ARN). Both read the answer with the one recorder in
:mod:`kokoro_cli.local.answer_recording`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from starlette.applications import Starlette

from kokoro_cli.checks.model_smoke import parse_base_url
from kokoro_cli.common import agent_python
from kokoro_cli.common.aws_api import Boto3Aws
from kokoro_cli.common.console import Console
from kokoro_cli.common.errors import UsageError, VerifyFailed
from kokoro_cli.local.agent_process import agent_command, agent_python_or_fail, agent_server_process
from kokoro_cli.local.agent_web import DEFAULT_WEB_PORT, WebPort, serve_page
from kokoro_cli.local.answer_recording import AnswerRecording, events_from_sse, record_answer, timeline, write_answer
from kokoro_cli.local.running_model_server import running_model_server
from kokoro_cli.local.web_page import local_connect_url, page_origins
from kokoro_processes.servers import agent_server_thread, model_server_process
from speech_protocol.browser_access import AccessListError, BrowserAccess, access_list, host_name, origin, server_hosts
from voice_agent.settings import (
    DEFAULT_SCRIPTED_REPLY,
    AgentSettings,
    LlmSettings,
    SettingsError,
    TtsSettings,
    settings_to_env,
)

ANSWER_TIMEOUT_S = 300.0


class LlmChoice(StrEnum):
    bedrock = "bedrock"
    openai = "openai"
    scripted = "scripted"


class EngineChoice(StrEnum):
    onnx = "onnx"
    torch = "torch"


DEFAULT_AGENT_PORT = 8080  # AgentCore's
Prompt = Annotated[str | None, typer.Option(help="Ask this one question, write --out, and exit.")]
Out = Annotated[Path, typer.Option(help="Folder for answer.wav and report.json.")]
VoiceName = Annotated[str, typer.Option(help="Kokoro voice, e.g. af_heart, am_michael, bf_emma.")]
Speed = Annotated[float, typer.Option(help="Speaking rate, 0.5 to 2.0.")]
AllowHost = Annotated[
    list[str] | None,
    typer.Option(help="A name besides localhost/127.0.0.1/[::1] the agent and page answer to (repeat; * = any)."),
]
AllowOrigin = Annotated[
    list[str] | None,
    typer.Option(
        help="A web page origin (http://host:port) allowed to open /ws or POST /invocations, besides the "
        "conversation page (repeat; * = any)."
    ),
]


def local_settings(
    model_url: str | None,
    llm: LlmChoice | None,
    reply: str,
    tokens_per_s: float,
    llm_model_id: str | None,
    llm_base_url: str | None,
    region: str | None,
    voice: str,
    speed: float,
    *,
    tts_endpoint: str | None = None,
    tts_endpoint_url: str | None = None,
) -> AgentSettings:
    """The agent's settings from the command's options; no LLM configured means the scripted reply.

    With ``tts_endpoint`` the agent speaks through SageMaker's bidirectional stream, as deployed
    (at ``tts_endpoint_url`` when given, e.g. the local emulator); otherwise to ``model_url`` directly.
    """
    provider = llm or (LlmChoice.openai if llm_base_url else LlmChoice.bedrock if llm_model_id else LlmChoice.scripted)
    if tts_endpoint and not region:
        raise UsageError("--tts-endpoint needs --region (the endpoint's AWS region)")
    try:
        if tts_endpoint:
            tts = TtsSettings(
                "sagemaker",
                endpoint_name=tts_endpoint,
                region=region,
                endpoint_url=tts_endpoint_url,
                voice=voice,
                speed=speed,
            )
        else:
            tts = TtsSettings("websocket", url=model_url, voice=voice, speed=speed)
        return AgentSettings(
            tts=tts,
            llm=LlmSettings(
                provider=provider.value,
                model_id=llm_model_id,
                base_url=llm_base_url,
                region=region,
                reply=reply,
                tokens_per_s=tokens_per_s,
            ),
        )
    except SettingsError as err:
        raise UsageError(str(err)) from None


def allowed_extras(
    allow_host: list[str], allow_origin: list[str]
) -> tuple[frozenset[str] | None, frozenset[str] | None]:
    """``--allow-host`` and ``--allow-origin``, normalized (``None``: ``*``, no check)."""
    try:
        return access_list(allow_host, host_name), access_list(allow_origin, origin)
    except AccessListError as err:
        raise UsageError(f"--allow-host/--allow-origin: {err}") from None


def agent_access(
    host: str, page_port: int | None, hosts: frozenset[str] | None, origins: frozenset[str] | None
) -> BrowserAccess:
    """A local agent answers its own names (bound to loopback: only those and ``hosts``) and, from web
    pages, only the conversation page on ``page_port`` and ``origins`` (100-browser-reachable-servers.md)."""
    own = page_origins(page_port) if page_port is not None else frozenset()
    return BrowserAccess(hosts=server_hosts(host, hosts), origins=None if origins is None else own | origins)


def _payload(prompt: str, voice: str | None, speed: float | None) -> dict:
    body: dict = {"prompt": prompt}
    if voice:
        body["voice"] = voice
    if speed is not None:
        body["speed"] = speed
    return body


@contextlib.contextmanager
def _url_lines(url: str, payload: dict) -> Iterator[Iterator[str]]:
    import httpx  # here, not at start-up: a CLI that never calls a server loads no HTTP client (decision 140)

    http_base, _ = parse_base_url(url)
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(ANSWER_TIMEOUT_S, connect=10.0)) as client,
            client.stream(
                "POST", f"{http_base}/invocations", json=payload, headers={"accept": "text/event-stream"}
            ) as reply,
        ):
            if reply.status_code != 200:
                body = reply.read()[:300].decode("utf-8", errors="replace")
                raise VerifyFailed(f"the agent at {http_base} answered HTTP {reply.status_code}: {body}")
            yield reply.iter_lines()
    except httpx.HTTPError as err:
        raise VerifyFailed(f"cannot reach the agent at {http_base}: {type(err).__name__}: {err}") from err


def ask(target: str, payload: dict, region: str | None = None, profile: str | None = None) -> AnswerRecording:
    """One question to a running agent: an http(s):// URL, or an AgentCore runtime ARN."""
    started = time.monotonic()
    if target.startswith("arn:"):
        session_id = f"deploy-agent-invoke-{uuid.uuid4().hex}"  # the API wants 33+ characters
        region = region or target.split(":")[3]
        lines = Boto3Aws(region=region, profile=profile).invoke_agent_runtime(
            target, session_id, json.dumps(payload).encode()
        )
        return record_answer(events_from_sse(lines), started)
    with _url_lines(target, payload) as lines:
        return record_answer(events_from_sse(lines), started)


def _report(console: Console, answer: AnswerRecording, out: Path) -> None:
    wav_path, report_path = write_answer(answer, out)
    for line in timeline(answer):
        console.line(line)
    console.note(f"wrote {wav_path} and {report_path}")
    if answer.error:
        raise VerifyFailed(f"the agent answered with an error: {answer.error.code}: {answer.error.message}")


def _local_app(settings: AgentSettings) -> Starlette:
    """The agent app for this terminal: bedrock_agentcore logs a JSON line per request (for CloudWatch on
    AgentCore), which would interleave with the CLI's own output, so only its warnings are shown here."""
    from voice_agent.app import create_app

    app = create_app(settings)
    logging.getLogger("bedrock_agentcore.app").setLevel(logging.WARNING)
    return app


def local(
    prompt: Prompt = None,
    out: Out = Path("out/agent-local"),
    model_url: Annotated[str | None, typer.Option(help="A running model server; default: start one.")] = None,
    engine: Annotated[EngineChoice, typer.Option(help="Engine of the model server started here.")] = EngineChoice.onnx,
    llm: Annotated[
        LlmChoice | None, typer.Option(help="LLM provider; default: scripted unless an LLM is given.")
    ] = None,
    reply: Annotated[
        str, typer.Option(help="What the scripted LLM says, whatever the prompt (it reads none).")
    ] = DEFAULT_SCRIPTED_REPLY,
    tokens_per_s: Annotated[float, typer.Option(help="Scripted LLM speed, words per second.")] = 20.0,
    llm_model_id: Annotated[str | None, typer.Option(help="Bedrock or OpenAI-compatible model id.")] = None,
    llm_base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    region: Annotated[str | None, typer.Option(help="AWS region for Bedrock and --tts-endpoint.")] = None,
    tts_endpoint: Annotated[
        str | None,
        typer.Option(
            help="Speak through this SageMaker endpoint's bidirectional stream (the deployed path) "
            "instead of a local model server."
        ),
    ] = None,
    tts_endpoint_url: Annotated[
        str | None,
        typer.Option(
            help="The SageMaker runtime for --tts-endpoint, e.g. the local emulator "
            "(python -m kokoro_devtools.sagemaker_emulator); default: AWS's."
        ),
    ] = None,
    voice: VoiceName = "af_heart",
    speed: Speed = 1.0,
    host: Annotated[str, typer.Option(help="Address the agent serves on (without --prompt).")] = "127.0.0.1",
    port: Annotated[
        int | None,
        typer.Option(
            help="Port the agent serves on (without --prompt); default 8080, with --web a free one.", show_default=False
        ),
    ] = None,
    web: Annotated[bool, typer.Option("--web", help="Also serve the conversation page (talk, stop, go on).")] = False,
    web_port: WebPort = DEFAULT_WEB_PORT,
    allow_host: AllowHost = None,
    allow_origin: AllowOrigin = None,
) -> None:
    """Run the voice agent on this machine; with --prompt, ask one question and record the answer;
    with --web, talk to it from a browser page on 127.0.0.1:--web-port."""
    from voice_agent.app import SHUTDOWN_GRACE_S

    console = Console()
    with console.reporting_errors(), contextlib.ExitStack() as stack:
        if web and prompt is not None:
            raise UsageError("--web serves the conversation page; --prompt asks one question: give one of them")
        extra_hosts, extra_origins = allowed_extras(allow_host or [], allow_origin or [])
        if model_url is None and tts_endpoint is None:
            console.step(f"starting a local model server ({engine.value})")
            model_url = stack.enter_context(model_server_process(engine.value))
        elif model_url is not None and tts_endpoint is None:
            console.step(f"waiting for the model server at {model_url}")
            running_model_server(model_url)
        settings = local_settings(
            model_url,
            llm,
            reply,
            tokens_per_s,
            llm_model_id,
            llm_base_url,
            region,
            voice,
            speed,
            tts_endpoint=tts_endpoint,
            tts_endpoint_url=tts_endpoint_url,
        )
        page_port = web_port if web else None
        settings = replace(settings, access=agent_access(host, page_port, extra_hosts, extra_origins))
        speech = (
            f"model server {model_url}"
            if tts_endpoint is None
            else (f"SageMaker endpoint {tts_endpoint}" + (f" at {tts_endpoint_url}" if tts_endpoint_url else ""))
        )
        # The SageMaker transport needs the 3.12-only SDK: on a 3.11 CLI the agent runs in .venv312.
        in_process = settings.tts.transport == "websocket" or agent_python.sdk_here()
        if web:
            agent_url = stack.enter_context(  # port None: a free one, the page tells the browser where
                agent_server_thread(_local_app(settings), host, port) if in_process else agent_server_process(settings)
            )
            console.step(f"agent on {agent_url}/ws and /invocations ({speech})")
            page_hosts = server_hosts("127.0.0.1", extra_hosts)
            serve_page(console, local_connect_url(agent_url), web_port, agent_url, page_hosts)
            return
        if prompt is None:
            port = DEFAULT_AGENT_PORT if port is None else port
            console.step(f"agent on http://{host}:{port}/invocations ({speech}); Ctrl-C stops")
            if not in_process:
                python = agent_python_or_fail()
                env = agent_python.subprocess_env(settings_to_env(settings))
                os.execve(python, agent_command(python, host, port), env)  # the agent owns the process
            import uvicorn

            uvicorn.run(
                _local_app(settings),
                host=host,
                port=port,
                log_level="warning",
                timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
            )
            return
        if in_process:
            agent_url = stack.enter_context(agent_server_thread(_local_app(settings)))
        else:
            agent_url = stack.enter_context(agent_server_process(settings))
        console.step(f"asking the agent ({settings.llm.provider} LLM, {speech})")
        _report(console, ask(agent_url, _payload(prompt, None, None)), out)


def invoke(
    target: Annotated[str, typer.Argument(help="Agent URL (http://127.0.0.1:8080) or AgentCore runtime ARN.")],
    prompt: Annotated[str, typer.Option(help="The question.")],
    out: Out = Path("out/agent-invoke"),
    voice: Annotated[str | None, typer.Option(help="Voice for this answer (default: the agent's).")] = None,
    speed: Annotated[float | None, typer.Option(help="Speaking rate for this answer, 0.5 to 2.0.")] = None,
    region: Annotated[str | None, typer.Option(help="Region of the runtime (default: from the ARN).")] = None,
    profile: Annotated[str | None, typer.Option(help="AWS profile for a runtime ARN.")] = None,
) -> None:
    """Ask a running agent one question and write answer.wav and report.json."""
    console = Console()
    with console.reporting_errors():
        if not target.startswith(("arn:", "http://", "https://")):
            raise UsageError(
                f"not an agent URL or runtime ARN: {target[:100]!r}",
                fix="give http://127.0.0.1:8080 or arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/ID",
            )
        _report(console, ask(target, _payload(prompt, voice, speed), region, profile), out)
