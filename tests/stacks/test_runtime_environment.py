"""The environment the stacks synthesize, read back by the parts that run in it (decision 150): the SageMaker
model's container Environment (on top of the image's ENV) through ``kokoro-serve``'s own option parsing, the
AgentCore runtime's variables through the agent's ``settings_from_env``. Each must come back as the settings
the deployment asked for, every other field at its default."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import typer.main
from stack_synth import REGION, REPO_ROOT, Synthesized, render

from kokoro_server.cli import cli, settings_of
from kokoro_server.environment import ServerEnvironment
from kokoro_server.settings import ServerSettings
from kokoro_stacks.model.endpoint import GPU_BATCHING
from speech_protocol.environment import variables
from speech_protocol.http.browser_access import BrowserAccess
from voice_agent.settings import LlmSettings, TtsSettings, settings_from_env

BUILDS = ("default_build", "cpu_build", "prebuilt_build")
SERVER_VARIABLES = {var.name for var in variables(ServerEnvironment).values()}


def image_environment(engine: str) -> dict[str, str]:
    """The ``KOKORO_*`` variables the repository's Dockerfile sets for ``engine``: its base stage's ENV and
    its engine stage's."""
    text = (REPO_ROOT / "container" / "Dockerfile").read_text().replace("\\\n", " ")
    stages = dict(re.findall(r"^FROM [^\n]* AS (\S+)\n(.*?)(?=^FROM |\Z)", text, flags=re.M | re.S))
    found: dict[str, str] = {}
    for stage in ("base", f"engine-{engine}"):
        for line in re.findall(r"^ENV (.*)$", stages[stage], flags=re.M):
            found |= {key: value for key, value in re.findall(r"(\S+)=(\S+)", line) if key.startswith("KOKORO_")}
    return found


def served(environment: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> ServerSettings:
    """What ``kokoro-serve``, given no argument, makes of these variables alone."""
    for key in [key for key in os.environ if key.startswith("KOKORO_")]:
        monkeypatch.delenv(key)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    return settings_of(typer.main.get_command(cli).make_context("kokoro-serve", []).params)


@pytest.mark.parametrize("name", BUILDS)
def test_the_model_server_reads_what_the_model_stack_and_its_image_set(
    name: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    build: Synthesized = request.getfixturevalue(name)
    (model,) = build.model.find_resources("AWS::SageMaker::Model").values()
    container = model["Properties"]["PrimaryContainer"]["Environment"]
    image = image_environment(build.settings.engine)
    assert set(container) | set(image) <= SERVER_VARIABLES, "a variable the server does not read"

    engine = build.settings.engine
    assert served(container, monkeypatch) == ServerSettings(
        voice=build.settings.voice, **(GPU_BATCHING if engine == "torch" else {})
    )
    assert served({**image, **container}, monkeypatch) == ServerSettings(
        engine=engine,
        device="cuda" if engine == "torch" else "cpu",
        assets_dir=Path("/opt/kokoro"),
        voice=build.settings.voice,
        **(GPU_BATCHING if engine == "torch" else {}),
    )


@pytest.mark.parametrize("name", BUILDS)
def test_the_agent_reads_what_the_agent_stack_sets(name: str, request: pytest.FixtureRequest) -> None:
    build: Synthesized = request.getfixturevalue(name)
    (runtime,) = build.agent.find_resources("AWS::BedrockAgentCore::Runtime").values()
    environment = {key: render(value) for key, value in runtime["Properties"]["EnvironmentVariables"].items()}
    deployed = build.settings

    settings = settings_from_env(environment)
    assert settings.tts == TtsSettings(
        transport="sagemaker", endpoint_name=deployed.endpoint_name, region=REGION, voice=deployed.voice
    )
    assert settings.llm == LlmSettings(provider="bedrock", model_id=deployed.model.model_id, region=REGION)
    assert settings.access == BrowserAccess(origins=frozenset(deployed.agent_allowed_origins) or None)
