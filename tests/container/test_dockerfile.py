"""The image's contract, checked statically (no Docker engine here): label, port, serve, pinned weights.

The checks read the Dockerfile's instructions, never its text: a comment that names a setting (the header
says ``HF_HUB_OFFLINE=1``) must not stand in for the instruction that sets it.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import NamedTuple

import pytest

from kokoro_server import assets as model_assets

CONTAINER = Path(__file__).resolve().parents[2] / "container"


class Instruction(NamedTuple):
    keyword: str  # upper case: FROM, ENV, RUN, ...
    arguments: str  # continuation lines joined with a space, comment lines inside them dropped


def instructions(text: str) -> list[Instruction]:
    """A Dockerfile's instructions as BuildKit reads them: a line starting with ``#`` is a comment (a parser
    directive included), also between the continued lines of one instruction; a ``\\`` at a line's end
    continues the instruction on the next line."""
    found: list[Instruction] = []
    pending: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        continued = stripped.endswith("\\")
        pending.append(stripped.removesuffix("\\").strip())
        if not continued:
            keyword, _, arguments = " ".join(pending).partition(" ")
            found.append(Instruction(keyword.upper(), arguments.strip()))
            pending = []
    assert not pending, f"the Dockerfile ends inside a continued instruction: {pending}"
    return found


INSTRUCTIONS = instructions((CONTAINER / "Dockerfile").read_text())


def arguments(keyword: str) -> list[str]:
    return [i.arguments for i in INSTRUCTIONS if i.keyword == keyword]


def image(engine: str) -> list[Instruction]:
    """The instructions of the image built with ``--build-arg ENGINE=engine``: its last stage, after the
    stages it is built on."""
    stages: dict[str, list[Instruction]] = {}
    current: list[Instruction] = []
    for instruction in INSTRUCTIONS:
        if instruction.keyword == "FROM":
            source, _, name = instruction.arguments.replace("${ENGINE}", engine).partition(" AS ")
            current = [*stages.get(source.split()[-1], [])]
            if name:
                stages[name] = current
        current.append(instruction)
    return current


def environment(stage: list[Instruction]) -> dict[str, str]:
    """What the ENV instructions of a stage set, in the ``KEY=value ...`` form."""
    env: dict[str, str] = {}
    for instruction in stage:
        if instruction.keyword == "ENV":
            env.update(pair.split("=", 1) for pair in shlex.split(instruction.arguments))
    return env


def test_the_reader_skips_comments_and_joins_continued_lines():
    read = instructions("# ENV A=1\nENV B=2 \\\n# HEALTHCHECK CMD /ping\n    C=3\nrun echo \\\n  hi\n")
    assert read == [Instruction("ENV", "B=2 C=3"), Instruction("RUN", "echo hi")]


def test_bidirectional_streaming_label():
    assert "com.amazonaws.sagemaker.capabilities.bidirectional-streaming=true" in arguments("LABEL")


def test_port_and_serve_entry():
    assert arguments("EXPOSE") == ["8080"]
    assert arguments("CMD") == ['["serve"]'] and "container/serve /usr/local/bin/serve" in arguments("COPY")
    serve = CONTAINER / "serve"
    assert os.access(serve, os.X_OK)
    assert "--host 0.0.0.0 --port 8080" in serve.read_text()


def test_every_stage_is_amd64_and_engine_selectable():
    froms = arguments("FROM")
    stages = {f.split()[-1] for f in froms if " AS " in f} | {"engine-${ENGINE}"}
    external = [f for f in froms if f.split(" AS ")[0].split()[-1] not in stages]
    assert external and all(f.startswith("--platform=linux/amd64 ") for f in external)
    assert "ENGINE=torch" in arguments("ARG")
    assert {"base AS engine-torch", "base AS engine-onnx", "engine-${ENGINE}"} <= set(froms)


def test_weights_pinned_by_revision_and_sha256():
    revision = next(a.split("=", 1)[1] for a in arguments("ARG") if a.startswith("KOKORO_REVISION="))
    assert re.fullmatch(r"[0-9a-f]{40}", revision)
    weights = f"--checksum=sha256:{model_assets.TORCH_SHA256} "
    assert any(a.startswith(weights) and "/resolve/${KOKORO_REVISION}/kokoro-v1_0.pth " in a for a in arguments("ADD"))
    assert any(model_assets.manifest()["voices_npm"]["tarball_sha256"] in a for a in arguments("RUN"))


def test_the_session_protocol_is_installed_not_copied():
    """The build context is the repository root; the image pip-installs the shared package."""
    assert any(a.startswith("pip install /tmp/speech_protocol") for a in arguments("RUN"))
    assert not any("protocol.py" in i.arguments for i in INSTRUCTIONS)
    ignored = (CONTAINER / "Dockerfile.dockerignore").read_text().splitlines()
    assert ignored[ignored.index("*") :][:3] == ["*", "!container/", "!speech_protocol/"]


@pytest.mark.parametrize("engine", ["torch", "onnx"])
def test_runtime_is_offline_and_healthchecked(engine: str):
    """Either image has HF_HUB_OFFLINE=1 in its environment and one HEALTHCHECK, a command that asks /ping."""
    built = image(engine)
    assert environment(built).get("HF_HUB_OFFLINE") == "1"
    checks = [i.arguments for i in built if i.keyword == "HEALTHCHECK"]
    assert len(checks) == 1 and re.match(r"(--\S+ )*CMD .*'http://127\.0\.0\.1:8080/ping'", checks[0])


def test_requirements_are_pinned_and_torch_free():
    lines = [line.split("#")[0].strip() for line in (CONTAINER / "requirements.txt").read_text().splitlines()]
    reqs = [line for line in lines if line]
    assert reqs and all("==" in r for r in reqs)
    assert not any(r.startswith(("torch", "kokoro==", "misaki[")) for r in reqs)


@pytest.mark.parametrize("engine", ["torch", "onnx"])
def test_every_language_is_installed_and_read_at_build_time(engine: str):
    """Either image installs the Japanese and Mandarin G2P with the dictionaries in their wheels (unidic-lite,
    pyopenjtalk-plus; never unidic, whose dictionary is a download) and reads a sentence in every language
    after the code is in place, so a missing one fails the build."""
    reqs = {line.split("==")[0] for line in (CONTAINER / "requirements.txt").read_text().splitlines() if "==" in line}
    assert {"fugashi", "unidic-lite", "pyopenjtalk-plus", "jieba", "pypinyin", "cn2an"} <= reqs and "unidic" not in reqs
    built = image(engine)
    copied = next(n for n, i in enumerate(built) if i.keyword == "COPY" and "kokoro_server" in i.arguments)
    check = next(
        n for n, i in enumerate(built) if i.keyword == "RUN" and i.arguments == "python -m kokoro_server.text.languages"
    )
    assert copied < check
