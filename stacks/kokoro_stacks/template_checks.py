"""The template checks: cdk-nag's AwsSolutions pack on every synth, acknowledgments that name exactly one
finding each, and cfn-lint exceptions written on exactly the resource they concern.

cdk-nag 3 reports each wildcard of an IAM policy as its own finding, ``AwsSolutions-IAM5[Resource::<arn>]``,
with CloudFormation references written as ``<AWS::Partition>``. :func:`wildcard_resource` renders an ARN
the way cdk-nag does, so an acknowledgment is written from the same expression as the statement it
excuses and follows it when the Region or account changes.

cfn-lint reads ``Metadata.cfn-lint.config.ignore_checks`` per resource, so a plain ``cfn-lint`` run on
the synthesized templates passes with no warnings, and the exception is visible where it applies.
"""

from __future__ import annotations

import re
from typing import Any

from aws_cdk import Acknowledgment, App, CfnResource, Stack, Validations
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct


def check_app(app: App) -> None:
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))


def acknowledge(construct: IConstruct, reasons: dict[str, str]) -> None:
    """Accept each finding (rule id -> why it is right) on ``construct`` and its children only."""
    for rule, reason in reasons.items():
        Validations.of(construct).acknowledge(Acknowledgment(id=rule, reason=reason))


def wildcard_resource(stack: Stack, arn: str) -> str:
    return f"AwsSolutions-IAM5[Resource::{_flatten(stack.resolve(arn))}]"


def wildcard_action(action: str) -> str:
    return f"AwsSolutions-IAM5[Action::{action}]"


def _flatten(resolved: Any) -> str:
    if isinstance(resolved, str):
        return resolved
    if "Ref" in resolved:
        return f"<{resolved['Ref']}>"
    if "Fn::Sub" in resolved:
        return re.sub(r"\$\{([^}]+)\}", r"<\1>", resolved["Fn::Sub"])
    separator, parts = resolved["Fn::Join"]
    return separator.join(_flatten(part) for part in parts)


def cfn_resource_of(construct: IConstruct) -> CfnResource:
    """The CloudFormation resource behind an L2 construct (its ``node.default_child``)."""
    child = construct.node.default_child
    if not isinstance(child, CfnResource):
        raise TypeError(f"{construct.node.path} has no CloudFormation resource as its default child")
    return child


def ignore_lint_check(resource: CfnResource, check: str) -> None:
    """A cfn-lint exception for ``check`` on this one resource."""
    resource.add_metadata("cfn-lint", {"config": {"ignore_checks": [check]}})
