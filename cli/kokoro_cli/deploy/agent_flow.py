"""What `deploy-agent` does, command by command, over the shared steps; the Typer layer only wires it.

The one-shot deploy: prerequisites (including the model endpoint it will speak through, found in the
model stack's outputs unless ``--endpoint-name`` is given) -> synth -> deploy -> invoke the runtime with
a short prompt -> passed only when audio comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from kokoro_cli.checks.agent_smoke import SMOKE_PROMPT, smoke_agent_url, smoke_runtime
from kokoro_cli.checks.smoke_report import print_progress, print_result
from kokoro_cli.common.aws_api import AwsApi, Boto3Aws
from kokoro_cli.common.console import Console
from kokoro_cli.common.errors import PrerequisiteMissing
from kokoro_cli.deploy import cdk_command, deploy_steps
from kokoro_cli.deploy.run_options import RunOptions

Connect = Callable[[], AwsApi]


def _docker_need(run: RunOptions) -> deploy_steps.DockerNeed:
    if run.settings.agent_artifact != "container":
        return None
    return ("building the arm64 agent image (agent_artifact=container)", "--agent-artifact code")


def find_endpoint(run: RunOptions, aws: AwsApi) -> str:
    """The TTS endpoint the agent will call: ``--endpoint-name``, else the model stack's output."""
    name = run.context.get("endpoint_name")
    if name is None:
        model = aws.stack(run.settings.model_stack_name)
        name = model.outputs.get("EndpointName") if model else None
        if not name:
            raise PrerequisiteMissing(
                f"no model endpoint: stack {run.settings.model_stack_name} is not deployed in {aws.region}",
                fix="run deploy-model first, or pass --endpoint-name NAME",
            )
    endpoint = aws.endpoint(name)
    if endpoint is None or endpoint.status != "InService":
        state = endpoint.status if endpoint else "missing"
        raise PrerequisiteMissing(f"TTS endpoint {name} is {state}", fix="deploy-model, then deploy the agent")
    return name


def deploy(run: RunOptions, console: Console, connect: Connect, out_dir: str) -> None:
    stack = run.settings.agent_stack_name
    if run.dry_run:
        notes = ["then: invoke the runtime with a short prompt and check that audio comes back"]
        if "endpoint_name" not in run.context:
            notes.insert(0, f"endpoint_name is read at run time from {run.settings.model_stack_name}'s outputs")
        calls = [cdk_command.synth(run.cdk_target(), stack, out_dir), deploy_steps.deploy_call(run, stack, out_dir)]
        return deploy_steps.print_plan(console, calls, notes)
    aws, identity = deploy_steps.preflight(run, console, connect, _docker_need(run), out_dir)
    endpoint = find_endpoint(run, aws)
    run = deploy_steps.pinned_to(replace(run, context={**run.context, "endpoint_name": endpoint}), identity)
    template = deploy_steps.synth(run, console, stack, out_dir)
    state = deploy_steps.deploy(run, console, aws, stack, out_dir)
    runtime_arn = state.outputs.get("RuntimeArn", "")
    console.step(f"verifying: a short prompt to {runtime_arn}, expecting speech back")
    report = smoke_runtime(aws, runtime_arn)
    print_progress(console, report)
    result = {
        "stack": stack,
        "status": state.status,
        "region": identity.region,
        "account": identity.account,
        "runtime_arn": runtime_arn,
        "runtime_id": state.outputs.get("RuntimeId", ""),
        "endpoint_name": endpoint,
        "template": str(template),
        "smoke": report.to_json(),
        "next": [
            f"deploy-agent --region {identity.region} smoke",
            f"deploy-agent invoke {runtime_arn} --prompt '{SMOKE_PROMPT}' --out answer",
        ],
    }
    rows = [(k, str(result[k])) for k in ("stack", "region", "runtime_arn", "runtime_id", "endpoint_name")]
    console.result(result, rows=rows + [("next", line) for line in result["next"]], title="deployed")


def outputs(run: RunOptions, console: Console, connect: Connect) -> None:
    state = deploy_steps.stack_state(connect(), run.settings.agent_stack_name)
    result = {"stack": state.name, "status": state.status, "outputs": dict(state.outputs)}
    console.result(result, rows=[("stack", f"{state.name} ({state.status})"), *state.outputs.items()])


def smoke(run: RunOptions, console: Console, connect: Connect, url: str | None, prompt: str) -> None:
    """Against ``url`` (an agent served here), else the runtime in the agent stack's outputs."""
    if url:
        console.step(f"smoke: {url}")
        return print_result(console, smoke_agent_url(url, prompt))
    aws = connect()
    runtime_arn = deploy_steps.stack_state(aws, run.settings.agent_stack_name).outputs.get("RuntimeArn", "")
    console.step(f"smoke: {runtime_arn}")
    print_result(console, smoke_runtime(aws, runtime_arn, prompt))


def smoke_arn(run: RunOptions, console: Console, runtime_arn: str, prompt: str) -> None:
    """Against the runtime ``runtime_arn``, in its own region (no stack is read)."""
    console.step(f"smoke: {runtime_arn}")
    aws = Boto3Aws(region=runtime_arn.split(":")[3], profile=run.profile)
    print_result(console, smoke_runtime(aws, runtime_arn, prompt))
