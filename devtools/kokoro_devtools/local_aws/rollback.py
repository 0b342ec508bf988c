"""A stack whose runtime fails to create rolls back, as CloudFormation does.

moto lets an error of a resource's creation escape ``CreateStack`` (an HTTP 500, after which ``cdk`` retries into
``AlreadyExistsException``); CloudFormation instead accepts the call, records ``CREATE_FAILED`` on the resource with
its reason, deletes what it had created and ends in ``ROLLBACK_COMPLETE``, which ``cdk deploy`` reports with that
reason. :func:`install` makes moto's stacks do the same for a :class:`RuntimeCreateFailed`.
"""

from __future__ import annotations

import contextlib

from moto.cloudformation.models import Event, Stack
from moto.cloudformation.parsing import OutputMap

from kokoro_devtools.agentcore_emulator.runtime.template import RUNTIME_TYPE


class RuntimeCreateFailed(RuntimeError):
    """A runtime could not be created: ``reason`` as CloudFormation's resource status reason would say it."""

    def __init__(self, logical_id: str, reason: str):
        super().__init__(reason)
        self.logical_id = logical_id
        self.reason = reason


def _failed_resource_event(stack: Stack, failure: RuntimeCreateFailed) -> Event:
    return Event(
        stack_id=stack.stack_id,
        stack_name=stack.name,
        logical_resource_id=failure.logical_id,
        physical_resource_id="",
        resource_type=RUNTIME_TYPE,
        resource_status="CREATE_FAILED",
        resource_status_reason=failure.reason,
        resource_properties=None,
    )


def install() -> None:
    """Once per process, before the server takes a request."""
    create = Stack.create_resources
    if getattr(create, "rolls_back", False):
        return

    def create_resources(self: Stack) -> None:
        try:
            create(self)
        except RuntimeCreateFailed as failure:
            self.events.append(_failed_resource_event(self, failure))
            self._add_stack_event(
                "ROLLBACK_IN_PROGRESS",
                resource_status_reason=f"The following resource(s) failed to create: [{failure.logical_id}]. ",
            )
            with contextlib.suppress(Exception):  # what moto cannot delete stays, as a failed rollback would leave it
                self.resource_map.delete()
            # moto creates a stack's resources lazily, where anything reads them (its outputs, DescribeStackResources):
            # a rolled-back stack has none left to create, and no outputs.
            self.resource_map._resource_json_map.clear()
            self.output_map = OutputMap(self.resource_map, {"Outputs": {}}, self.stack_id)
            self._add_stack_event("ROLLBACK_COMPLETE")
            self.status = "ROLLBACK_COMPLETE"

    create_resources.rolls_back = True  # type: ignore[attr-defined]
    Stack.create_resources = create_resources  # type: ignore[method-assign]
