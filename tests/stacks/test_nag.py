"""cdk-nag runs on every synth: an unexcused finding fails it, and each excuse covers only its construct."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk import App, Environment, Stack
from aws_cdk import aws_iam as iam
from stack_synth import REPO_ROOT

from kokoro_stacks.deployment import build_app
from kokoro_stacks.project import ProjectPaths
from kokoro_stacks.settings.deploy_settings import parse_settings
from kokoro_stacks.template_checks import wildcard_action, wildcard_resource


def test_findings_are_named_the_way_cdk_nag_names_them():
    stack = Stack(App(), "S", env=Environment(region="eu-west-1"))
    arn = f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:/x/*"
    assert (
        wildcard_resource(stack, arn)
        == "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:eu-west-1:<AWS::AccountId>:log-group:/x/*]"
    )
    assert wildcard_resource(stack, "*") == "AwsSolutions-IAM5[Resource::*]"
    assert wildcard_action("s3:List*") == "AwsSolutions-IAM5[Action::s3:List*]"


def synth_with_extra_statement(tmp_path: Path, add) -> list[str]:
    """Synthesize the default app after ``add(agent_stack)``; return the rules of the failed validation."""
    app = App(context={"aws:cdk:bundling-stacks": []}, outdir=str(tmp_path))
    _, agent = build_app(app, parse_settings({}), ProjectPaths(REPO_ROOT))
    add(agent)
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    return [v["ruleName"] for plugin in report["pluginReports"] for v in plugin["violations"]]


def test_a_new_wildcard_fails_synth(tmp_path: Path):
    def add(agent):
        agent.runtime.role.add_to_principal_policy(
            iam.PolicyStatement(actions=["s3:GetObject"], resources=["arn:aws:s3:::some-bucket/*"])
        )

    assert synth_with_extra_statement(tmp_path, add) == ["AwsSolutions-IAM5[Resource::arn:aws:s3:::some-bucket/*]"]


def test_an_acknowledgment_does_not_cover_another_construct(tmp_path: Path):
    """The runtime role's Resource::* is acknowledged; the same wildcard on another role is not."""

    def add(agent):
        role = iam.Role(agent, "Other", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
        role.add_to_principal_policy(iam.PolicyStatement(actions=["xray:PutTraceSegments"], resources=["*"]))

    assert synth_with_extra_statement(tmp_path, add) == ["AwsSolutions-IAM5[Resource::*]"]
