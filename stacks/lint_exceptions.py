"""cfn-lint exceptions written into the template, on exactly the resource they concern.

cfn-lint reads ``Metadata.cfn-lint.config.ignore_checks`` per resource, so a plain ``cfn-lint`` run on
the synthesized templates passes with no warnings, and the exception is visible where it applies.
"""

from __future__ import annotations

from aws_cdk import CfnResource


def ignore_lint_check(resource: CfnResource, check: str) -> None:
    resource.add_metadata("cfn-lint", {"config": {"ignore_checks": [check]}})
