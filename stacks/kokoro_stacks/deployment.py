"""Both stacks in one app, checked by cdk-nag's AwsSolutions pack on every synth."""

from __future__ import annotations

from aws_cdk import App, Environment

from kokoro_stacks.agent.stack import AgentStack
from kokoro_stacks.model.stack import ModelStack
from kokoro_stacks.project import ProjectPaths
from kokoro_stacks.settings.deploy_settings import DeploySettings
from kokoro_stacks.template_checks import check_app


def build_app(app: App, settings: DeploySettings, paths: ProjectPaths) -> tuple[ModelStack, AgentStack]:
    """The agent stack does not depend on the model stack: it finds the endpoint by name."""
    check_app(app)
    env = Environment(account=settings.account, region=settings.region)
    return (
        ModelStack(app, settings=settings, paths=paths, env=env),
        AgentStack(app, settings=settings, paths=paths, env=env),
    )
