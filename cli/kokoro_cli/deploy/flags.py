"""The flags both CLIs share, declared once; each context flag's help and default come from the stacks.

Every context option defaults to ``None`` so that only what the user typed becomes ``-c key=value``:
the stacks own the defaults (``kokoro_stacks.settings.deploy_settings.CONTEXT_KEYS``) and the help text shows them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from kokoro_cli.deploy.cdk_command import PINNED_CDK
from kokoro_stacks.settings.deploy_settings import CONTEXT_KEYS

_KEYS = {key.name: key for key in CONTEXT_KEYS}
SETTINGS_PANEL = "Deployment settings (become CDK context)"
RUN_PANEL = "How to run"


def context_option(key: str) -> typer.models.OptionInfo:
    """``--key-name`` for the context key ``key``, with the stacks' help and default."""
    spec = _KEYS[key]
    shown = f" (default: {spec.default})" if spec.default is not None else ""
    return typer.Option(f"--{key.replace('_', '-')}", help=spec.help + shown, rich_help_panel=SETTINGS_PANEL)


def context_given(ctx: typer.Context) -> dict[str, object | None]:
    """The context options of ``ctx``'s command, key -> value or ``None`` (not given), in declaration order.

    Each callback declares its context options once, in its signature, named by their context key; this
    reads them back, so no callback lists them a second time.
    """
    return {param.name: ctx.params.get(param.name) for param in ctx.command.params if param.name in _KEYS}


def flag_for(key: str) -> str:
    return f"--{key.replace('_', '-')}"


Region = Annotated[str | None, context_option("region")]
Account = Annotated[str | None, context_option("account")]
ModelStackName = Annotated[str | None, context_option("model_stack_name")]
AgentStackName = Annotated[str | None, context_option("agent_stack_name")]
EndpointName = Annotated[str | None, context_option("endpoint_name")]
VoiceName = Annotated[str | None, context_option("voice")]
Profile = Annotated[
    str | None,
    typer.Option(help="AWS named profile (for boto3 and cdk).", rich_help_panel=SETTINGS_PANEL),
]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Print the exact commands; run nothing.", rich_help_panel=RUN_PANEL)
]
Yes = Annotated[
    bool,
    typer.Option(
        "--yes", "-y", help="No confirmation prompts (also approves cdk's security changes).", rich_help_panel=RUN_PANEL
    ),
]
Json = Annotated[
    bool,
    typer.Option("--json", help="Machine-readable result on stdout; logs on stderr.", rich_help_panel=RUN_PANEL),
]
Bootstrap = Annotated[
    bool,
    typer.Option(
        "--bootstrap",
        help="Run `cdk bootstrap` first when the environment is not bootstrapped.",
        rich_help_panel=RUN_PANEL,
    ),
]
Direct = Annotated[
    bool,
    typer.Option(
        "--direct",
        help="Deploy without a CloudFormation change set (cdk deploy --method direct); "
        "local AWS emulators such as moto need it, as they drop a change set's outputs.",
        rich_help_panel=RUN_PANEL,
    ),
]
OutDir = Annotated[
    str | None,
    typer.Option(
        help="Cloud assembly directory: synth, diff and destroy write it, deploy deploys it (default: the project's cdk.out).",
        rich_help_panel=RUN_PANEL,
        show_default=False,
    ),
]
CdkBin = Annotated[
    str,
    typer.Option(
        envvar="CDK_BIN",
        help="The CDK CLI to run (default: the project's pinned one).",
        rich_help_panel=RUN_PANEL,
        show_default=False,
    ),
]
DockerBin = Annotated[
    str,
    typer.Option(
        envvar="CDK_DOCKER", help="Docker command, as cdk itself reads it from CDK_DOCKER.", rich_help_panel=RUN_PANEL
    ),
]
DEFAULT_CDK_BIN = str(PINNED_CDK)
