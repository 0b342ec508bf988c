"""What the two Typer apps share: how they are built, the options both take, and the state their
callback hands to commands.

Settings are options of the app's callback (``deploy-model --region eu-west-1 synth``), parsed once into
a :class:`~kokoro_cli.deploy.run_options.RunOptions` there; commands receive it through the context. The bare
command (no subcommand) is the one-shot deploy. The options both CLIs take (where to deploy, how to run)
are declared once, here, around each CLI's own (:func:`deploy_callback`), and read back from the context:
no callback lists an option twice.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import typer

from kokoro_cli.common.aws_api import AwsApi, Boto3Aws
from kokoro_cli.common.console import Console
from kokoro_cli.common.errors import CliError, ExitCode, UsageError
from kokoro_cli.deploy import deploy_steps, flags
from kokoro_cli.deploy.cdk_command import OUTPUT_DIR, PROJECT_ROOT
from kokoro_cli.deploy.run_options import RunOptions, build_run_options
from kokoro_processes import children

EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 deploy, destroy or verification failed; 2 usage error; "
    "3 prerequisite missing (credentials, region, CDK CLI, Docker, bootstrap); 130 interrupted."
)


def _options(*specs: tuple[str, object, object]) -> tuple[inspect.Parameter, ...]:
    return tuple(
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        for name, annotation, default in specs
    )


# Both CLIs' options, before and after each CLI's own (the order of --help).
_SHARED_FIRST = _options(
    ("region", flags.Region, None), ("account", flags.Account, None), ("profile", flags.Profile, None)
)
_SHARED_LAST = _options(
    ("dry_run", flags.DryRun, False),
    ("assume_yes", flags.Yes, False),
    ("json_output", flags.Json, False),
    ("bootstrap", flags.Bootstrap, False),
    ("direct", flags.Direct, False),
    ("out_dir", flags.OutDir, None),
    ("cdk_bin", flags.CdkBin, flags.DEFAULT_CDK_BIN),
    ("docker_bin", flags.DockerBin, "docker"),
)
# The options that say how to run, by their name in ctx.params and in build_run_options.
_RUN_KEYS = ("profile", "dry_run", "assume_yes", "bootstrap", "direct", "cdk_bin", "docker_bin")


def new_app(help_text: str) -> typer.Typer:
    """A Typer app whose expected failures never print a traceback (see :mod:`kokoro_cli.common.console`)."""
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
    state = ctx.find_object(CliState)
    if state is None:
        raise RuntimeError("no CliState: the app's callback (start) runs before every command")
    return state


@contextlib.contextmanager
def command_state(ctx: typer.Context) -> Iterator[CliState]:
    """A subcommand's state, with its expected failures turned into exit codes."""
    state = state_of(ctx)
    with state.console.reporting_errors():
        yield state


def start(ctx: typer.Context) -> CliState:
    """Parse the callback's options once; a bad value exits 2 here, before any command runs.

    A given ``--out-dir`` is made absolute against the user's working directory (cdk runs in the
    project root); by default the assembly goes to the project's own ``cdk.out``.
    """
    children.end_children_with_parent()
    given = ctx.params
    console = Console(json_mode=given["json_output"])
    assembly = str(Path(given["out_dir"]).resolve()) if given["out_dir"] else str(PROJECT_ROOT / OUTPUT_DIR)
    try:
        run = build_run_options(flags.context_given(ctx), **{k: given[k] for k in _RUN_KEYS if k in given})
    except CliError as err:
        raise typer.Exit(int(console.fail(err))) from None
    ctx.obj = CliState(run=run, console=console, out_dir=assembly)
    return ctx.obj


def deploy_callback(app: typer.Typer) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Make ``own(ctx, **its options)`` ``app``'s callback, taking both CLIs' options around its own.

    The callback parses every option into a :class:`CliState` (:func:`start`) before ``own`` runs;
    ``own`` receives only the options it declares.
    """

    def register(own: Callable[..., None]) -> Callable[..., None]:
        ctx_param, *own_params = inspect.signature(own, eval_str=True).parameters.values()
        own_params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own_params]

        @functools.wraps(own)
        def callback(ctx: typer.Context, **given: object) -> None:
            start(ctx)
            own(ctx, **{p.name: given[p.name] for p in own_params})

        callback.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # inspect honours it; typeshed omits it
            [ctx_param, *_SHARED_FIRST, *own_params, *_SHARED_LAST]
        )
        return app.callback(invoke_without_command=True)(callback)

    return register


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
        with command_state(ctx) as state:
            stack = stack_of(state.run)
            template = deploy_steps.synth(state.run, state.console, stack, state.out_dir)
            if template is not None:
                state.console.result({"stack": stack, "template": str(template)})

    @app.command()
    def diff(ctx: typer.Context) -> None:
        with command_state(ctx) as state:
            deploy_steps.require_account(state.run, state.connect)
            deploy_steps.diff(state.run, state.console, stack_of(state.run), state.out_dir)

    @app.command()
    def destroy(ctx: typer.Context) -> None:
        with command_state(ctx) as state:
            stack = stack_of(state.run)
            confirm_destroy(state, stack)
            deploy_steps.require_account(state.run, state.connect)
            deploy_steps.destroy(state.run, state.console, stack, state.out_dir)

    @app.command()
    def outputs(ctx: typer.Context) -> None:
        with command_state(ctx) as state:
            show_outputs(state.run, state.console, state.connect)

    outputs.__doc__ = outputs_help
    synth.__doc__ = f"Synthesize the {noun} stack's template (offline: no credentials, no Docker)."
    diff.__doc__ = f"Show what a deploy would change in the deployed {noun} stack."
    destroy.__doc__ = f"Delete the {noun} stack and everything in it (asks first unless --yes)."
