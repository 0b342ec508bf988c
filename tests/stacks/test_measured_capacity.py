"""The autoscaling target defaults to the capacity the benchmark measured for the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stack_synth import synthesize

from kokoro_stacks.settings.deploy_settings import parse_settings
from kokoro_stacks.settings.measured_capacity import DEFAULT_SESSIONS, MEASURED, measured_sessions


def test_each_engine_gets_its_measured_capacity_or_the_default() -> None:
    recorded = json.loads(MEASURED.read_text(encoding="utf-8"))
    for engine in ("onnx", "torch"):
        expected = (recorded.get(engine) or {}).get("sessions") or DEFAULT_SESSIONS
        assert parse_settings({"engine": engine}).sessions_per_instance == expected
    assert parse_settings({"engine": "onnx", "sessions_per_instance": "7"}).sessions_per_instance == 7


@pytest.mark.parametrize(
    "content", ["not json", "[]", '{"onnx": {"sessions": 0}}', '{"onnx": {"sessions": true}}', '{"onnx": "many"}']
)
def test_an_unreadable_or_odd_record_falls_back_to_the_default(tmp_path: Path, content: str) -> None:
    path = tmp_path / "measured.json"
    path.write_text(content, encoding="utf-8")
    assert measured_sessions("onnx", path) == DEFAULT_SESSIONS
    assert measured_sessions("onnx", tmp_path / "absent.json") == DEFAULT_SESSIONS


def test_a_cpu_endpoint_on_c7i_scales_on_its_measured_capacity(tmp_path: Path) -> None:
    build = synthesize({"engine": "onnx", "instance_type": "ml.c7i.xlarge"}, tmp_path)
    config = build.model.find_resources("AWS::SageMaker::EndpointConfig")
    assert next(iter(config.values()))["Properties"]["ProductionVariants"][0]["InstanceType"] == "ml.c7i.xlarge"
    policy = next(iter(build.model.find_resources("AWS::ApplicationAutoScaling::ScalingPolicy").values()))
    target = policy["Properties"]["TargetTrackingScalingPolicyConfiguration"]["TargetValue"]
    assert target == measured_sessions("onnx")
