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
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import IO

from kokoro_devtools.agentcore_emulator.runtime.bridge import splice, to_tcp, to_unix
from kokoro_devtools.agentcore_emulator.runtime.sandbox import AGENT_PORT, INBOUND, outbound_socket
from kokoro_devtools.agentcore_emulator.runtime.template import CodeRuntime
from kokoro_devtools.local_python import base_interpreter, local_python
from kokoro_processes import children
from kokoro_stacks.agent.bundle_build import bundle_agent
from kokoro_stacks.project import ProjectPaths
from speech_protocol.http.readiness import ServerGone, ServerNotReady, wait_ready

REPO = Path(__file__).resolve().parents[4]
START_S = 120.0  # the agent imports strands, boto3 and the SDK before /ping answers: seconds on a busy machine
HOST_PLATFORM = f"manylinux2014_{platform.machine()}"
_LOOPBACK = re.compile(r"(?:127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})\b")


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


@contextlib.contextmanager
def bridges(listener: socket.socket, sockets: Path, outbound: list[int]) -> Iterator[None]:
    """``listener`` joined to the namespace's ``inbound.sock``, and each outbound socket to its port here, served
    by an event loop of their own in a thread until the block ends."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="runtime-bridges", daemon=True)
    thread.start()

    async def start() -> list[asyncio.Server]:
        inbound = partial(splice, to_unix(str(sockets / INBOUND)))
        servers = [await asyncio.start_server(inbound, sock=listener)]
        for port in outbound:
            here = partial(splice, to_tcp("127.0.0.1", port))
            servers.append(await asyncio.start_unix_server(here, path=str(sockets / outbound_socket(port))))
        return servers

    async def stop(servers: list[asyncio.Server]) -> None:
        for server in servers:
            server.close()
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()

    servers = asyncio.run_coroutine_threadsafe(start(), loop).result()
    try:
        yield
    finally:
        asyncio.run_coroutine_threadsafe(stop(servers), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


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
    with tempfile.TemporaryDirectory(prefix="agentcore-runtime-") as scratch:
        code, sockets, home = (Path(scratch, name) for name in ("code", "sockets", "home"))
        for folder in (code, sockets, home):
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
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with (
            bridges(listener, sockets, outbound),
            children.running(
                command, grace_s=15, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            ) as proc,
        ):
            try:
                wait_ready(f"{url}/ping", timeout_s=START_S, alive=lambda: proc.poll() is None)
            except ServerGone:
                raise RuntimeStartError(f"the entry point exited ({proc.returncode}) before /ping answered") from None
            except ServerNotReady:
                raise RuntimeStartError(f"the entry point did not answer /ping within {START_S:g} s") from None
            yield proc
