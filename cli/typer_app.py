"""What the two Typer apps share: how they are built and the state their callback hands to commands.

Settings are options of the app's callback (``deploy-model --region eu-west-1 synth``), parsed once into
a :class:`~cli.deploy.run_options.RunOptions` there; commands receive it through the context. The bare command
(no subcommand) is the one-shot deploy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer

from cli.common import child_processes
from cli.common.aws_api import AwsApi, Boto3Aws
from cli.common.console import Console
from cli.common.errors import CliError, ExitCode, UsageError
from cli.deploy import deploy_steps
from cli.deploy.cdk_command import OUTPUT_DIR, PROJECT_ROOT
from cli.deploy.run_options import RunOptions

EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 deploy, destroy or verification failed; 2 usage error; "
    "3 prerequisite missing (credentials, region, CDK CLI, Docker, bootstrap); 130 interrupted."
)


def new_app(help_text: str) -> typer.Typer:
    """A Typer app whose expected failures never print a traceback (see :mod:`cli.common.console`)."""
    return typer.Typer(
        help=f"{help_text}\n\n{EXIT_CODES_HELP}",
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


@dataclass(frozen=True)
class CliState:
    run: RunOptions
    console: Console
    out_dir: str

    def connect(self) -> AwsApi:
        return Boto3Aws(region=self.run.region, profile=self.run.profile)


def state_of(ctx: typer.Context) -> CliState:
    return ctx.find_object(CliState)


def start(
    ctx: typer.Context, console: Console, parse: Callable[[], RunOptions], out_dir: str | None
) -> CliState:
    """Parse the callback's options once; a bad value exits 2 here, before any command runs.

    A given ``out_dir`` is made absolute against the user's working directory (cdk runs in the
    project root); by default the assembly goes to the project's own ``cdk.out``.
    """
    child_processes.end_children_with_parent()
    assembly = str(Path(out_dir).resolve()) if out_dir else str(PROJECT_ROOT / OUTPUT_DIR)
    try:
        state = CliState(run=parse(), console=console, out_dir=assembly)
    except CliError as err:
        raise typer.Exit(int(console.fail(err))) from None
    ctx.obj = state
    return state


def confirm_destroy(state: CliState, stack: str) -> None:
    """Ask before destroying, unless ``--yes``; unattended runs must say ``--yes`` explicitly."""
    if state.run.assume_yes or state.run.dry_run:
        return
    if state.run.unattended:
        raise UsageError(f"not destroying {stack}: no terminal to confirm at", fix="pass --yes to destroy unattended")
    if not typer.confirm(f"Destroy stack {stack} and everything in it?", default=False, err=True):
        raise typer.Exit(int(ExitCode.FAILED))


def add_stack_commands(
    app: typer.Typer,
    stack_of: Callable[[RunOptions], str],
    noun: str,
    show_outputs: Callable[[RunOptions, Console, Callable[[], AwsApi]], None],
    outputs_help: str,
) -> None:
    """``synth``, ``diff``, ``destroy`` and ``outputs``: the same four verbs for either CLI's own stack.

    ``show_outputs`` is the CLI's own flow for ``outputs`` (each stack has outputs of its own).
    """
    @app.command()
    def synth(ctx: typer.Context) -> None:
        state = state_of(ctx)
        stack = stack_of(state.run)
        with state.console.reporting_errors():
            template = deploy_steps.synth(state.run, state.console, stack, state.out_dir)
            if template is not None:
                state.console.result({"stack": stack, "template": str(template)})

    @app.command()
    def diff(ctx: typer.Context) -> None:
        state = state_of(ctx)
        with state.console.reporting_errors():
            deploy_steps.diff(state.run, state.console, stack_of(state.run))

    @app.command()
    def destroy(ctx: typer.Context) -> None:
        state = state_of(ctx)
        stack = stack_of(state.run)
        with state.console.reporting_errors():
            confirm_destroy(state, stack)
            deploy_steps.destroy(state.run, state.console, stack)

    @app.command()
    def outputs(ctx: typer.Context) -> None:
        state = state_of(ctx)
        with state.console.reporting_errors():
            show_outputs(state.run, state.console, state.connect)

    outputs.__doc__ = outputs_help
    synth.__doc__ = f"Synthesize the {noun} stack's template (offline: no credentials, no Docker)."
    diff.__doc__ = f"Show what a deploy would change in the deployed {noun} stack."
    destroy.__doc__ = f"Delete the {noun} stack and everything in it (asks first unless --yes)."
