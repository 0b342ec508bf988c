"""``deploy-agent local`` and ``deploy-agent invoke``: the voice agent end to end without AWS.

``local`` runs the agent app on this machine against a model server (one it starts itself unless
``--model-url`` names one). With ``--prompt`` it asks one question instead of serving and writes
``answer.wav`` + ``report.json``; ``invoke`` does the same against an agent that is already running,
local (a URL) or deployed (an AgentCore runtime ARN). This module is the commands' options; the settings
come from :mod:`kokoro_cli.local.local_settings`, each mode is a function of
:mod:`kokoro_cli.local.agent_modes`, and both commands ask through :mod:`kokoro_cli.local.asking`.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from kokoro_cli.checks.agent_client import invocation
from kokoro_cli.common.console import Console
from kokoro_cli.common.errors import UsageError
from kokoro_cli.local.agent_modes import LocalAgent, ask_once, serve_agent, serve_web, speech_server
from kokoro_cli.local.agent_web import DEFAULT_WEB_PORT, WebPort
from kokoro_cli.local.asking import ask, report_answer
from kokoro_cli.local.local_settings import LlmChoice, agent_access, allowed_extras, local_settings
from speech_protocol.voices import DEFAULT_VOICE
from voice_agent.settings import DEFAULT_SCRIPTED_REPLY


class EngineChoice(StrEnum):
    onnx = "onnx"
    torch = "torch"


DEFAULT_AGENT_PORT = 8080  # AgentCore's
Prompt = Annotated[str | None, typer.Option(help="Ask this one question, write --out, and exit.")]
Out = Annotated[Path, typer.Option(help="Folder for answer.wav and report.json.")]
VoiceName = Annotated[str, typer.Option(help="Kokoro voice, e.g. af_heart, am_michael, bf_emma.")]
Speed = Annotated[float, typer.Option(help="Speaking rate, 0.5 to 2.0.")]
ModelUrl = Annotated[str | None, typer.Option(help="A running model server; default: start one.")]
Engine = Annotated[EngineChoice, typer.Option(help="Engine of the model server started here.")]
Llm = Annotated[LlmChoice | None, typer.Option(help="LLM provider; default: scripted unless an LLM is given.")]
Reply = Annotated[str, typer.Option(help="What the scripted LLM says, whatever the prompt (it reads none).")]
TokensPerS = Annotated[float, typer.Option(help="Scripted LLM speed, words per second.")]
LlmModelId = Annotated[str | None, typer.Option(help="Bedrock or OpenAI-compatible model id.")]
LlmBaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")]
Region = Annotated[str | None, typer.Option(help="AWS region for Bedrock and --tts-endpoint.")]
TtsEndpoint = Annotated[
    str | None,
    typer.Option(
        help="Speak through this SageMaker endpoint's bidirectional stream (the deployed path) "
        "instead of a local model server."
    ),
]
TtsEndpointUrl = Annotated[
    str | None,
    typer.Option(
        help="The SageMaker runtime for --tts-endpoint, e.g. the local emulator "
        "(python -m kokoro_devtools.sagemaker_emulator); default: AWS's."
    ),
]
Host = Annotated[str, typer.Option(help="Address the agent serves on (without --prompt).")]
Port = Annotated[
    int | None,
    typer.Option(
        help="Port the agent serves on (without --prompt); default 8080, with --web a free one.", show_default=False
    ),
]
Web = Annotated[bool, typer.Option("--web", help="Also serve the conversation page (talk, stop, go on).")]
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


def local(
    prompt: Prompt = None,
    out: Out = Path("out/agent-local"),
    model_url: ModelUrl = None,
    engine: Engine = EngineChoice.onnx,
    llm: Llm = None,
    reply: Reply = DEFAULT_SCRIPTED_REPLY,
    tokens_per_s: TokensPerS = 20.0,
    llm_model_id: LlmModelId = None,
    llm_base_url: LlmBaseUrl = None,
    region: Region = None,
    tts_endpoint: TtsEndpoint = None,
    tts_endpoint_url: TtsEndpointUrl = None,
    voice: VoiceName = DEFAULT_VOICE,
    speed: Speed = 1.0,
    host: Host = "127.0.0.1",
    port: Port = None,
    web: Web = False,
    web_port: WebPort = DEFAULT_WEB_PORT,
    allow_host: AllowHost = None,
    allow_origin: AllowOrigin = None,
) -> None:
    """Run the voice agent on this machine; with --prompt, ask one question and record the answer;
    with --web, talk to it from a browser page on 127.0.0.1:--web-port."""
    console = Console()
    with console.reporting_errors(), contextlib.ExitStack() as stack:
        if web and prompt is not None:
            raise UsageError("--web serves the conversation page; --prompt asks one question: give one of them")
        extra_hosts, extra_origins = allowed_extras(allow_host or [], allow_origin or [])
        model_url = speech_server(stack, console, model_url, engine.value, tts_endpoint)
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
        access = agent_access(host, web_port if web else None, extra_hosts, extra_origins)
        agent = LocalAgent.of(replace(settings, access=access))
        if web:
            serve_web(console, agent, host, port, web_port, extra_hosts)
        elif prompt is None:
            serve_agent(console, agent, host, DEFAULT_AGENT_PORT if port is None else port)
        else:
            ask_once(console, agent, prompt, out)


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
        report_answer(console, ask(target, invocation(prompt, voice, speed), region, profile), out)
