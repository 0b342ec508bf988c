"""cdk-nag's AwsSolutions pack on every synth, and acknowledgments that name exactly one finding each.

cdk-nag 3 reports each wildcard of an IAM policy as its own finding, ``AwsSolutions-IAM5[Resource::<arn>]``,
with CloudFormation references written as ``<AWS::Partition>``. :func:`wildcard_resource` renders an ARN
the way cdk-nag does, so an acknowledgment is written from the same expression as the statement it
excuses and follows it when the Region or account changes.
"""

from __future__ import annotations

import re
from typing import Any

from aws_cdk import Acknowledgment, App, Stack, Validations
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
