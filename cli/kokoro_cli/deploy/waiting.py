"""Waiting for a SageMaker endpoint to be InService, with progress, and saying why when it never is.

CloudFormation already waits for the endpoint while `cdk deploy` runs (5-15 minutes on g5), so after a
successful deploy this returns at the first poll; it matters when the stack is fine but the endpoint was
updated, is rolling back, or failed: then the reason comes from DescribeEndpoint's ``FailureReason``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kokoro_cli.common.aws_api import AwsApi, EndpointState
from kokoro_cli.common.errors import DeployFailed

_TRANSITIONAL = {"Creating", "Updating", "SystemUpdating", "RollingBack"}


def wait_for_endpoint(
    aws: AwsApi,
    name: str,
    *,
    timeout_s: float = 1800.0,
    poll_s: float = 15.0,
    on_progress: Callable[[str], None] = lambda _: None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> EndpointState:
    """Return the endpoint once InService; raise :class:`DeployFailed` with AWS's reason otherwise."""
    started = clock()
    last_status, next_report = None, 0.0
    while True:
        state = aws.endpoint(name)
        if state is None:
            raise DeployFailed(
                f"endpoint {name!r} does not exist",
                fix="deploy it first (deploy-model), or check --endpoint-name and --region",
            )
        if state.status == "InService":
            return state
        if state.status not in _TRANSITIONAL:
            raise DeployFailed(
                f"endpoint {name!r} is {state.status}",
                details=(state.failure_reason or "SageMaker gave no FailureReason",),
                fix="see the endpoint's CloudWatch logs: /aws/sagemaker/Endpoints/" + name,
            )
        waited = clock() - started
        if state.status != last_status or waited >= next_report:
            on_progress(f"endpoint {name}: {state.status} ({int(waited)} s)")
            last_status, next_report = state.status, waited + 60.0
        if waited + poll_s > timeout_s:
            raise DeployFailed(
                f"endpoint {name!r} still {state.status} after {int(waited)} s",
                fix="check progress with `deploy-model outputs`; model load problems show in its logs",
            )
        sleep(poll_s)
