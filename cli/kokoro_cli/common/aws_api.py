"""The narrow slice of AWS the CLIs call, as one interface and its boto3 implementation.

Everything the CLIs ask of AWS besides `cdk` itself goes through :class:`AwsApi`, so tests can stand a
small fake in for AWS (which cannot exist here) while :class:`Boto3Aws` is exercised against moto's
server. Every botocore failure becomes a typed error with AWS's own reason in the message.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, ProfileNotFound

from kokoro_cli.common.errors import AwsCallFailed, PrerequisiteMissing

if TYPE_CHECKING:
    from botocore.config import Config

CREDENTIALS_FIX = (
    "configure credentials: `aws configure`, `aws sso login --profile NAME` then --profile NAME, "
    "or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (in CI: the CI's OIDC role)"
)
REGION_FIX = "pass --region REGION (before the subcommand), or set AWS_REGION"
# Control-plane calls answer in well under a second; a synthesis request may take tens of seconds.
_CONTROL: dict[str, Any] = {
    "connect_timeout": 5,
    "read_timeout": 30,
    "retries": {"max_attempts": 2, "mode": "standard"},
}
_INVOKE: dict[str, Any] = {
    "connect_timeout": 5,
    "read_timeout": 120,
    "retries": {"max_attempts": 1, "mode": "standard"},
}
# boto3 and botocore's client machinery load when a session or client is made, not when a CLI starts: a
# usage error or --help needs no AWS, and they are a third of a CLI's start-up (decision 140).


def _config(settings: dict[str, Any]) -> Config:
    from botocore.config import Config

    return Config(**settings)


def _boto_failures() -> tuple[type[Exception], ...]:
    """What a botocore call may raise. An answer that is not AWS's (a proxy's or an emulator's HTML error
    page) raises ResponseParserError, which is no BotoCoreError: without it, such a reply would end the CLI
    in a traceback. (Loaded by the client that raised; evaluated only when an exception is being matched.)"""
    from botocore.parsers import ResponseParserError

    return (ClientError, BotoCoreError, ResponseParserError)


@dataclass(frozen=True)
class Identity:
    account: str
    arn: str
    region: str


@dataclass(frozen=True)
class StackState:
    name: str
    status: str
    reason: str | None = None
    outputs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EndpointState:
    name: str
    status: str
    failure_reason: str | None = None


class EndpointRuntime(Protocol):
    """InvokeEndpoint alone: what an endpoint's smoke test needs (:class:`AwsApi` and :class:`RuntimeAt`)."""

    def invoke_endpoint(self, name: str, body: bytes, accept: str) -> bytes: ...


class AwsApi(Protocol):
    """What the CLIs need from AWS; ``None`` means "does not exist", a failure raises a CliError."""

    region: str

    def identity(self) -> Identity: ...
    def stack(self, name: str) -> StackState | None: ...
    def stack_failures(self, name: str) -> list[str]: ...
    def endpoint(self, name: str) -> EndpointState | None: ...
    def invoke_endpoint(self, name: str, body: bytes, accept: str) -> bytes: ...
    def invoke_agent_runtime(self, arn: str, session_id: str, payload: bytes) -> Iterator[str]: ...


def _reason(err: Exception) -> str:
    if isinstance(err, ClientError):
        info = err.response.get("Error", {})
        return f"{info.get('Code', 'Error')}: {info.get('Message', '')}".strip()
    return str(err)


@contextlib.contextmanager
def _translated(call: str) -> Iterator[None]:
    """botocore's failures as the CLIs' typed errors: missing credentials are a prerequisite."""
    try:
        yield
    except NoCredentialsError as err:
        raise PrerequisiteMissing("no AWS credentials found", fix=CREDENTIALS_FIX) from err
    except _boto_failures() as err:
        raise AwsCallFailed(f"{call}: {_reason(err)}") from err


def env_region(env: Mapping[str, str]) -> str | None:
    """The region the environment names, in the CDK CLI's order: boto3 alone ignores ``AWS_REGION``."""
    return env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or None


class Boto3Aws:
    """:class:`AwsApi` over one boto3 session (profile and region resolved once, at construction).

    The region is ``region``, else the environment's (:func:`env_region`), else the profile's. Without
    one, the credentials are checked too, so that a user missing both learns both at once.
    """

    def __init__(self, region: str | None = None, profile: str | None = None, env: Mapping[str, str] = os.environ):
        import boto3

        try:
            self._session = boto3.Session(profile_name=profile, region_name=region or env_region(env))
        except ProfileNotFound as err:
            name = profile or env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE")
            raise PrerequisiteMissing(f"AWS profile {name!r} not found", fix=CREDENTIALS_FIX) from err
        if not self._session.region_name:
            if self._session.get_credentials() is None:
                raise PrerequisiteMissing(
                    "no AWS region configured and no AWS credentials found", fix=f"{REGION_FIX}; and {CREDENTIALS_FIX}"
                )
            raise PrerequisiteMissing("no AWS region configured", fix=REGION_FIX)
        self.region: str = self._session.region_name

    def credentials(self) -> object | None:
        """The session's credentials as boto3 resolves them, offline (``None``: there are none)."""
        return self._session.get_credentials()

    def _client(self, service: str, config: dict[str, Any] = _CONTROL) -> Any:
        return self._session.client(service, config=_config(config))

    def identity(self) -> Identity:
        try:
            who = self._client("sts").get_caller_identity()
        except NoCredentialsError as err:
            raise PrerequisiteMissing("no AWS credentials found", fix=CREDENTIALS_FIX) from err
        except _boto_failures() as err:
            raise PrerequisiteMissing(f"AWS credentials were refused: {_reason(err)}", fix=CREDENTIALS_FIX) from err
        return Identity(account=who["Account"], arn=who["Arn"], region=self.region)

    def stack(self, name: str) -> StackState | None:
        try:
            with _translated(f"DescribeStacks {name}"):
                found = self._client("cloudformation").describe_stacks(StackName=name)["Stacks"]
        except AwsCallFailed as err:
            if "does not exist" in err.message:
                return None
            raise
        top = found[0]
        outputs = {o["OutputKey"]: o.get("OutputValue", "") for o in top.get("Outputs", [])}
        return StackState(name, top["StackStatus"], top.get("StackStatusReason"), outputs)

    def stack_failures(self, name: str) -> list[str]:
        """The resources that failed in the latest operation, oldest first, with CloudFormation's reason."""
        try:
            events = self._client("cloudformation").describe_stack_events(StackName=name)["StackEvents"]
        except _boto_failures() as err:
            return [f"(could not read the stack's events: {_reason(err)})"]
        return failure_reasons(events)

    def endpoint(self, name: str) -> EndpointState | None:
        try:
            with _translated(f"DescribeEndpoint {name}"):
                found = self._client("sagemaker").describe_endpoint(EndpointName=name)
        except AwsCallFailed as err:
            if "Could not find" in err.message:
                return None
            raise
        return EndpointState(name, found["EndpointStatus"], found.get("FailureReason"))

    def invoke_endpoint(self, name: str, body: bytes, accept: str) -> bytes:
        runtime = self._client("sagemaker-runtime", _INVOKE)
        with _translated(f"InvokeEndpoint {name}"):
            reply = runtime.invoke_endpoint(EndpointName=name, Body=body, ContentType="application/json", Accept=accept)
            return reply["Body"].read()

    def invoke_agent_runtime(self, arn: str, session_id: str, payload: bytes) -> Iterator[str]:
        agentcore = self._client("bedrock-agentcore", _INVOKE)
        with _translated("InvokeAgentRuntime"):
            reply = agentcore.invoke_agent_runtime(
                agentRuntimeArn=arn,
                runtimeSessionId=session_id,
                payload=payload,
                contentType="application/json",
                accept="text/event-stream",
            )
            for raw in reply["response"].iter_lines():
                yield raw.decode("utf-8", errors="replace")


def failure_reasons(events: list[Mapping]) -> list[str]:
    """From DescribeStackEvents (newest first): the failures since the latest operation began."""
    failures = []
    for event in events:
        status = event.get("ResourceStatus", "")
        reason = event.get("ResourceStatusReason") or ""
        if (
            event.get("ResourceType") == "AWS::CloudFormation::Stack"
            and status.endswith("_IN_PROGRESS")
            and "User Initiated" in reason
        ):
            break
        if status.endswith("_FAILED") and "cancelled" not in reason.lower():
            failures.append(f"{event.get('LogicalResourceId')} ({event.get('ResourceType')}): {reason}")
    return failures[::-1]


class RuntimeAt:
    """``InvokeEndpoint`` against a SageMaker runtime at ``endpoint_url`` (e.g. the local emulator).

    Only what ``deploy-model smoke --endpoint-url`` needs: no CloudFormation, no control plane. boto3
    trusts a private CA through ``AWS_CA_BUNDLE``.
    """

    def __init__(self, endpoint_url: str, region: str):
        import boto3

        self.region = region
        self._runtime = boto3.client(
            "sagemaker-runtime", region_name=region, endpoint_url=endpoint_url, config=_config(_INVOKE)
        )

    def invoke_endpoint(self, name: str, body: bytes, accept: str) -> bytes:
        with _translated(f"InvokeEndpoint {name}"):
            reply = self._runtime.invoke_endpoint(
                EndpointName=name, Body=body, ContentType="application/json", Accept=accept
            )
            return reply["Body"].read()
