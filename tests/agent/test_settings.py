"""The agent's environment (008-three-interfaces.md), parsed once; a bad value names its variable."""

from __future__ import annotations

from dataclasses import replace

import pytest

from speech_protocol.http.browser_access import LOOPBACK_NAMES, BrowserAccess
from voice_agent.settings import DEFAULT_SCRIPTED_REPLY, SettingsError, settings_from_env, settings_to_env

SAGEMAKER = {"TTS_TRANSPORT": "sagemaker", "TTS_ENDPOINT_NAME": "kokoro-tts", "TTS_REGION": "us-west-2"}


def test_stack_environment() -> None:
    env = {**SAGEMAKER, "TTS_VOICE": "bf_emma", "TTS_SPEED": "1.2", "LLM_MODEL_ID": "us.amazon.nova-lite-v1:0"}
    settings = settings_from_env(env)
    assert (settings.tts.transport, settings.tts.endpoint_name, settings.tts.region) == (
        "sagemaker",
        "kokoro-tts",
        "us-west-2",
    )
    assert (settings.tts.voice, settings.tts.speed) == ("bf_emma", 1.2)
    assert (settings.llm.provider, settings.llm.model_id) == ("bedrock", "us.amazon.nova-lite-v1:0")


def test_defaults_and_inference() -> None:
    settings = settings_from_env({"TTS_URL": "http://127.0.0.1:8090", "LLM_PROVIDER": "scripted"})
    assert settings.tts.transport == "websocket" and settings.tts.voice == "af_heart" and settings.tts.speed == 1.0
    assert settings.llm.reply == DEFAULT_SCRIPTED_REPLY and settings.llm.tokens_per_s == 20.0
    assert settings_from_env({"TTS_ENDPOINT_NAME": "e", "AWS_REGION": "eu-west-1"}).tts.region == "eu-west-1"


def test_api_key_is_not_in_the_repr() -> None:
    env = {
        **SAGEMAKER,
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": "http://h/v1",
        "LLM_MODEL_ID": "m",
        "LLM_API_KEY": "sk-very-secret",
    }
    settings = settings_from_env(env)
    assert settings.llm.api_key == "sk-very-secret" and "sk-very-secret" not in repr(settings)


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({}, "TTS_ENDPOINT_NAME"),
        ({"TTS_TRANSPORT": "carrier-pigeon"}, "TTS_TRANSPORT"),
        ({"TTS_TRANSPORT": "websocket"}, "TTS_URL"),
        ({"TTS_URL": "ftp://x"}, "TTS_URL"),
        ({**SAGEMAKER, "TTS_SPEED": "fast"}, "TTS_SPEED"),
        ({**SAGEMAKER, "TTS_SPEED": "9"}, "TTS_SPEED"),
        ({**SAGEMAKER, "TTS_SPEED": "nan"}, "TTS_SPEED"),
        ({**SAGEMAKER, "TTS_TIMEOUT_S": "-1"}, "TTS_TIMEOUT_S"),
        ({**SAGEMAKER, "TTS_VOICE": "   "}, None),
        ({**SAGEMAKER, "LLM_PROVIDER": "gpt"}, "LLM_PROVIDER"),
        ({**SAGEMAKER, "LLM_PROVIDER": "openai"}, "LLM_BASE_URL"),
        ({**SAGEMAKER, "LLM_PROVIDER": "scripted", "LLM_TOKENS_PER_S": "0"}, "LLM_TOKENS_PER_S"),
        ({**SAGEMAKER, "LLM_PROVIDER": "scripted", "LLM_REPLY": "  "}, "LLM_REPLY"),
        ({**SAGEMAKER, "AGENT_ALLOWED_ORIGINS": "app.example"}, "AGENT_ALLOWED_ORIGINS: not an origin"),
        ({**SAGEMAKER, "AGENT_ALLOWED_HOSTS": "box.lan:8080"}, "AGENT_ALLOWED_HOSTS: not a host name"),
    ],
)
def test_bad_environment_names_the_variable(env: dict, names: str | None) -> None:
    if names is None:  # a blank voice falls back to the default rather than failing
        assert settings_from_env(env).tts.voice == "af_heart"
        return
    with pytest.raises(SettingsError, match=names):
        settings_from_env(env)


def test_as_deployed_no_page_or_name_is_checked_unless_the_operator_lists_some() -> None:
    assert settings_from_env(SAGEMAKER).access == BrowserAccess()
    env = {**SAGEMAKER, "AGENT_ALLOWED_ORIGINS": "https://app.example, http://127.0.0.1:8000/"}
    assert settings_from_env(env).access.origins == {"https://app.example", "http://127.0.0.1:8000"}
    assert settings_from_env({**SAGEMAKER, "AGENT_ALLOWED_ORIGINS": "none"}).access.origins == frozenset()
    assert settings_from_env({**SAGEMAKER, "AGENT_ALLOWED_ORIGINS": "*"}).access == BrowserAccess()


@pytest.mark.parametrize(
    "access",
    [
        BrowserAccess(),
        BrowserAccess(hosts=LOOPBACK_NAMES, origins=frozenset()),
        BrowserAccess(
            hosts=LOOPBACK_NAMES | {"box.lan"}, origins=frozenset({"http://localhost:8000", "http://[::1]:1"})
        ),
    ],
)
def test_the_lists_travel_to_the_agents_own_process(access: BrowserAccess) -> None:
    settings = replace(settings_from_env(SAGEMAKER), access=access)
    assert settings_from_env(settings_to_env(settings)) == settings
