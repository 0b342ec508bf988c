"""Fixtures for the CLI tests: a moto server standing in for AWS, and an environment with no AWS at all
(tests/cli/aws_env.py; the tests import it from there, as ``conftest`` is whichever conftest came last)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from aws_env import AWS_VARS, NO_AWS
from servers import SERVER_START_S, free_port, wait_ready


@pytest.fixture
def no_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in AWS_VARS:
        monkeypatch.delenv(key, raising=False)
    for key, value in NO_AWS.items():
        monkeypatch.setenv(key, value)


@pytest.fixture(scope="session")
def moto_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real moto server on a loopback port: AWS's APIs, answered locally. Ready when it answers; its
    start is waited for as long as a model server's (a loaded machine imports moto slowly), and a moto that
    exits or never answers fails the tests that need it, with its output. That output goes to a file: an
    unread pipe fills with moto's request log and freezes it mid-deploy."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("moto") / "moto.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            cwd=log_path.parent,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(f"{url}/moto-api/", proc, timeout=SERVER_START_S, log=log_path)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=15)


@pytest.fixture
def moto_env(moto_url: str, no_aws: None, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point boto3 at the moto server with throwaway credentials."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    return moto_url
