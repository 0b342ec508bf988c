"""`deploy-model`: the Kokoro TTS SageMaker endpoint, from nothing to a verified deployment.

    deploy-model [SETTINGS] [--dry-run] [--yes] [--json] [--bootstrap] [--direct] [--skip-smoke]   one-shot deploy
    deploy-model [SETTINGS] synth | diff | destroy | outputs | smoke [--url URL] | local

Settings go before the subcommand; each becomes CDK context for stacks/settings.py.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Annotated, Optional

import typer

from cli.common.console import Console
from cli.deploy import model_flow, options
from cli.deploy.run_options import build_run_options
from cli.typer_app import add_stack_commands, new_app, start, state_of

app = new_app("Deploy, verify and manage the Kokoro TTS SageMaker endpoint (the model stack).")

InstanceType = Annotated[Optional[str], options.context_option("instance_type")]
Count = Optional[int]
SkipSmoke = Annotated[
    bool,
    typer.Option("--skip-smoke", help="Deploy and wait for InService, but skip the smoke test of both paths "
                 "(e.g. on a local AWS emulator, where no container runs); `smoke` runs it later.",
                 rich_help_panel=options.RUN_PANEL),
]


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    region: options.Region = None,
    account: options.Account = None,
    profile: options.Profile = None,
    model_stack_name: options.ModelStackName = None,
    endpoint_name: options.EndpointName = None,
    instance_type: InstanceType = None,
    instance_count: Annotated[Count, options.context_option("instance_count")] = None,
    min_instances: Annotated[Count, options.context_option("min_instances")] = None,
    max_instances: Annotated[Count, options.context_option("max_instances")] = None,
    engine: Annotated[Optional[str], options.context_option("engine")] = None,
    image_uri: Annotated[Optional[str], options.context_option("image_uri")] = None,
    voice: options.Voice = None,
    dry_run: options.DryRun = False,
    yes: options.Yes = False,
    json_output: options.Json = False,
    bootstrap: options.Bootstrap = False,
    direct: options.Direct = False,
    skip_smoke: SkipSmoke = False,
    out_dir: options.OutDir = None,
    cdk_bin: options.CdkBin = options.DEFAULT_CDK_BIN,
    docker_bin: options.DockerBin = "docker",
) -> None:
    """Deploy the model stack and verify the endpoint (the bare command), or run a subcommand."""
    console = Console(json_mode=json_output)
    state = start(ctx, console, lambda: build_run_options(
        options.context_given(ctx), profile=profile, dry_run=dry_run, assume_yes=yes, bootstrap=bootstrap, direct=direct,
        cdk_bin=cdk_bin, docker_bin=docker_bin,
    ), out_dir)
    if ctx.invoked_subcommand is None:
        with console.reporting_errors():
            model_flow.deploy(state.run, console, state.connect, state.out_dir, smoke=not skip_smoke)


add_stack_commands(
    app, lambda run: run.settings.model_stack_name, "model",
    model_flow.outputs, "What is deployed now: the stack's outputs and the endpoint's status.",
)


@app.command()
def smoke(
    ctx: typer.Context,
    url: Annotated[Optional[str], typer.Option(help="A model server URL (e.g. http://127.0.0.1:8080) "
                                                    "instead of the deployed endpoint.")] = None,
    endpoint_url: Annotated[Optional[str], typer.Option(
        help="A SageMaker runtime URL instead of AWS's, e.g. the local emulator "
             "(python -m devtools.sagemaker_emulator); the endpoint is --endpoint-name.")] = None,
) -> None:
    """Verify both paths: /invocations and a bidirectional session sent as a BINARY frame."""
    state = state_of(ctx)
    with state.console.reporting_errors():
        model_flow.smoke(state.run, state.console, state.connect, url, endpoint_url)


@app.command()
def local(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port (the container uses 8080).")] = 8080,
    engine: Annotated[str, typer.Option(help="onnx (CPU, the offline int8 weights) or torch.")] = "onnx",
) -> None:
    """Serve the model container's server on this machine (python -m kokoro_server)."""
    state = state_of(ctx)
    argv = [sys.executable, "-m", "kokoro_server", "--host", host, "--port", str(port), "--engine", engine]
    if "voice" in state.run.context:
        argv += ["--voice", state.run.context["voice"]]
    if state.run.dry_run:
        return state.console.commands([shlex.join(argv)])
    state.console.step(f"serving on http://{host}:{port} (Ctrl-C stops it)")
    sys.stderr.flush()
    os.execv(sys.executable, argv)  # the server owns the process: signals and exit code are its own
