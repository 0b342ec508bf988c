"""Deployment settings: every CDK context key (``-c key=value``), its default, and one frozen object.

``app.py`` reads the context once and calls :func:`parse_settings`; nothing deeper reads context or the
environment. A bad value fails at synth with a :class:`SettingsError` naming its key. The CLIs reuse
:data:`CONTEXT_KEYS` (names, defaults, help) for their options' defaults and help.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from kokoro_stacks.settings.bedrock_model import DEFAULT_MODEL_ID, BedrockModel
from kokoro_stacks.settings.context_values import Reader, SettingsError
from kokoro_stacks.settings.ecr_image import EcrImage
from kokoro_stacks.settings.measured_capacity import measured_sessions
from speech_protocol.voices import DEFAULT_VOICE

Engine = Literal["torch", "onnx"]
AgentArtifact = Literal["code", "container", "image"]
ENGINES: tuple[Engine, ...] = ("torch", "onnx")
AGENT_ARTIFACTS: tuple[AgentArtifact, ...] = ("code", "container", "image")
DEFAULT_REGION = "us-east-1"  # what the CDK CLI itself falls back to (007-cdk-cli-environment.md)


@dataclass(frozen=True)
class ContextKey:
    name: str
    default: str | None
    help: str


DEFAULT_MAX_INSTANCES = 2

CONTEXT_KEYS: tuple[ContextKey, ...] = (
    ContextKey("region", None, "AWS Region; default: the CLI's (AWS_REGION, profile), else us-east-1."),
    ContextKey("account", None, "12-digit account id; default: the CLI's credentials, else env-agnostic."),
    ContextKey("model_stack_name", "KokoroTtsModel", "Name of the model (SageMaker endpoint) stack."),
    ContextKey("agent_stack_name", "KokoroVoiceAgent", "Name of the agent (AgentCore runtime) stack."),
    ContextKey("endpoint_name", "kokoro-tts", "SageMaker endpoint name; the agent finds it by this name."),
    ContextKey("instance_type", "ml.g5.xlarge", "Endpoint instance type (g5: NVIDIA A10G, x86-64)."),
    ContextKey("instance_count", None, "Instances at creation (between min and max); default: min_instances."),
    ContextKey("min_instances", "1", "Autoscaling lower bound (a real-time variant keeps at least 1)."),
    ContextKey("max_instances", None, "Autoscaling upper bound; default: 2, or min_instances if that is more."),
    ContextKey(
        "sessions_per_instance",
        None,
        "Autoscaling target: concurrent speech sessions per instance; "
        "default: the capacity measured for the engine (stacks/kokoro_stacks/settings/data/measured_capacity.json), else 4.",
    ),
    ContextKey("engine", "torch", "Model image engine: torch (GPU) or onnx (CPU, int8)."),
    ContextKey("image_uri", None, "Prebuilt model image in ECR; skips the Docker build of container/."),
    ContextKey("voice", DEFAULT_VOICE, "Default Kokoro voice of the endpoint and the agent."),
    ContextKey("model_id", DEFAULT_MODEL_ID, "Bedrock model or inference-profile id for the agent."),
    ContextKey("agent_artifact", "code", "code (zip, no Docker), container (arm64 image build) or image."),
    ContextKey("agent_image_uri", None, "Prebuilt arm64 agent image in ECR (agent_artifact=image)."),
    ContextKey("runtime_name", "kokoro_voice_agent", "AgentCore runtime name: letters, digits, '_'."),
    ContextKey(
        "agent_allowed_origins",
        None,
        "Web page origins (http://host:port, split by spaces or commas) allowed to open the runtime's /ws or "
        "POST /invocations from a browser; default: any, as AgentCore authenticates every call.",
    ),
)
CONTEXT_DEFAULTS: Mapping[str, str | None] = {key.name: key.default for key in CONTEXT_KEYS}


@dataclass(frozen=True)
class DeploySettings:
    region: str
    account: str | None
    model_stack_name: str
    agent_stack_name: str
    endpoint_name: str
    instance_type: str
    instance_count: int
    min_instances: int
    max_instances: int
    sessions_per_instance: int
    engine: Engine
    model_image: EcrImage | None
    voice: str
    model: BedrockModel
    agent_artifact: AgentArtifact
    agent_image: EcrImage | None
    runtime_name: str
    agent_allowed_origins: tuple[str, ...] = ()  # none given: no Origin check (100-browser-reachable-servers.md)


def check_known_keys(keys: Iterable[str], own: Collection[str] = ()) -> None:
    """Refuse a context key this app does not read (a typo would be silently ignored), naming the closest.

    CDK's own keys (``aws:cdk:...``, ``@aws-cdk/...`` feature flags, lookup caches such as
    ``availability-zones:account=...``: all hold ``:`` or start with ``@``) and ``own`` (cdk.json's
    context entries) are not ours to judge.
    """
    valid = [key.name for key in CONTEXT_KEYS]
    for key in keys:
        if key in valid or key in own or ":" in key or key.startswith("@"):
            continue
        close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
        guess = f"; did you mean '{close[0]}'?" if close else f"; valid keys: {', '.join(valid)}"
        raise SettingsError(key, f"is not a setting of this app{guess}", hint_key=close[0] if close else None)


def parse_settings(
    context: Mapping[str, object], *, fallback_region: str | None = None, fallback_account: str | None = None
) -> DeploySettings:
    """Validate every key; ``fallback_*`` are the CLI's ``CDK_DEFAULT_*`` (read by ``app.py``)."""
    read = Reader(context, CONTEXT_DEFAULTS)
    min_instances = read.integer("min_instances", low=1)
    # Not given, the upper bound (2) makes room for a larger floor instead of refusing one the user never set.
    max_instances = (
        max(DEFAULT_MAX_INSTANCES, min_instances)
        if read.raw("max_instances") is None
        else read.integer("max_instances", low=min_instances)
    )
    agent_artifact = read.choice("agent_artifact", AGENT_ARTIFACTS)
    agent_image = read.ecr_image("agent_image_uri")
    engine = read.choice("engine", ENGINES)
    sessions = (
        measured_sessions(engine)
        if read.raw("sessions_per_instance") is None
        else read.integer("sessions_per_instance", low=1, high=64)
    )
    if (agent_artifact == "image") != (agent_image is not None):
        raise SettingsError("agent_image_uri", "is required by agent_artifact=image and used by nothing else")
    return DeploySettings(
        region=read.region("region", fallback_region or DEFAULT_REGION),
        account=read.account("account", fallback_account),
        model_stack_name=read.stack_name("model_stack_name"),
        agent_stack_name=read.stack_name("agent_stack_name"),
        endpoint_name=read.endpoint_name("endpoint_name"),
        instance_type=read.instance_type("instance_type"),
        # Not given, it follows min_instances: a user who raises the floor gets that many at creation, not an
        # error about a count of 1 they never set.
        instance_count=(
            min_instances
            if read.raw("instance_count") is None
            else read.integer("instance_count", low=min_instances, high=max_instances)
        ),
        min_instances=min_instances,
        max_instances=max_instances,
        sessions_per_instance=sessions,
        engine=engine,
        model_image=read.ecr_image("image_uri"),
        voice=read.voice("voice"),
        model=read.bedrock_model("model_id"),
        agent_artifact=agent_artifact,
        agent_image=agent_image,
        runtime_name=read.runtime_name("runtime_name"),
        agent_allowed_origins=read.origins("agent_allowed_origins"),
    )


__all__ = [
    "AGENT_ARTIFACTS",
    "CONTEXT_DEFAULTS",
    "CONTEXT_KEYS",
    "ENGINES",
    "ContextKey",
    "DeploySettings",
    "SettingsError",
    "check_known_keys",
    "parse_settings",
]
