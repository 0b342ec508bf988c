"""Where moto differs from AWS in what the deploy relies on, made to behave as AWS does.

- A stack created through a change set (what ``cdk deploy`` does by default) gets its outputs: moto builds a
  stack's outputs from the template it had when made, which for a change set's new stack is empty, so
  ``RuntimeArn`` and ``EndpointName`` were missing unless one deployed with ``--method direct``.
- A stack whose runtime fails to create rolls back: moto lets the error escape ``CreateStack`` or
  ``ExecuteChangeSet`` as an HTTP 500 (after which ``cdk`` retries into ``AlreadyExistsException``);
  CloudFormation accepts the call, records ``CREATE_FAILED`` on the resource with its reason, deletes what it had
  created and ends in ``ROLLBACK_COMPLETE``, which ``cdk deploy`` reports with that reason. Only a stack's
  creation is handled so: an update that fails still fails as moto makes it.
- An endpoint config takes every real-time instance type SageMaker's API takes (the ``ProductionVariantInstanceType``
  enum the project reads from botocore's model, ``kokoro_stacks.settings.instance_types``): moto's own list
  predates ml.g5, the default endpoint's, and refused it.

:func:`install` patches moto's classes, once per process, before the server takes a request.
"""

from __future__ import annotations

import contextlib
from typing import Any

from moto.cloudformation.models import ChangeSet, CloudFormationBackend, Event, Stack
from moto.cloudformation.parsing import OutputMap
from moto.sagemaker.exceptions import ValidationError
from moto.sagemaker.models import FakeEndpointConfig

from kokoro_devtools.agentcore_emulator.runtime.template import RUNTIME_TYPE
from kokoro_stacks.settings.instance_types import known_instance_types


class RuntimeCreateFailed(RuntimeError):
    """A runtime could not be created: ``reason`` as CloudFormation's resource status reason would say it."""

    def __init__(self, logical_id: str, reason: str):
        super().__init__(reason)
        self.logical_id = logical_id
        self.reason = reason


class _RolledBack(Exception):
    """A change set's stack rolled back: its execution ends there, the call itself having succeeded."""


def roll_back(stack: Stack, failure: RuntimeCreateFailed) -> None:
    stack.events.append(
        Event(
            stack_id=stack.stack_id,
            stack_name=stack.name,
            logical_resource_id=failure.logical_id,
            physical_resource_id="",
            resource_type=RUNTIME_TYPE,
            resource_status="CREATE_FAILED",
            resource_status_reason=failure.reason,
            resource_properties=None,
        )
    )
    stack._add_stack_event(
        "ROLLBACK_IN_PROGRESS",
        resource_status_reason=f"The following resource(s) failed to create: [{failure.logical_id}]. ",
    )
    with contextlib.suppress(Exception):  # what moto cannot delete stays, as a failed rollback would leave it
        stack.resource_map.delete()
    # moto creates a stack's resources lazily, wherever something reads them (its outputs, DescribeStackResources):
    # a rolled-back stack has none left to create, and no outputs.
    stack.resource_map._resource_json_map.clear()
    stack.output_map = OutputMap(stack.resource_map, {"Outputs": {}}, stack.stack_id)
    stack._add_stack_event("ROLLBACK_COMPLETE")
    stack.status = "ROLLBACK_COMPLETE"


def install() -> None:
    if getattr(Stack.create_resources, "as_on_aws", False):
        return
    create_resources, apply, execute = Stack.create_resources, ChangeSet.apply, CloudFormationBackend.execute_change_set

    def create_resources_or_roll_back(self: Stack) -> None:
        try:
            create_resources(self)
        except RuntimeCreateFailed as failure:
            roll_back(self, failure)

    def apply_with_outputs(self: ChangeSet) -> None:
        try:
            apply(self)
        except RuntimeCreateFailed as failure:
            if self.change_set_type != "CREATE":
                raise
            roll_back(self.stack, failure)
            raise _RolledBack from None
        self.stack.template = self.template
        self.stack._parse_template()
        self.stack.output_map = self.stack._create_output_map()

    def execute_change_set(self: CloudFormationBackend, *args: Any, **kwargs: Any) -> None:
        with contextlib.suppress(_RolledBack):
            execute(self, *args, **kwargs)

    def validate_instance_type(self: FakeEndpointConfig, instance_type: str) -> None:
        if instance_type not in known_instance_types():
            raise ValidationError(message=f"Value '{instance_type}' at 'instanceType' failed to satisfy constraint")

    create_resources_or_roll_back.as_on_aws = True  # type: ignore[attr-defined]
    Stack.create_resources = create_resources_or_roll_back  # type: ignore[method-assign]
    ChangeSet.apply = apply_with_outputs  # type: ignore[method-assign]
    CloudFormationBackend.execute_change_set = execute_change_set  # type: ignore[method-assign]
    FakeEndpointConfig.validate_instance_type = validate_instance_type  # type: ignore[method-assign]
