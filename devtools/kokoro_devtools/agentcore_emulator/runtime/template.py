"""The runtime a synthesized template declares (``AWS::BedrockAgentCore::Runtime``): what AgentCore would start.

Only a code bundle can run here this way; a runtime made from a container image is the images' business
(``python -m kokoro_devtools.images run agent``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUNTIME_TYPE = "AWS::BedrockAgentCore::Runtime"
_PYTHON = re.compile(r"PYTHON_(\d+)_(\d+)")


class TemplateError(ValueError):
    """The template declares no runtime that can be run here; the message says why and what to do."""


@dataclass(frozen=True)
class CodeRuntime:
    name: str
    entrypoint: tuple[str, ...]  # the files AgentCore runs with the runtime's Python, in the bundle's folder
    python: tuple[int, int]
    environment: dict[str, str]


def read_runtime(
    template: Path, region: str, name: str | None = None, overrides: dict[str, str] | None = None
) -> CodeRuntime:
    """The runtime called ``name`` (or the only one) in ``template``: :func:`code_runtime` of its properties."""
    try:
        document = json.loads(template.read_text())
    except (OSError, ValueError) as err:
        raise TemplateError(f"cannot read the template {template}: {err}") from None
    resources = document.get("Resources") if isinstance(document, dict) else None
    runtimes = [
        resource.get("Properties", {})
        for resource in (resources.values() if isinstance(resources, dict) else ())
        if isinstance(resource, dict) and resource.get("Type") == RUNTIME_TYPE
    ]
    names = [str(properties.get("AgentRuntimeName")) for properties in runtimes]
    if not runtimes:
        raise TemplateError(f"{template} declares no {RUNTIME_TYPE}: give the agent stack's template")
    if name is None and len(runtimes) > 1:
        raise TemplateError(f"{template} declares several runtimes ({', '.join(names)}): name one with --name")
    if name is not None and name not in names:
        raise TemplateError(f"{template} declares no runtime {name} (it declares {', '.join(names)})")
    return code_runtime(runtimes[names.index(name) if name is not None else 0], region, overrides)


def code_runtime(properties: dict[str, Any], region: str, overrides: dict[str, str] | None = None) -> CodeRuntime:
    """The runtime of a resource's ``Properties`` (from a template, or as CloudFormation resolved them), its
    environment updated by ``overrides``; ``{"Ref": "AWS::Region"}`` is ``region``, any other value made at
    deployment must be overridden."""
    name = str(properties.get("AgentRuntimeName"))
    code = properties.get("AgentRuntimeArtifact", {}).get("CodeConfiguration")
    if not isinstance(code, dict):
        raise TemplateError(
            f"the runtime {name} runs a container image, not a code bundle: "
            "run that with python -m kokoro_devtools.images run agent"
        )
    python = _PYTHON.fullmatch(str(code.get("Runtime")))
    entrypoint = code.get("EntryPoint")
    if python is None or not (
        isinstance(entrypoint, list) and entrypoint and all(isinstance(e, str) for e in entrypoint)
    ):
        raise TemplateError(f"the runtime's code configuration is not a Python entry point: {json.dumps(code)[:300]}")
    overrides = overrides or {}
    declared = properties.get("EnvironmentVariables") or {}
    environment = {
        variable: _literal(variable, value, region) for variable, value in declared.items() if variable not in overrides
    }
    return CodeRuntime(name, tuple(entrypoint), (int(python[1]), int(python[2])), environment | overrides)


def _literal(variable: str, value: Any, region: str) -> str:
    if isinstance(value, str):
        return value
    if value == {"Ref": "AWS::Region"}:
        return region
    raise TemplateError(
        f"the variable {variable} is set from the stack at deployment ({json.dumps(value)[:200]}): give its value "
        f"with -e {variable}=VALUE"
    )
