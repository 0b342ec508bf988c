"""`deploy-agent`: the voice agent on Bedrock AgentCore, from nothing to a verified deployment.

    deploy-agent [SETTINGS] [--dry-run] [--yes] [--json] [--bootstrap]     one-shot deploy
    deploy-agent [SETTINGS] synth | diff | destroy | outputs | smoke [--url URL | --runtime-arn ARN] | local [--web] | invoke | web

Settings go before the subcommand; each becomes CDK context for stacks/kokoro_stacks/settings/deploy_settings.py. The TTS endpoint
comes from the model stack's outputs unless ``--endpoint-name`` names it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from kokoro_cli.checks.agent_smoke import SMOKE_PROMPT
from kokoro_cli.common.errors import UsageError
from kokoro_cli.deploy import agent_flow, flags
from kokoro_cli.local.agent_local import invoke, local
from kokoro_cli.local.agent_web import region_of, web
from kokoro_cli.typer_app import add_stack_commands, command_state, deploy_callback, new_app
from voice_agent.request import MAX_PROMPT_CHARS

app = new_app("Deploy, verify and manage the voice agent on Bedrock AgentCore (the agent stack).")
app.command("local")(local)
app.command("invoke")(invoke)
app.command("web")(web)

Text = str | None


@deploy_callback(app)
def main(
    ctx: typer.Context,
    agent_stack_name: flags.AgentStackName = None,
    model_stack_name: flags.ModelStackName = None,
    endpoint_name: flags.EndpointName = None,
    voice: flags.VoiceName = None,
    model_id: Annotated[Text, flags.context_option("model_id")] = None,
    agent_artifact: Annotated[Text, flags.context_option("agent_artifact")] = None,
    agent_image_uri: Annotated[Text, flags.context_option("agent_image_uri")] = None,
    runtime_name: Annotated[Text, flags.context_option("runtime_name")] = None,
    agent_allowed_origins: Annotated[Text, flags.context_option("agent_allowed_origins")] = None,
) -> None:
    """Deploy the agent stack and verify the runtime speaks (the bare command), or run a subcommand."""
    if ctx.invoked_subcommand is None:
        with command_state(ctx) as state:
            agent_flow.deploy(state.run, state.console, state.connect, state.out_dir)


add_stack_commands(
    app,
    lambda run: run.settings.agent_stack_name,
    "agent",
    agent_flow.outputs,
    "What is deployed now: the agent stack's outputs (runtime ARN and id).",
)


@app.command()
def smoke(
    ctx: typer.Context,
    url: Annotated[
        str | None,
        typer.Option(
            help="An agent URL (e.g. http://127.0.0.1:8080 from `deploy-agent local`) instead of the deployed runtime."
        ),
    ] = None,
    runtime_arn: Annotated[
        str | None,
        typer.Option(help="A runtime's ARN instead of the one in the agent stack's outputs (its region is the ARN's)."),
    ] = None,
    prompt: Annotated[str, typer.Option(help="What to ask the agent.")] = SMOKE_PROMPT,
) -> None:
    """Ask the agent one short question; passes only when speech comes back."""
    with command_state(ctx) as state:
        if not prompt.strip() or len(prompt) > MAX_PROMPT_CHARS:
            raise UsageError(f"--prompt must hold 1 to {MAX_PROMPT_CHARS} characters")
        if url and runtime_arn:
            raise UsageError("give --url or --runtime-arn, not both")
        if runtime_arn:
            region_of(runtime_arn)  # a usage error for what is not a runtime ARN
            agent_flow.smoke_arn(state.run, state.console, runtime_arn, prompt)
        else:
            agent_flow.smoke(state.run, state.console, state.connect, url, prompt)
