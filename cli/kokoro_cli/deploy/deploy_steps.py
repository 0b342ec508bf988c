"""The steps both deploy flows share: preflight, synth, deploy with AWS's failure reasons, destroy.

Synth runs once into an assembly directory and deploy reuses it (``cdk deploy --app DIR``): the agent's
code bundle is built once, and what was synthesized and checked is exactly what is deployed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from kokoro_cli.common.aws_api import AwsApi, Identity, StackState
from kokoro_cli.common.console import Console
from kokoro_cli.common.errors import AwsCallFailed, CommandFailed, DeployFailed
from kokoro_cli.deploy import cdk_command, runner
from kokoro_cli.deploy.cdk_command import CdkCall
from kokoro_cli.deploy.prerequisites import Finding, check_aws, check_bootstrap, check_cdk, check_docker, require
from kokoro_cli.deploy.run_options import RunOptions

DockerNeed = tuple[str, str] | None  # (what needs it, the option that avoids it), or no Docker needed


def preflight(
    run: RunOptions, console: Console, connect: Callable[[], AwsApi], docker: DockerNeed, out_dir: str
) -> tuple[AwsApi, Identity]:
    """Check every prerequisite (bootstrapping first when ``--bootstrap`` asks for it; its synth of the app
    goes to ``out_dir``)."""
    console.step("checking prerequisites")
    findings: list[Finding] = [check_cdk(run.cdk_bin)]
    if docker is not None:
        findings.append(check_docker(run.docker_bin, *docker))
    aws_finding, aws, identity = check_aws(connect)
    findings.append(aws_finding)
    if aws is not None and identity is not None:
        bootstrapped = check_bootstrap(aws, identity)
        if not bootstrapped.ok and run.bootstrap and all(f.ok for f in findings):
            call = cdk_command.bootstrap(run.cdk_target(), identity.account, identity.region, out_dir)
            console.step(f"bootstrapping aws://{identity.account}/{identity.region}")
            runner.run_checked(call, "cdk bootstrap", console.line)
            bootstrapped = check_bootstrap(aws, identity)
        findings.append(bootstrapped)
    for finding in findings:
        if finding.ok:
            console.line(f"    ok  {finding.name}: {finding.detail}")
    require(findings)
    assert aws is not None and identity is not None  # require() raised otherwise
    return aws, identity


def synth(run: RunOptions, console: Console, stack: str, out_dir: str) -> Path | None:
    """``cdk synth`` of one stack into ``out_dir``; returns its template's path (``None``: dry run)."""
    if not execute(run, console, cdk_command.synth(run.cdk_target(), stack, out_dir), f"cdk synth {stack}"):
        return None
    template = cdk_command.template_path(stack, out_dir)
    if not template.is_file():
        raise CommandFailed(f"cdk synth wrote no template for {stack}", details=(str(template),))
    return template


def deploy_call(run: RunOptions, stack: str, assembly_dir: str) -> CdkCall:
    """The ``cdk deploy`` of an already synthesized assembly (also what ``--dry-run`` prints)."""
    return cdk_command.deploy(
        replace(run.cdk_target(), app=assembly_dir),
        stack,
        approve_all=run.assume_yes or run.unattended,
        outputs_file=f"{assembly_dir}/outputs.json",
        direct=run.direct,
    )


def deploy(run: RunOptions, console: Console, aws: AwsApi, stack: str, assembly_dir: str) -> StackState:
    """Deploy and return the stack; a failure carries CloudFormation's reasons, not cdk's stack trace."""
    console.step(f"deploying {stack} (stack events follow; an endpoint takes 5-15 minutes)")
    result = runner.run(deploy_call(run, stack, assembly_dir), console.line)
    try:
        state = aws.stack(stack)
    except AwsCallFailed:
        if result.returncode == 0:
            raise
        state = None  # cdk already failed: its own reasons say more than a failed read-back
    if result.returncode != 0 or state is None or not state.status.endswith("_COMPLETE") or "ROLLBACK" in state.status:
        reasons = aws.stack_failures(stack) if state is not None else []
        raise DeployFailed(
            f"deploying {stack} failed" + (f" (stack {state.status})" if state else ""),
            details=tuple(reasons) or runner.failure_lines(result.tail),
            fix="fix the first reason above and deploy again",
        )
    return state


def execute(run: RunOptions, console: Console, call: CdkCall, what: str) -> bool:
    """Run one `cdk` command (``--dry-run``: print it instead); ``True`` when it ran."""
    if run.dry_run:
        print_plan(console, [call])
        return False
    console.step(what)
    runner.run_checked(call, what, console.line)
    return True


def require_account(run: RunOptions, connect: Callable[[], AwsApi]) -> None:
    """What ``diff`` and ``destroy`` need before cdk runs: the CDK CLI, a region and credentials.

    Without this, cdk itself fails late with "Unable to resolve AWS account" and exit 1 instead of the
    missing prerequisite, its fix and exit 3. A dry run needs none of them.
    """
    if not run.dry_run:
        aws_finding, _, _ = check_aws(connect)
        require([check_cdk(run.cdk_bin), aws_finding])


def diff(run: RunOptions, console: Console, stack: str, out_dir: str) -> None:
    execute(run, console, cdk_command.diff(run.cdk_target(), stack, out_dir), f"cdk diff {stack}")


def destroy(run: RunOptions, console: Console, stack: str, out_dir: str) -> None:
    if execute(run, console, cdk_command.destroy(run.cdk_target(), stack, out_dir), f"cdk destroy {stack}"):
        console.result({"destroyed": stack})


def print_plan(console: Console, calls: list[CdkCall], notes: Sequence[str] = ()) -> None:
    """``--dry-run``: the exact commands, in order; nothing runs."""
    for note in notes:
        console.note(note)
    console.commands([c.shell() for c in calls])


def pinned_to(run: RunOptions, identity: Identity) -> RunOptions:
    """Deploy exactly where the prerequisites were checked: the account and region boto3 resolved."""
    return replace(run, context={**run.context, "region": identity.region, "account": identity.account})


def stack_state(aws: AwsApi, stack: str) -> StackState:
    """The deployed stack, or :class:`DeployFailed` saying that nothing is deployed there."""
    state = aws.stack(stack)
    if state is None:
        raise DeployFailed(f"stack {stack} is not deployed in {aws.region}", fix="deploy it first, or check --region")
    return state
