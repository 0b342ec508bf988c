"""Pulling one ECR repository: the only image access a role in this app ever gets."""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_iam as iam

from stacks.nag import acknowledge, wildcard_resource

PULL_ACTIONS = ("ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage")


def grant_ecr_pull(role: iam.IRole, repository_arn: str) -> None:
    """Layer pulls on exactly ``repository_arn``; the login token action has no resource-level scope."""
    role.add_to_principal_policy(
        iam.PolicyStatement(sid="PullImage", actions=list(PULL_ACTIONS), resources=[repository_arn])
    )
    role.add_to_principal_policy(
        iam.PolicyStatement(sid="EcrLogin", actions=["ecr:GetAuthorizationToken"], resources=["*"])
    )
    acknowledge(role, {
        wildcard_resource(Stack.of(role), "*"): "ecr:GetAuthorizationToken has no resource-level permissions "
        "(IAM service authorization reference); the pull itself is limited to one repository.",
    })
