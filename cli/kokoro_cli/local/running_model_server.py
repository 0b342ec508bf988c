"""Waiting for a model server that someone else started (``deploy-agent local --model-url``): it may still
be loading, or have been started in the background a moment ago; the CLI's typed errors say what to do
when it never will be ready."""

from __future__ import annotations

import time

from kokoro_cli.common.errors import CommandFailed, PrerequisiteMissing
from kokoro_processes.servers import model_failed
from speech_protocol.http.readiness import ServerGone, ServerNotReady, status, wait_ready

ANSWER_S = 30.0  # a server started in the background a moment ago binds its port within seconds
LOADING_S = 600.0  # a server that answers "loading" is waited for: a busy machine's first load takes minutes


def running_model_server(url: str, *, timeout_s: float = LOADING_S, answer_s: float = ANSWER_S) -> None:
    """Return once the model server someone else started at ``url`` is ready (it may still be loading, or
    just started in the background); raise a :class:`CliError` that says what to do when it never will."""
    ping = f"{url.rstrip('/')}/ping"
    first_answer = time.monotonic() + answer_s

    def alive() -> bool:  # nothing answering past answer_s, or a failed load: waiting changes nothing
        return (status(ping) is not None or time.monotonic() < first_answer) and not model_failed(url)

    try:
        wait_ready(ping, timeout_s=timeout_s, alive=alive)
    except ServerGone:
        if model_failed(url):
            raise CommandFailed(
                f"the model server at {url} failed to load its model", fix="see that server's log, and restart it"
            ) from None
        raise PrerequisiteMissing(
            f"no model server answers at {url}",
            fix="start one (`.venv/bin/deploy-model local --port 8090 &`), or leave --model-url out to start one",
        ) from None
    except ServerNotReady:
        raise CommandFailed(f"the model server at {url} did not become ready within {timeout_s:g} s") from None
