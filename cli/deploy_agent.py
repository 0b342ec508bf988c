"""`deploy-agent`: the voice agent on Bedrock AgentCore, from nothing to a verified deployment.

    deploy-agent [SETTINGS] [--dry-run] [--yes] [--json] [--bootstrap]     one-shot deploy
    deploy-agent [SETTINGS] synth | diff | destroy | outputs | smoke [--url URL] | local [--web] | invoke | web

Settings go before the subcommand; each becomes CDK context for stacks/settings.py. The TTS endpoint
comes from the model stack's outputs unless ``--endpoint-name`` names it.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.checks.agent_smoke import SMOKE_PROMPT
from cli.common.console import Console
from cli.common.errors import UsageError
from cli.deploy import agent_flow, options
from cli.deploy.run_options import build_run_options
from cli.local.agent_local import invoke, local
from cli.local.agent_web import web
from cli.typer_app import add_stack_commands, new_app, start, state_of
from voice_agent.request import MAX_PROMPT_CHARS

app = new_app("Deploy, verify and manage the voice agent on Bedrock AgentCore (the agent stack).")
app.command("local")(local)
app.command("invoke")(invoke)
app.command("web")(web)


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    region: options.Region = None,
    account: options.Account = None,
    profile: options.Profile = None,
    agent_stack_name: options.AgentStackName = None,
    model_stack_name: options.ModelStackName = None,
    endpoint_name: options.EndpointName = None,
    voice: options.Voice = None,
    model_id: Annotated[Optional[str], options.context_option("model_id")] = None,
    agent_artifact: Annotated[Optional[str], options.context_option("agent_artifact")] = None,
    agent_image_uri: Annotated[Optional[str], options.context_option("agent_image_uri")] = None,
    runtime_name: Annotated[Optional[str], options.context_option("runtime_name")] = None,
    dry_run: options.DryRun = False,
    yes: options.Yes = False,
    json_output: options.Json = False,
    bootstrap: options.Bootstrap = False,
    out_dir: options.OutDir = None,
    cdk_bin: options.CdkBin = options.DEFAULT_CDK_BIN,
    docker_bin: options.DockerBin = "docker",
) -> None:
    """Deploy the agent stack and verify the runtime speaks (the bare command), or run a subcommand."""
    console = Console(json_mode=json_output)
    state = start(ctx, console, lambda: build_run_options(
        options.context_given(ctx), profile=profile, dry_run=dry_run, assume_yes=yes, bootstrap=bootstrap,
        cdk_bin=cdk_bin, docker_bin=docker_bin,
    ), out_dir)
    if ctx.invoked_subcommand is None:
        with console.reporting_errors():
            agent_flow.deploy(state.run, console, state.connect, state.out_dir)


add_stack_commands(
    app, lambda run: run.settings.agent_stack_name, "agent",
    agent_flow.outputs, "What is deployed now: the agent stack's outputs (runtime ARN and id).",
)


@app.command()
def smoke(
    ctx: typer.Context,
    url: Annotated[Optional[str], typer.Option(help="An agent URL (e.g. http://127.0.0.1:8080 from "
                                                    "`deploy-agent local`) instead of the deployed runtime.")] = None,
    prompt: Annotated[str, typer.Option(help="What to ask the agent.")] = SMOKE_PROMPT,
) -> None:
    """Ask the agent one short question; passes only when speech comes back."""
    state = state_of(ctx)
    with state.console.reporting_errors():
        if not prompt.strip() or len(prompt) > MAX_PROMPT_CHARS:
            raise UsageError(f"--prompt must hold 1 to {MAX_PROMPT_CHARS} characters")
        agent_flow.smoke(state.run, state.console, state.connect, url, prompt)
