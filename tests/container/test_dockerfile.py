"""The image's contract, checked statically (no Docker engine here): label, port, serve, pinned weights."""

from __future__ import annotations

import os
import re
from pathlib import Path

from kokoro_server import assets as model_assets

CONTAINER = Path(__file__).resolve().parents[2] / "container"
DOCKERFILE = (CONTAINER / "Dockerfile").read_text()


def test_bidirectional_streaming_label():
    assert "LABEL com.amazonaws.sagemaker.capabilities.bidirectional-streaming=true" in DOCKERFILE


def test_port_and_serve_entry():
    assert re.search(r"^EXPOSE 8080$", DOCKERFILE, re.M)
    assert 'CMD ["serve"]' in DOCKERFILE and "COPY container/serve /usr/local/bin/serve" in DOCKERFILE
    serve = CONTAINER / "serve"
    assert os.access(serve, os.X_OK)
    assert "--host 0.0.0.0 --port 8080" in serve.read_text()


def test_every_stage_is_amd64_and_engine_selectable():
    froms = re.findall(r"^FROM (.+)$", DOCKERFILE, re.M)
    stages = set(re.findall(r"^FROM .+ AS (\S+)$", DOCKERFILE, re.M)) | {"engine-${ENGINE}"}
    external = [f for f in froms if f.split(" AS ")[0].split()[-1] not in stages]
    assert external and all("--platform=linux/amd64" in f for f in external)
    assert "ARG ENGINE=torch" in DOCKERFILE and "AS engine-torch" in DOCKERFILE and "AS engine-onnx" in DOCKERFILE


def test_weights_pinned_by_revision_and_sha256():
    revision = re.search(r"ARG KOKORO_REVISION=([0-9a-f]+)", DOCKERFILE).group(1)
    assert len(revision) == 40
    assert f"--checksum=sha256:{model_assets.TORCH_SHA256}" in DOCKERFILE
    assert "resolve/${KOKORO_REVISION}/kokoro-v1_0.pth" in DOCKERFILE
    assert model_assets.manifest()["voices_npm"]["tarball_sha256"] in DOCKERFILE


def test_the_session_protocol_is_installed_not_copied():
    """The build context is the repository root; the image pip-installs the shared package."""
    assert re.search(r"^RUN pip install /tmp/speech_protocol", DOCKERFILE, re.M)
    assert "protocol.py" not in DOCKERFILE
    ignored = (CONTAINER / "Dockerfile.dockerignore").read_text().splitlines()
    assert ignored[ignored.index("*") :][:3] == ["*", "!container/", "!speech_protocol/"]


def test_runtime_is_offline_and_healthchecked():
    assert "HF_HUB_OFFLINE=1" in DOCKERFILE and "HEALTHCHECK" in DOCKERFILE and "/ping" in DOCKERFILE


def test_requirements_are_pinned_and_torch_free():
    lines = [line.split("#")[0].strip() for line in (CONTAINER / "requirements.txt").read_text().splitlines()]
    reqs = [line for line in lines if line]
    assert reqs and all("==" in r for r in reqs)
    assert not any(r.startswith(("torch", "kokoro==", "misaki[")) for r in reqs)
