"""The settings of an agent run on this machine, from ``deploy-agent local``'s options.

Which LLM it asks, what it speaks through (a model server's URL or a SageMaker endpoint), and which names
and web pages it answers (loopback only, plus the conversation page and what ``--allow-host`` and
``--allow-origin`` add).
"""

from __future__ import annotations

from enum import StrEnum

from kokoro_cli.common.errors import UsageError
from kokoro_cli.local.web_page import page_origins
from speech_protocol.http.browser_access import (
    AccessListError,
    BrowserAccess,
    access_list,
    host_name,
    origin,
    server_hosts,
)
from voice_agent.settings import AgentSettings, LlmSettings, SettingsError, TtsSettings


class LlmChoice(StrEnum):
    bedrock = "bedrock"
    openai = "openai"
    scripted = "scripted"


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
