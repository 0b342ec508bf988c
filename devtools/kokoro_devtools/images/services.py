"""The project's two images: how each is built, and how it is started as its service starts it.

The model image runs ``serve``, SageMaker's ``docker run IMAGE serve``; the agent image runs its app as its
``CMD`` (``python main.py``) does. Both bind 127.0.0.1 on a port of the caller's choosing rather than the
contract's 0.0.0.0:8080: a container here shares the host's network, and a test's port must be its own.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from kokoro_devtools.images import bases
from kokoro_devtools.images.buildah import Buildah
from kokoro_processes import children
from kokoro_processes.servers import ready_process

START_S = 300.0  # the model image loads its engine and every language's G2P before /ping answers


@dataclass(frozen=True)
class Service:
    name: str
    dockerfile: Path
    repository: str

    def tag(self, engine: str) -> str:
        return f"{self.repository}:{engine if self.name == 'model' else 'latest'}"

    def build_args(self, engine: str) -> list[str]:
        return [f"ENGINE={engine}"] if self.name == "model" else []

    def command(self, port: int) -> list[str]:
        if self.name == "model":  # serve passes its arguments on; the last --host/--port wins
            return ["serve", "--host", "127.0.0.1", "--port", str(port)]
        return ["python", "-m", "uvicorn", "--factory", "main:app_from_env", "--host", "127.0.0.1", "--port", str(port)]


SERVICES = {
    "model": Service("model", bases.REPO / "container" / "Dockerfile", "localhost/kokoro-tts"),
    "agent": Service("agent", bases.REPO / "agent" / "Dockerfile", "localhost/kokoro-voice-agent"),
}


def build(buildah: Buildah, service: Service, engine: str = "onnx") -> str:
    """The service's image built from its Dockerfile (the repository root as context); returns its tag.

    One build at a time per storage: a second waits, then finds the first one's layers in the cache (two at once
    would both make the same stand-in bases and run the same steps, each at half speed)."""
    buildah.root.mkdir(parents=True, exist_ok=True)
    with open(buildah.root / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        bases.ensure(buildah, bases.base_names(service.dockerfile))
        tag = service.tag(engine)
        buildah.build(service.dockerfile, bases.REPO, tag, service.build_args(engine))
    return tag


def run_command(
    buildah: Buildah, container: str, service: Service, port: int, env: Sequence[str], volumes: Sequence[str]
) -> list[str]:
    options = [f"--env={item}" for item in env] + [f"--volume={item}" for item in volumes]
    return buildah.command("run", "--isolation", "chroot", *options, container, "--", *service.command(port))


@contextlib.contextmanager
def container_of(buildah: Buildah, tag: str) -> Iterator[str]:
    """A working container of image ``tag``, removed on exit."""
    name = buildah.output("from", "--pull=never", "--name", f"kokoro-{os.getpid()}-{os.urandom(3).hex()}", tag)
    try:
        yield name
    finally:
        subprocess.run(buildah.command("rm", name), capture_output=True, stdin=subprocess.DEVNULL)


@contextlib.contextmanager
def serving(
    buildah: Buildah, tag: str, service: Service, port: int, env: Sequence[str] = (), volumes: Sequence[str] = ()
) -> Iterator[str]:
    """The image's service on 127.0.0.1:``port`` until ``/ping`` answers 200; yields its URL; stopped on exit.
    A container that exits or never gets ready raises :class:`kokoro_processes.errors.ServerFailed` with its log's
    tail."""
    with container_of(buildah, tag) as container:
        command = run_command(buildah, container, service, port, env, volumes)
        with ready_process(
            command,
            f"http://127.0.0.1:{port}",
            env=dict(os.environ),
            timeout_s=START_S,
            what=f"the {service.name} image",
        ) as url:
            yield url


def serve_until_stopped(
    buildah: Buildah, tag: str, service: Service, port: int, env: Sequence[str], volumes: Sequence[str]
) -> int:
    """The image's service in the foreground, its log on this terminal, until it exits (its exit code) or Ctrl-C
    (0: a stop that was asked for, docs/decisions/110-a-requested-stop-exits-0.md)."""
    with container_of(buildah, tag) as container:
        command = run_command(buildah, container, service, port, env, volumes)
        print(f"==> {tag} on http://127.0.0.1:{port} (Ctrl-C stops it)", flush=True)
        with children.running(command, grace_s=15) as proc:
            try:
                return proc.wait()
            except KeyboardInterrupt:
                return 0
