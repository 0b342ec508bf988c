"""Synthesize the real app in-process (cdk-nag included) and hand tests its templates and asset manifests.

Agent bundling is skipped (``aws:cdk:bundling-stacks`` = []) unless a test asks for it: it needs PyPI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aws_cdk import App
from aws_cdk.assertions import Template

from kokoro_stacks.deployment import build_app
from kokoro_stacks.project import ProjectPaths
from kokoro_stacks.settings.deploy_settings import DeploySettings, parse_settings

REPO_ROOT = Path(__file__).resolve().parents[2]
REGION = "eu-west-1"
ACCOUNT = "111122223333"
MODEL_IMAGE = f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/kokoro-tts:onnx-1"
AGENT_IMAGE = f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/kokoro/agent@sha256:{'ab' * 32}"


@dataclass(frozen=True)
class Synthesized:
    settings: DeploySettings
    model: Template
    agent: Template
    outdir: Path

    def assets(self, stack_name: str) -> dict[str, Any]:
        return json.loads((self.outdir / f"{stack_name}.assets.json").read_text())

    def template_path(self, stack_name: str) -> Path:
        return self.outdir / f"{stack_name}.template.json"


def synthesize(
    context: dict[str, str], outdir: Path, *, paths: ProjectPaths | None = None, bundle: bool = False
) -> Synthesized:
    settings = parse_settings(context, fallback_region=REGION)
    cdk_context: dict[str, Any] = dict(context)
    if not bundle:
        cdk_context["aws:cdk:bundling-stacks"] = []
    app = App(context=cdk_context, outdir=str(outdir))
    model, agent = build_app(app, settings, paths or ProjectPaths(REPO_ROOT))
    assembly = app.synth()
    return Synthesized(
        settings,
        Template.from_json(assembly.get_stack_artifact(model.artifact_id).template),
        Template.from_json(assembly.get_stack_artifact(agent.artifact_id).template),
        outdir,
    )


def policy_statements(template: Template) -> dict[str, dict[str, Any]]:
    """Every IAM policy statement of a template by its Sid (the L2's and ours all carry one)."""
    statements: dict[str, dict[str, Any]] = {}
    for policy in template.find_resources("AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            statements[statement.get("Sid", json.dumps(statement["Action"]))] = statement
    return statements


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def render(value: Any) -> str:
    """A CloudFormation value as text, references written ``${AWS::Region}``: easy to compare."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        return "${{{}}}".format(value["Ref"])
    if "Fn::Sub" in value:
        return value["Fn::Sub"]
    if "Fn::GetAtt" in value:
        return "${{{}.{}}}".format(*tuple(value["Fn::GetAtt"]))
    separator, parts = value["Fn::Join"]
    return separator.join(render(part) for part in parts)
