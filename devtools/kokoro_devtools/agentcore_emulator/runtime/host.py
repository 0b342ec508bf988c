"""This machine's side of a runtime: the bundle built into a fresh folder, the namespace started, the bridges.

What AgentCore does with a code zip, done here: unpack it into an empty folder and run the entry point with the
runtime's Python and the runtime's environment, nothing else (no PYTHONPATH, no packages of this machine's). The
zip step itself is left out: the bundler writes into the fresh folder the zip would be unpacked into.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine, Iterator
from functools import partial
from pathlib import Path
from typing import IO, Any

import httpx

from kokoro_devtools.agentcore_emulator.runtime.bridge import splice, to_tcp, to_unix
from kokoro_devtools.agentcore_emulator.runtime.sandbox import AGENT_PORT, INBOUND, outbound_socket
from kokoro_devtools.agentcore_emulator.runtime.template import CodeRuntime
from kokoro_devtools.local_python import base_interpreter, local_python
from kokoro_processes import children
from kokoro_stacks.agent.bundle_build import bundle_agent
from kokoro_stacks.project import ProjectPaths

REPO = Path(__file__).resolve().parents[4]
POLL_S = 0.1
SHORT_TMP = "/tmp"
START_S = 120.0  # the agent imports strands, boto3 and the SDK before /ping answers: seconds on a busy machine
HOST_PLATFORM = f"manylinux2014_{platform.machine()}"
# IPv4 only: the namespace's bridges listen on its 127.0.0.1 (a name that resolves to ::1 first falls back to it)
_LOOPBACK = re.compile(r"(?:127\.0\.0\.1|localhost):(\d{1,5})\b")


class RuntimeStartError(RuntimeError):
    """The runtime could not be started, or its entry point never answered ``/ping``; the message says which."""


def loopback_ports(environment: dict[str, str]) -> list[int]:
    """The ports of every loopback address the environment names: the servers of this machine's it must reach."""
    ports = sorted({int(port) for value in environment.values() for port in _LOOPBACK.findall(value)})
    if AGENT_PORT in ports:
        raise RuntimeStartError(
            f"the environment names a server on 127.0.0.1:{AGENT_PORT}, the agent's own port inside its namespace: "
            "serve that one on another port"
        )
    return ports


def unshare_command() -> list[str]:
    """A network namespace of its own; a user namespace too where this is not root (mapped to root inside it)."""
    return ["unshare", "--net", *([] if os.geteuid() == 0 else ["--map-root-user"])]


def check_namespaces() -> None:
    if shutil.which("unshare") is None:
        raise RuntimeStartError("unshare (util-linux) is not installed: apt-get install util-linux")
    probe = subprocess.run([*unshare_command(), "true"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if probe.returncode != 0:
        raise RuntimeStartError(
            f"cannot make a network namespace ({probe.stderr.strip()[:200]}): the entry point needs one to serve "
            f"port {AGENT_PORT} as on AgentCore; run as root, or allow unprivileged user namespaces"
        )


class Bridges:
    """The host side of the bridges, served by an event loop of its own in a thread until :meth:`close`."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="runtime-bridges", daemon=True)
        self._thread.start()
        self._servers: list[asyncio.Server] = []

    def _serve(self, start: Coroutine[Any, Any, asyncio.Server]) -> None:
        self._servers.append(asyncio.run_coroutine_threadsafe(start, self._loop).result())

    def outbound(self, sockets: Path, port: int) -> None:
        """The namespace's ``outbound-PORT.sock`` joined to 127.0.0.1:``port`` here."""
        here = partial(splice, to_tcp("127.0.0.1", port))
        self._serve(asyncio.start_unix_server(here, path=str(sockets / outbound_socket(port))))

    def inbound(self, listener: socket.socket, sockets: Path) -> None:
        """``listener`` (bound, not yet listening) joined to the namespace's ``inbound.sock``, from now on."""
        self._serve(asyncio.start_server(partial(splice, to_unix(str(sockets / INBOUND))), sock=listener))

    def close(self) -> None:
        async def stop() -> None:
            for server in self._servers:
                server.close()
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


def wait_ready(sockets: Path, agent: subprocess.Popen) -> None:
    """Until the agent's ``/ping`` answers 200 through ``inbound.sock`` (the port here opens only then)."""
    deadline = time.monotonic() + START_S
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(sockets / INBOUND)), timeout=5.0) as client:
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if client.get("http://runtime/ping").status_code == 200:
                    return
            if agent.poll() is not None:
                raise RuntimeStartError(f"the entry point exited ({agent.returncode}) before /ping answered")
            if time.monotonic() > deadline:
                raise RuntimeStartError(f"the entry point did not answer /ping within {START_S:g} s")
            time.sleep(POLL_S)


def agent_environment(runtime: CodeRuntime, python: Path, home: Path) -> dict[str, str]:
    """The template's variables (with the caller's), a PATH that finds the runtime's Python first, and a HOME."""
    return {"PATH": f"{python.parent}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), **runtime.environment}


@contextlib.contextmanager
def running(
    runtime: CodeRuntime, listener: socket.socket, log: IO[str] | int | None = None
) -> Iterator[subprocess.Popen]:
    """The runtime's entry point running in its namespace, reached through ``listener`` (bound on 127.0.0.1),
    once ``/ping`` answers 200; stopped when the block ends. Its output goes to ``log``."""
    check_namespaces()
    python = base_interpreter(local_python(*runtime.python))
    with (
        tempfile.TemporaryDirectory(prefix="agentcore-runtime-") as scratch,
        # A socket's path must fit AF_UNIX's 108 bytes, which a deep $TMPDIR (a test's) can exceed.
        tempfile.TemporaryDirectory(prefix="agentcore-", dir=SHORT_TMP) as socket_folder,
    ):
        code, sockets, home = Path(scratch, "code"), Path(socket_folder), Path(scratch, "home")
        for folder in (code, home):
            folder.mkdir()
        print(f"==> bundling the agent for {HOST_PLATFORM} into {code}", file=sys.stderr, flush=True)
        bundle_agent(ProjectPaths(REPO), code, HOST_PLATFORM)
        environment = Path(scratch, "environment.json")
        environment.touch(mode=0o600)  # it may hold credentials
        environment.write_text(json.dumps(agent_environment(runtime, python, home)))
        outbound = loopback_ports(runtime.environment)
        command = [*unshare_command(), sys.executable, "-m", "kokoro_devtools.agentcore_emulator.runtime.sandbox"]
        command += ["--sockets", str(sockets), "--environment", str(environment), "--code", str(code)]
        command += [f"--outbound={port}" for port in outbound]
        command += ["--", str(python), *runtime.entrypoint]
        bridges = Bridges()
        try:
            for port in outbound:
                bridges.outbound(sockets, port)
            with children.running(
                command, grace_s=15, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            ) as proc:
                wait_ready(sockets, proc)
                bridges.inbound(listener, sockets)
                yield proc
        finally:
            bridges.close()
