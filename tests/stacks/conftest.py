"""Three syntheses of the real app, shared by the stack tests: the defaults and two alternatives; and a small
project to bundle."""

from __future__ import annotations

from pathlib import Path

import pytest
from small_project import small_project
from stack_synth import ACCOUNT, AGENT_IMAGE, MODEL_IMAGE, Synthesized, synthesize

from kokoro_stacks.project import ProjectPaths


@pytest.fixture
def project(tmp_path: Path) -> ProjectPaths:
    """A small project to bundle, offline (small_project.py)."""
    return small_project(tmp_path)


@pytest.fixture(scope="session")
def default_build(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """No context at all: GPU image built from container/, code artifact, the default model id."""
    return synthesize({}, tmp_path_factory.mktemp("default"))


@pytest.fixture(scope="session")
def cpu_build(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """CPU engine on an instance without local storage, agent as an arm64 container, a plain model id."""
    context = {
        "account": ACCOUNT,
        "engine": "onnx",
        "instance_type": "ml.c7i.xlarge",
        "instance_count": "2",
        "max_instances": "4",
        "sessions_per_instance": "8",
        "endpoint_name": "Kokoro-CPU",
        "voice": "bf_emma",
        "agent_artifact": "container",
        "model_id": "amazon.nova-lite-v1:0",
    }
    return synthesize(context, tmp_path_factory.mktemp("cpu"))


@pytest.fixture(scope="session")
def prebuilt_build(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """Both images given by URI, a geographic inference profile, other stack and runtime names, and the
    web pages allowed to call the runtime."""
    context = {
        "image_uri": MODEL_IMAGE,
        "agent_artifact": "image",
        "agent_image_uri": AGENT_IMAGE,
        "model_id": "us.amazon.nova-pro-v1:0",
        "model_stack_name": "TtsStaging",
        "agent_stack_name": "AgentStaging",
        "runtime_name": "voice_agent_staging",
        "agent_allowed_origins": "https://app.example, http://127.0.0.1:8000",
    }
    return synthesize(context, tmp_path_factory.mktemp("prebuilt"))
