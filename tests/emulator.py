"""Start ``python -m kokoro_devtools.sagemaker_emulator`` in front of a container, for tests on real sockets."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kokoro_processes import children

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Emulator:
    endpoint_url: str  # https://127.0.0.1:PORT, the SDK's endpoint_uri
    ca_file: Path  # the throwaway CA: the client trusts it through SSL_CERT_FILE


@contextlib.contextmanager
def sagemaker_emulator(container_url: str, python: str = sys.executable) -> Iterator[Emulator]:
    """The emulator on a free loopback port, bridged to ``container_url``; stopped on exit."""
    with tempfile.TemporaryDirectory(prefix="emulator-") as folder:
        ca_file = Path(folder) / "ca.pem"
        command = [
            python,
            "-m",
            "kokoro_devtools.sagemaker_emulator",
            "--port",
            "0",
            "--container",
            container_url,
            "--ca-file",
            str(ca_file),
        ]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO / "devtools"), str(REPO), os.environ.get("PYTHONPATH", "")]),
        }
        with children.running(
            command, grace_s=15, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        ) as proc:
            banner = proc.stdout.readline()
            if "https://" not in banner:
                raise RuntimeError(f"the emulator did not start: {banner}{proc.stdout.read()}")
            url = banner.split()[2]
            yield Emulator(endpoint_url=url, ca_file=ca_file)


@contextlib.contextmanager
def agentcore_emulator(runtimes: dict[str, str], *options: str, python: str = sys.executable) -> Iterator[str]:
    """``python -m kokoro_devtools.agentcore_emulator`` on a free loopback port, each runtime ARN answered by the
    agent at its URL; yields the endpoint URL (for ``AWS_ENDPOINT_URL_BEDROCK_AGENTCORE``); stopped on exit.
    Callers sign with ``test``/``test`` unless ``options`` say otherwise."""
    command = [python, "-m", "kokoro_devtools.agentcore_emulator", "--port", "0", *options]
    for arn, url in runtimes.items():
        command += ["--runtime", f"{arn}={url}"]
    with children.running(command, grace_s=15, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        banner = proc.stdout.readline()
        if "http://" not in banner:
            raise RuntimeError(f"the AgentCore emulator did not start: {banner}{proc.stdout.read()}")
        yield banner.split()[2]


def agentcore_caller_env(endpoint: str) -> dict[str, str]:
    """A CLI's environment with boto3 pointed at the AgentCore emulator and its credentials, and no AWS setting or
    profile of the machine's."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    env |= {"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"}
    return env | {
        "AWS_ENDPOINT_URL_BEDROCK_AGENTCORE": endpoint,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
    }


@dataclass(frozen=True)
class Runtime:
    url: str  # http://127.0.0.1:PORT, for the AgentCore emulator's --runtime ARN=URL
    pid: int  # the command's: its child is the namespace's sandbox, whose child is the agent


@contextlib.contextmanager
def agentcore_runtime(template: Path, *settings: str) -> Iterator[Runtime]:
    """``python -m kokoro_devtools.agentcore_emulator.runtime``: the agent's bundle, built for this machine, run as
    ``template`` declares it with ``settings`` (``NAME=VALUE``) on top, once ``/ping`` answers. Its log (the
    bundling, the agent's) explains a failed start."""
    command = [sys.executable, "-m", "kokoro_devtools.agentcore_emulator.runtime", str(template), "--port", "0"]
    for setting in settings:
        command += ["-e", setting]
    with (
        tempfile.TemporaryFile(mode="w+") as log,
        children.running(command, grace_s=15, stdout=subprocess.PIPE, stderr=log, text=True) as proc,
    ):
        banner = proc.stdout.readline()
        if "http://" not in banner:
            proc.wait()
            log.seek(0)
            raise RuntimeError(f"the agent's runtime did not start: {banner}{log.read()[-3000:]}")
        yield Runtime(url=banner.split()[3], pid=proc.pid)


@contextlib.contextmanager
def local_aws(*options: str) -> Iterator[dict[str, str]]:
    """``python -m kokoro_devtools.local_aws`` on free ports (its SageMaker emulator's too); yields the variables of the ``export`` line it prints
    (moto and the AgentCore emulator as every AWS endpoint, its credentials), for a CLI's environment."""
    command = [sys.executable, "-m", "kokoro_devtools.local_aws", "--port", "0", "--agentcore-port", "0", *options]
    if "--model-server" in options and "--sagemaker-port" not in options:  # its default, 8443, is one for all
        command += ["--sagemaker-port", "0"]
    with (
        tempfile.TemporaryFile(mode="w+") as log,
        children.running(command, grace_s=15, stdout=subprocess.PIPE, stderr=log, text=True) as proc,
    ):
        banner, export = proc.stdout.readline(), proc.stdout.readline()
        if not export.startswith("export "):
            proc.wait()
            log.seek(0)
            raise RuntimeError(f"the local AWS did not start: {banner}{export}{log.read()[-3000:]}")
        yield dict(item.split("=", 1) for item in export.split()[1:])
