"""What `deploy-model` does, command by command, over the shared steps; the Typer layer only wires it.

The one-shot deploy: prerequisites -> synth -> deploy -> wait for InService -> smoke both paths ->
print what was deployed and how to use it. An endpoint that is InService but fails its session check
is a failed deploy (exit 1). ``--skip-smoke`` stops after InService: on a local AWS emulator the
endpoint exists but no container answers.
"""

from __future__ import annotations

from collections.abc import Callable

from kokoro_cli.checks.model_smoke import smoke_endpoint, smoke_url
from kokoro_cli.checks.smoke_report import print_progress, print_result
from kokoro_cli.common.aws_api import AwsApi, RuntimeAt
from kokoro_cli.common.console import Console
from kokoro_cli.deploy import cdk_command, deploy_steps
from kokoro_cli.deploy.run_options import RunOptions
from kokoro_cli.deploy.waiting import wait_for_endpoint

Connect = Callable[[], AwsApi]


def _docker_need(run: RunOptions) -> deploy_steps.DockerNeed:
    if run.settings.model_image is not None:
        return None
    return (f"building the {run.settings.engine} model image from container/", "--image-uri")


def _usage(region: str, endpoint: str) -> list[str]:
    body = '{"text": "Hello there.", "format": "wav"}'
    return [
        f"deploy-agent --region {region}   # the agent finds this endpoint in the stack outputs",
        f"deploy-model --region {region} smoke",
        f"aws sagemaker-runtime invoke-endpoint --region {region} --endpoint-name {endpoint} "
        f"--content-type application/json --cli-binary-format raw-in-base64-out --body '{body}' hello.wav",
    ]


def _smoke_after_deploy(aws: AwsApi, console: Console, endpoint: str, region: str, voice: str) -> dict:
    """Both paths against the new endpoint; a failed check fails the deploy (exit 1)."""
    console.step("verifying /invocations and a bidirectional session (binary frame)")
    report = smoke_endpoint(aws, endpoint, region, voice)
    print_progress(console, report)
    return report.to_json()


def deploy(run: RunOptions, console: Console, connect: Connect, out_dir: str, *, smoke: bool = True) -> None:
    stack = run.settings.model_stack_name
    if run.dry_run:
        calls = [cdk_command.synth(run.cdk_target(), stack, out_dir), deploy_steps.deploy_call(run, stack, out_dir)]
        then = "then: wait for the endpoint InService" + (", smoke both paths" if smoke else " (no smoke test)")
        deploy_steps.print_plan(console, calls, [then])
        return
    aws, identity = deploy_steps.preflight(run, console, connect, _docker_need(run), out_dir)
    run = deploy_steps.pinned_to(run, identity)
    template = deploy_steps.synth(run, console, stack, out_dir)
    state = deploy_steps.deploy(run, console, aws, stack, out_dir)
    endpoint = state.outputs.get("EndpointName", run.settings.endpoint_name)
    console.step(f"waiting for endpoint {endpoint} to be InService")
    wait_for_endpoint(aws, endpoint, on_progress=console.line)
    if smoke:
        report = _smoke_after_deploy(aws, console, endpoint, identity.region, run.settings.voice)
    else:
        console.note("smoke test skipped (--skip-smoke): `deploy-model smoke` runs it")
        report = None
    usage = _usage(identity.region, endpoint)
    result = {
        "stack": stack,
        "status": state.status,
        "region": identity.region,
        "account": identity.account,
        "endpoint_name": endpoint,
        "endpoint_arn": state.outputs.get("EndpointArn", ""),
        "template": str(template),
        "smoke": report,
        "next": usage,
    }
    rows = [(k, str(result[k])) for k in ("stack", "region", "endpoint_name", "endpoint_arn")]
    rows += [("next", line) for line in usage]
    console.result(result, rows=rows, title="deployed")


def outputs(run: RunOptions, console: Console, connect: Connect) -> None:
    aws = connect()
    state = deploy_steps.stack_state(aws, run.settings.model_stack_name)
    endpoint_name = state.outputs.get("EndpointName", run.settings.endpoint_name)
    endpoint = aws.endpoint(endpoint_name)
    result = {
        "stack": state.name,
        "status": state.status,
        "outputs": dict(state.outputs),
        "endpoint_status": endpoint.status if endpoint else "missing",
        "endpoint_failure_reason": endpoint.failure_reason if endpoint else None,
    }
    rows = [
        ("stack", f"{state.name} ({state.status})"),
        *state.outputs.items(),
        ("endpoint", f"{endpoint_name}: {result['endpoint_status']}"),
    ]
    console.result(result, rows=rows, title="deployed now")


def smoke(
    run: RunOptions, console: Console, connect: Connect, url: str | None, endpoint_url: str | None = None
) -> None:
    """Against ``url`` when given (a local server); else the endpoint, on AWS or at ``endpoint_url``.

    With ``endpoint_url`` (a SageMaker runtime stand-in such as ``kokoro_devtools.sagemaker_emulator``) the
    endpoint is the configured ``--endpoint-name``: no stack is looked up.
    """
    if url:
        console.step(f"smoke: {url}")
        print_result(console, smoke_url(url, run.settings.voice))
        return
    if endpoint_url:
        endpoint, region = run.settings.endpoint_name, run.settings.region
        console.step(f"smoke: endpoint {endpoint} at {endpoint_url}")
        runtime = RuntimeAt(endpoint_url, region)
        print_result(console, smoke_endpoint(runtime, endpoint, region, run.settings.voice, endpoint_url))
        return
    aws = connect()
    state = deploy_steps.stack_state(aws, run.settings.model_stack_name)
    endpoint = state.outputs.get("EndpointName", run.settings.endpoint_name)
    console.step(f"smoke: endpoint {endpoint}")
    print_result(console, smoke_endpoint(aws, endpoint, aws.region, run.settings.voice))
