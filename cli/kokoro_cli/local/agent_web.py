"""``deploy-agent web`` and ``deploy-agent local --web``: the conversation page, served on this machine.

The page (``cli/kokoro_cli/local/web``) always comes from 127.0.0.1; only the WebSocket it opens differs: a local agent's
``/ws``, or a deployed runtime's ``/ws`` through a SigV4-presigned URL that ``AgentCoreRuntimeClient``
signs with this machine's AWS credentials for each connection (the browser never sees a key).
"""

from __future__ import annotations

import uuid
from typing import Annotated
from urllib.parse import quote, urlencode, urlsplit

import typer

from kokoro_cli.common.aws_api import CREDENTIALS_FIX, Boto3Aws
from kokoro_cli.common.console import Console
from kokoro_cli.common.errors import PrerequisiteMissing, UsageError
from kokoro_cli.deploy import deploy_steps
from kokoro_cli.local.web_page import ConnectUrl, Presigner, new_token, page_app, runtime_connect_url
from kokoro_cli.typer_app import command_state
from kokoro_stacks.settings.context_values import runtime_arn_problem
from speech_protocol.http.browser_access import LOOPBACK_NAMES
from voice_agent.conversation.messages import SESSION_ID_HEADER

DEFAULT_WEB_PORT = 8000
AWS_DOMAINS = (".amazonaws.com", ".amazonaws.com.cn")
WebPort = Annotated[int, typer.Option(help="Port of the conversation page on 127.0.0.1.")]


def serve_page(
    console: Console, connect_url: ConnectUrl, port: int, target: str, hosts: frozenset[str] | None = LOOPBACK_NAMES
) -> None:
    """Serve the page until Ctrl-C, at a URL with this run's token (printed whole, on one line)."""
    import uvicorn

    token = new_token()
    console.step(f"conversation page talking to {target}; open this URL (Ctrl-C stops):")
    console.line(f"http://127.0.0.1:{port}/?token={token}")
    uvicorn.run(page_app(connect_url, token, hosts), host="127.0.0.1", port=port, log_level="warning")


def presigner(region: str, profile: str | None) -> Presigner:
    """bedrock-agentcore's client, on this machine's credentials (``--profile`` if given); for a data plane that
    boto3 is pointed elsewhere than AWS (``AWS_ENDPOINT_URL_BEDROCK_AGENTCORE``: the local AgentCore emulator), the
    same presigned URL at that address (the SDK refuses any endpoint outside AWS)."""
    import boto3
    from bedrock_agentcore.runtime import AgentCoreRuntimeClient

    session = boto3.Session(profile_name=profile, region_name=region)
    endpoint = session.client("bedrock-agentcore").meta.endpoint_url
    if not (urlsplit(endpoint).hostname or "").endswith(AWS_DOMAINS):
        return EndpointPresigner(session, region, endpoint)
    return AgentCoreRuntimeClient(region=region, session=session)


class EndpointPresigner:
    """``generate_presigned_url`` as AgentCoreRuntimeClient signs it (SigV4 in the query, a GET on the https form of
    the URL, 300 s), for the runtime's ``/ws`` at ``endpoint`` (ws:// for http, wss:// for https)."""

    def __init__(self, session, region: str, endpoint: str):
        self.session, self.region, self.endpoint = session, region, urlsplit(endpoint)

    def generate_presigned_url(self, runtime_arn: str, session_id: str | None = None) -> str:
        from botocore.auth import SigV4QueryAuth
        from botocore.awsrequest import AWSRequest

        credentials = self.session.get_credentials()
        if credentials is None:
            raise RuntimeError("No AWS credentials found")
        query = urlencode({SESSION_ID_HEADER: session_id or str(uuid.uuid4())})
        netloc = self.endpoint.netloc
        request = AWSRequest(
            method="GET",
            url=f"https://{netloc}/runtimes/{quote(runtime_arn, safe='')}/ws?{query}",
            headers={"host": netloc},
        )
        SigV4QueryAuth(credentials.get_frozen_credentials(), "bedrock-agentcore", self.region, expires=300).add_auth(
            request
        )
        scheme = "wss" if self.endpoint.scheme == "https" else "ws"
        return f"{scheme}://{request.url.removeprefix('https://')}"


def require_credentials(region: str, profile: str | None) -> None:
    """Refuse to serve a page whose every connection would fail: credentials are resolved here, offline."""
    if Boto3Aws(region=region, profile=profile).credentials() is None:
        raise PrerequisiteMissing("no AWS credentials found to sign the page's connections", fix=CREDENTIALS_FIX)


def region_of(runtime_arn: str) -> str:
    """The ARN's region, once the whole ARN has the shape AgentCore gives (a usage error otherwise)."""
    problem = runtime_arn_problem(runtime_arn)
    if problem:
        raise UsageError(
            f"not an AgentCore runtime ARN ({problem}): {runtime_arn[:100]!r}",
            fix="give arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/ID as `deploy-agent outputs` prints it",
        )
    return runtime_arn.split(":")[3]


def web(
    ctx: typer.Context,
    runtime_arn: Annotated[
        str | None, typer.Argument(help="The runtime to talk to (default: RuntimeArn from the agent stack's outputs).")
    ] = None,
    port: WebPort = DEFAULT_WEB_PORT,
) -> None:
    """Talk to the deployed agent from a browser: serves the conversation page on 127.0.0.1."""
    with command_state(ctx) as state:
        if runtime_arn is None:
            outputs = deploy_steps.stack_state(state.connect(), state.run.settings.agent_stack_name).outputs
            runtime_arn = outputs.get("RuntimeArn") or ""
            if not runtime_arn:
                raise UsageError(
                    "the agent stack has no RuntimeArn output",
                    fix="deploy it first (deploy-agent), or give the runtime ARN: deploy-agent web ARN",
                )
        region = region_of(runtime_arn)
        require_credentials(region, state.run.profile)
        signer = presigner(region, state.run.profile)
        serve_page(state.console, runtime_connect_url(signer, runtime_arn), port, runtime_arn)
