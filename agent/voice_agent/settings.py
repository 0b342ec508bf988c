"""The agent's configuration: read from the environment once, at the edge, into frozen objects.

The agent stack sets these variables on the AgentCore runtime (008-three-interfaces.md); the local CLI builds the
same objects directly from its options. Nothing below this module reads ``os.environ``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar
from urllib.parse import urlsplit

from speech_protocol.client_messages import MAX_SPEED, MIN_SPEED, parse_speed
from speech_protocol.environment import VariableError, from_env, to_env, variable
from speech_protocol.errors import ProtocolError
from speech_protocol.http.browser_access import AccessListError, BrowserAccess, access_list, host_name, origin
from speech_protocol.http.urls import ServerUrlError, server_urls
from speech_protocol.voices import DEFAULT_VOICE

TtsTransport = Literal["sagemaker", "websocket"]
LlmProvider = Literal["bedrock", "openai", "scripted"]
TTS_TRANSPORTS: tuple[TtsTransport, ...] = ("sagemaker", "websocket")
LLM_PROVIDERS: tuple[LlmProvider, ...] = ("bedrock", "openai", "scripted")
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

    transport: TtsTransport = variable("TTS_TRANSPORT")
    endpoint_name: str | None = variable("TTS_ENDPOINT_NAME", None)
    region: str | None = variable("TTS_REGION", None)
    url: str | None = variable("TTS_URL", None)
    voice: str = variable("TTS_VOICE", DEFAULT_VOICE)
    speed: float = variable("TTS_SPEED", 1.0)
    timeout_s: float = variable("TTS_TIMEOUT_S", 30.0)
    # A SageMaker runtime instead of AWS's (the local emulator); https://
    endpoint_url: str | None = variable("TTS_ENDPOINT_URL", None)

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

    provider: LlmProvider = variable("LLM_PROVIDER", "bedrock")
    model_id: str | None = variable("LLM_MODEL_ID", None)
    base_url: str | None = variable("LLM_BASE_URL", None)
    api_key: str | None = variable("LLM_API_KEY", None, repr=False)  # OpenAI-compatible servers only
    region: str | None = None  # AWS_REGION, else the speech's region (settings_from_env)
    reply: str = variable("LLM_REPLY", DEFAULT_SCRIPTED_REPLY, strip=False)
    tokens_per_s: float = variable("LLM_TOKENS_PER_S", 20.0)

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


# The allow-list variables, by the BrowserAccess field each sets, with how a name in it is normalized.
_ACCESS_VARIABLES: dict[str, tuple[str, Callable[[str], str]]] = {
    "hosts": ("AGENT_ALLOWED_HOSTS", host_name),
    "origins": ("AGENT_ALLOWED_ORIGINS", origin),
}


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
    try:
        tts_values, llm_values = from_env(TtsSettings, env), from_env(LlmSettings, env)
    except VariableError as err:
        raise SettingsError(str(err)) from None
    region = tts_values.get("region") or _text(env, "AWS_REGION") or _text(env, "AWS_DEFAULT_REGION")
    transport = tts_values.get("transport") or ("websocket" if tts_values.get("url") else "sagemaker")
    tts = TtsSettings(**{**tts_values, "transport": transport, "region": region})
    llm = LlmSettings(**llm_values, region=_text(env, "AWS_REGION") or region)
    access = {name: _access_list(env, key, normalize) for name, (key, normalize) in _ACCESS_VARIABLES.items()}
    return AgentSettings(tts=tts, llm=llm, access=BrowserAccess(**access))


def access_to_env(access: BrowserAccess) -> dict[str, str]:
    """The allow-list variables of ``access``; a list that checks nothing is left out."""
    values = {key: _access_text(getattr(access, name)) for name, (key, _) in _ACCESS_VARIABLES.items()}
    return {key: value for key, value in values.items() if value is not None}


def settings_to_env(settings: AgentSettings) -> dict[str, str]:
    """The inverse of :func:`settings_from_env`, every variable written (the region as TTS_REGION): runs the
    same agent in another process (Python 3.12), whatever the parent's environment holds."""
    return {**to_env(settings.tts), **to_env(settings.llm), **access_to_env(settings.access)}
