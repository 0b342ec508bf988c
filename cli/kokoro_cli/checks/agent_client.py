"""The CLI's one client of a running agent's ``POST /invocations``: a question in, the answer's SSE lines out.

The agent is a URL (``deploy-agent local``, or any agent served over HTTP) or a deployed AgentCore
runtime's ARN; either way the lines go to :func:`voice_agent.events.read_stream`, which turns them into
the agent's typed events. ``deploy-agent invoke``, ``local --prompt`` and ``smoke`` all ask through here.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator

from kokoro_cli.checks.model_smoke import parse_base_url
from kokoro_cli.common.aws_api import AwsApi
from kokoro_cli.common.errors import VerifyFailed

ANSWER_TIMEOUT_S = 300.0


def invocation(prompt: str, voice: str | None = None, speed: float | None = None) -> dict:
    """The request's JSON body; a voice or speed left out is the agent's own."""
    body: dict = {"prompt": prompt}
    if voice:
        body["voice"] = voice
    if speed is not None:
        body["speed"] = speed
    return body


@contextlib.contextmanager
def url_lines(url: str, payload: dict, timeout_s: float = ANSWER_TIMEOUT_S) -> Iterator[Iterator[str]]:
    """The answer's lines from the agent at ``url``; an HTTP refusal or a broken connection fails the command."""
    import httpx  # here, not at start-up: a CLI that never calls a server loads no HTTP client (decision 140)

    http_base, _ = parse_base_url(url)
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(timeout_s, connect=10.0)) as client,
            client.stream(
                "POST", f"{http_base}/invocations", json=payload, headers={"accept": "text/event-stream"}
            ) as reply,
        ):
            if reply.status_code != 200:
                body = reply.read()[:300].decode("utf-8", errors="replace")
                raise VerifyFailed(f"the agent at {http_base} answered HTTP {reply.status_code}: {body}")
            yield reply.iter_lines()
    except httpx.HTTPError as err:
        raise VerifyFailed(f"cannot reach the agent at {http_base}: {type(err).__name__}: {err}") from err


def runtime_lines(aws: AwsApi, runtime_arn: str, payload: dict, caller: str) -> Iterator[str]:
    """The answer's lines from a deployed runtime, in a fresh session named for the ``caller`` (the API
    wants a session id of 33+ characters)."""
    session_id = f"deploy-agent-{caller}-{uuid.uuid4().hex}"
    return aws.invoke_agent_runtime(runtime_arn, session_id, json.dumps(payload).encode())
