"""Pulling one ECR repository: the only image access a role in this app ever gets."""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_iam as iam
from constructs import IDependable

from kokoro_stacks.template_checks import acknowledge, wildcard_resource

PULL_ACTIONS = ("ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage")


def grant_ecr_pull(role: iam.IRole, repository_arn: str) -> IDependable | None:
    """Layer pulls on exactly ``repository_arn``; the login token action has no resource-level scope.

    Returns the policy, for resources that must not be created before the role can pull.
    """
    pull = role.add_to_principal_policy(
        iam.PolicyStatement(sid="PullImage", actions=list(PULL_ACTIONS), resources=[repository_arn])
    )
    role.add_to_principal_policy(
        iam.PolicyStatement(sid="EcrLogin", actions=["ecr:GetAuthorizationToken"], resources=["*"])
    )
    acknowledge(
        role,
        {
            wildcard_resource(Stack.of(role), "*"): "ecr:GetAuthorizationToken has no resource-level permissions "
            "(IAM service authorization reference); the pull itself is limited to one repository.",
        },
    )
    return pull.policy_dependable
