"""cfn-lint exceptions written into the template, on exactly the resource they concern.

cfn-lint reads ``Metadata.cfn-lint.config.ignore_checks`` per resource, so a plain ``cfn-lint`` run on
the synthesized templates passes with no warnings, and the exception is visible where it applies.
"""

from __future__ import annotations

from aws_cdk import CfnResource
from constructs import IConstruct


def cfn_resource_of(construct: IConstruct) -> CfnResource:
    """The CloudFormation resource behind an L2 construct (its ``node.default_child``)."""
    child = construct.node.default_child
    if not isinstance(child, CfnResource):
        raise TypeError(f"{construct.node.path} has no CloudFormation resource as its default child")
    return child


def ignore_lint_check(resource: CfnResource, check: str) -> None:
    resource.add_metadata("cfn-lint", {"config": {"ignore_checks": [check]}})
