"""The agent's configuration: read from the environment once, at the edge, into frozen objects.

The agent stack sets these variables on the AgentCore runtime (008-three-interfaces.md); the local CLI builds the
same objects directly from its options. Nothing below this module reads ``os.environ``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar
from urllib.parse import urlsplit

from speech_protocol.browser_access import AccessListError, BrowserAccess, access_list, host_name, origin
from speech_protocol.messages import MAX_SPEED, MIN_SPEED, ProtocolError, parse_speed
from speech_protocol.urls import ServerUrlError, server_urls

TtsTransport = Literal["sagemaker", "websocket"]
LlmProvider = Literal["bedrock", "openai", "scripted"]
TTS_TRANSPORTS: tuple[TtsTransport, ...] = ("sagemaker", "websocket")
LLM_PROVIDERS: tuple[LlmProvider, ...] = ("bedrock", "openai", "scripted")
DEFAULT_VOICE = "af_heart"
NOTHING_ALLOWED = "none"  # an allow-list variable's value that allows nothing
DEFAULT_SCRIPTED_REPLY = (
    "Hello! I am a scripted voice agent, speaking without a language model. "
    "Each sentence is spoken as soon as it is written. Ask me anything"
)


class SettingsError(ValueError):
    """A configuration value is missing or malformed; the message names the variable."""


Choice = TypeVar("Choice", bound=str)


def one_of(value: str, choices: tuple[Choice, ...], name: str) -> Choice:
    """``value`` as the member of ``choices`` it equals; a :class:`SettingsError` naming ``name`` otherwise."""
    for choice in choices:
        if value == choice:
            return choice
    raise SettingsError(f"{name} must be one of {', '.join(choices)}")


@dataclass(frozen=True)
class TtsSettings:
    """Where speech comes from. ``timeout_s`` bounds every wait for the model server's next bytes."""

    transport: TtsTransport
    endpoint_name: str | None = None
    region: str | None = None
    url: str | None = None
    voice: str = DEFAULT_VOICE
    speed: float = 1.0
    timeout_s: float = 30.0
    endpoint_url: str | None = None  # a SageMaker runtime instead of AWS's (the local emulator); https://

    def __post_init__(self) -> None:
        one_of(self.transport, TTS_TRANSPORTS, "TTS_TRANSPORT")
        if self.transport == "sagemaker" and not (self.endpoint_name and self.region):
            raise SettingsError("TTS_TRANSPORT=sagemaker needs TTS_ENDPOINT_NAME and TTS_REGION (or AWS_REGION)")
        if self.endpoint_url is not None and urlsplit(self.endpoint_url).scheme != "https":
            raise SettingsError("TTS_ENDPOINT_URL must be an https:// URL (SageMaker's stream is HTTP/2 over TLS)")
        if self.transport == "websocket":
            try:
                server_urls(self.url or "")
            except ServerUrlError:
                raise SettingsError(
                    "TTS_TRANSPORT=websocket needs TTS_URL (ws://, wss://, http:// or https://)"
                ) from None
        if not self.voice.strip():
            raise SettingsError("TTS_VOICE must not be empty")
        try:
            parse_speed(self.speed)
        except ProtocolError:
            raise SettingsError(f"TTS_SPEED must be between {MIN_SPEED} and {MAX_SPEED}") from None
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise SettingsError("TTS_TIMEOUT_S must be a positive number")


@dataclass(frozen=True)
class LlmSettings:
    """Which model writes the answer. ``scripted`` streams ``reply`` at ``tokens_per_s``, offline."""

    provider: LlmProvider = "bedrock"
    model_id: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)  # OpenAI-compatible servers only
    region: str | None = None
    reply: str = DEFAULT_SCRIPTED_REPLY
    tokens_per_s: float = 20.0

    def __post_init__(self) -> None:
        one_of(self.provider, LLM_PROVIDERS, "LLM_PROVIDER")
        if self.provider == "openai" and not (self.base_url and self.model_id):
            raise SettingsError("LLM_PROVIDER=openai needs LLM_BASE_URL and LLM_MODEL_ID")
        if self.provider == "scripted" and not self.reply.strip():
            raise SettingsError("LLM_REPLY must not be empty")
        if not (math.isfinite(self.tokens_per_s) and self.tokens_per_s > 0):
            raise SettingsError("LLM_TOKENS_PER_S must be a positive number")


@dataclass(frozen=True)
class AgentSettings:
    tts: TtsSettings
    llm: LlmSettings
    # Which Host names and web pages may reach the agent: no check by default, as on AgentCore, which
    # authenticates every call; ``deploy-agent local`` sets both (100-browser-reachable-servers.md).
    access: BrowserAccess = BrowserAccess()


def _number(env: Mapping[str, str], key: str, default: float) -> float:
    raw = env.get(key, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise SettingsError(f"{key} must be a number, got {raw[:40]!r}") from None


def _text(env: Mapping[str, str], key: str) -> str | None:
    return env.get(key, "").strip() or None


def _access_list(env: Mapping[str, str], key: str, normalize: Callable[[str], str]) -> frozenset[str] | None:
    """An allow-list variable: unset or ``*`` = no check, ``none`` = nothing allowed, else names split by
    commas or spaces."""
    raw = _text(env, key)
    if raw is None:
        return None
    if raw.lower() == NOTHING_ALLOWED:
        return frozenset()
    try:
        return access_list([raw], normalize)
    except AccessListError as err:
        raise SettingsError(f"{key}: {err}") from None


def _access_text(allowed: frozenset[str] | None) -> str | None:
    """The inverse of :func:`_access_list`."""
    if allowed is None:
        return None
    return " ".join(sorted(allowed)) or NOTHING_ALLOWED


def settings_from_env(env: Mapping[str, str]) -> AgentSettings:
    """Parse the agent's variables (008-three-interfaces.md). Without TTS_TRANSPORT, TTS_URL implies ``websocket``."""
    region = _text(env, "TTS_REGION") or _text(env, "AWS_REGION") or _text(env, "AWS_DEFAULT_REGION")
    url = _text(env, "TTS_URL")
    tts = TtsSettings(
        transport=one_of(
            _text(env, "TTS_TRANSPORT") or ("websocket" if url else "sagemaker"), TTS_TRANSPORTS, "TTS_TRANSPORT"
        ),
        endpoint_name=_text(env, "TTS_ENDPOINT_NAME"),
        region=region,
        url=url,
        voice=_text(env, "TTS_VOICE") or DEFAULT_VOICE,
        speed=_number(env, "TTS_SPEED", 1.0),
        timeout_s=_number(env, "TTS_TIMEOUT_S", 30.0),
        endpoint_url=_text(env, "TTS_ENDPOINT_URL"),
    )
    llm = LlmSettings(
        provider=one_of(_text(env, "LLM_PROVIDER") or "bedrock", LLM_PROVIDERS, "LLM_PROVIDER"),
        model_id=_text(env, "LLM_MODEL_ID"),
        base_url=_text(env, "LLM_BASE_URL"),
        api_key=_text(env, "LLM_API_KEY"),
        region=_text(env, "AWS_REGION") or region,
        reply=env.get("LLM_REPLY") or DEFAULT_SCRIPTED_REPLY,
        tokens_per_s=_number(env, "LLM_TOKENS_PER_S", 20.0),
    )
    access = BrowserAccess(
        hosts=_access_list(env, "AGENT_ALLOWED_HOSTS", host_name),
        origins=_access_list(env, "AGENT_ALLOWED_ORIGINS", origin),
    )
    return AgentSettings(tts=tts, llm=llm, access=access)


def settings_to_env(settings: AgentSettings) -> dict[str, str]:
    """The inverse of :func:`settings_from_env`: runs the same agent in another process (Python 3.12)."""
    tts, llm = settings.tts, settings.llm
    values = {
        "TTS_TRANSPORT": tts.transport,
        "TTS_ENDPOINT_NAME": tts.endpoint_name,
        "TTS_REGION": tts.region,
        "TTS_URL": tts.url,
        "TTS_VOICE": tts.voice,
        "TTS_SPEED": str(tts.speed),
        "TTS_TIMEOUT_S": str(tts.timeout_s),
        "TTS_ENDPOINT_URL": tts.endpoint_url,
        "LLM_PROVIDER": llm.provider,
        "LLM_MODEL_ID": llm.model_id,
        "LLM_BASE_URL": llm.base_url,
        "LLM_API_KEY": llm.api_key,
        "LLM_REPLY": llm.reply,
        "LLM_TOKENS_PER_S": str(llm.tokens_per_s),
        "AGENT_ALLOWED_HOSTS": _access_text(settings.access.hosts),
        "AGENT_ALLOWED_ORIGINS": _access_text(settings.access.origins),
    }
    return {key: value for key, value in values.items() if value is not None}
