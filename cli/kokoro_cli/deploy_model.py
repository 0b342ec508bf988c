"""`deploy-model`: the Kokoro TTS SageMaker endpoint, from nothing to a verified deployment.

    deploy-model [SETTINGS] [--dry-run] [--yes] [--json] [--bootstrap] [--direct] [--skip-smoke]   one-shot deploy
    deploy-model [SETTINGS] synth | diff | destroy | outputs | smoke [--url URL] | local

Settings go before the subcommand; each becomes CDK context for stacks/kokoro_stacks/settings/deploy_settings.py.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Annotated

import typer

from kokoro_cli.deploy import flags, model_flow
from kokoro_cli.typer_app import add_stack_commands, command_state, deploy_callback, new_app, state_of

app = new_app("Deploy, verify and manage the Kokoro TTS SageMaker endpoint (the model stack).")

Count = int | None
SkipSmoke = Annotated[
    bool,
    typer.Option(
        "--skip-smoke",
        help="Deploy and wait for InService, but skip the smoke test of both paths "
        "(e.g. on a local AWS emulator, where no container runs); `smoke` runs it later.",
        rich_help_panel=flags.RUN_PANEL,
    ),
]


@deploy_callback(app)
def main(
    ctx: typer.Context,
    model_stack_name: flags.ModelStackName = None,
    endpoint_name: flags.EndpointName = None,
    instance_type: Annotated[str | None, flags.context_option("instance_type")] = None,
    instance_count: Annotated[Count, flags.context_option("instance_count")] = None,
    min_instances: Annotated[Count, flags.context_option("min_instances")] = None,
    max_instances: Annotated[Count, flags.context_option("max_instances")] = None,
    engine: Annotated[str | None, flags.context_option("engine")] = None,
    image_uri: Annotated[str | None, flags.context_option("image_uri")] = None,
    voice: flags.VoiceName = None,
    sessions_per_instance: Annotated[Count, flags.context_option("sessions_per_instance")] = None,
    skip_smoke: SkipSmoke = False,
) -> None:
    """Deploy the model stack and verify the endpoint (the bare command), or run a subcommand."""
    if ctx.invoked_subcommand is None:
        with command_state(ctx) as state:
            model_flow.deploy(state.run, state.console, state.connect, state.out_dir, smoke=not skip_smoke)


add_stack_commands(
    app,
    lambda run: run.settings.model_stack_name,
    "model",
    model_flow.outputs,
    "What is deployed now: the stack's outputs and the endpoint's status.",
)


@app.command()
def smoke(
    ctx: typer.Context,
    url: Annotated[
        str | None,
        typer.Option(help="A model server URL (e.g. http://127.0.0.1:8080) instead of the deployed endpoint."),
    ] = None,
    endpoint_url: Annotated[
        str | None,
        typer.Option(
            help="A SageMaker runtime URL instead of AWS's, e.g. the local emulator "
            "(python -m kokoro_devtools.sagemaker_emulator); the endpoint is --endpoint-name."
        ),
    ] = None,
) -> None:
    """Verify both paths: /invocations and a bidirectional session sent as a BINARY frame."""
    with command_state(ctx) as state:
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
