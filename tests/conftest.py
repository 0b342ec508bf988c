"""Shared fixtures: one real model server (int8 ONNX weights) for the whole test session."""

from __future__ import annotations

from typing import Iterator

import pytest
from hypothesis import HealthCheck, settings

# Property tests check correctness, never speed: no per-example deadline on a busy 2-core CI machine.
settings.register_profile("project", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("project")


@pytest.fixture(scope="session")
def model_server_url() -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT``) of a warm, real model server."""
    from servers import SERVER_START_S, model_server_process  # imported here: the Python 3.12 SDK run has no httpx

    # Lifted listener limit: these tests check behaviour, not capacity (tests/container/test_admission.py).
    with model_server_process("onnx", "--max-sessions", "64", timeout_s=SERVER_START_S) as url:
        yield url
