"""Both stacks in one app, checked by cdk-nag's AwsSolutions pack on every synth."""

from __future__ import annotations

from aws_cdk import App, Environment

from kokoro_stacks.agent_stack import AgentStack
from kokoro_stacks.model_stack import ModelStack
from kokoro_stacks.nag import check_app
from kokoro_stacks.project_paths import ProjectPaths
from kokoro_stacks.settings import DeploySettings


def build_app(app: App, settings: DeploySettings, paths: ProjectPaths) -> tuple[ModelStack, AgentStack]:
    """The agent stack does not depend on the model stack: it finds the endpoint by name."""
    check_app(app)
    env = Environment(account=settings.account, region=settings.region)
    return (
        ModelStack(app, settings=settings, paths=paths, env=env),
        AgentStack(app, settings=settings, paths=paths, env=env),
    )
