"""The runtimes CloudFormation creates here, each started from the agent's bundle and routed by its ARN."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import IO

from kokoro_devtools.agentcore_emulator.runtime.host import running
from kokoro_devtools.agentcore_emulator.runtime.template import CodeRuntime


class LocalRuntimes:
    """``routes`` is the AgentCore emulator's runtime table (ARN -> URL): a runtime is in it from its start to its
    stop. ``overrides`` are set on every runtime's environment: what stands in here for the services it would
    call on AWS (the model endpoint's address, credentials of its role, an LLM)."""

    def __init__(self, routes: dict[str, str], overrides: dict[str, str], log: IO[str] | None = None):
        self.routes = routes
        self.overrides = overrides
        self._log = log
        self._running: dict[str, contextlib.ExitStack] = {}
        self._lock = threading.Lock()

    def start(self, arn: str, runtime: CodeRuntime) -> None:
        """Until its ``/ping`` answers; :class:`~kokoro_devtools.agentcore_emulator.runtime.host.RuntimeStartError`
        (or the bundler's error) if it cannot start."""
        with contextlib.ExitStack() as stack:
            listener = stack.enter_context(socket.socket())
            listener.bind(("127.0.0.1", 0))
            stack.enter_context(running(runtime, listener, log=self._log))
            with self._lock:
                self._running[arn] = stack.pop_all()
                self.routes[arn] = f"http://127.0.0.1:{listener.getsockname()[1]}"

    def stop(self, arn: str) -> None:
        with self._lock:
            self.routes.pop(arn, None)
            stack = self._running.pop(arn, None)
        if stack is not None:
            stack.close()

    def close(self) -> None:
        for arn in list(self._running):
            self.stop(arn)
