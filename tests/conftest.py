"""Shared fixtures: one real model server (int8 ONNX weights) for the whole test session."""

from __future__ import annotations

from typing import Iterator

import pytest

from servers import model_server


@pytest.fixture(scope="session")
def model_server_url() -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT``) of a warm, real model server."""
    with model_server() as (url, _proc):
        yield url
