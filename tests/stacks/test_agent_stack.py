"""The agent stack's template: runtime, artifact per mode, environment, IAM statements, outputs."""

from __future__ import annotations

import json

from stack_synth import ACCOUNT, AGENT_IMAGE, REGION, REPO_ROOT, Synthesized, as_list, policy_statements, render

PROFILE_MODEL = "anthropic.claude-haiku-4-5-20251001-v1:0"
L2_STATEMENTS = {
    "LogGroupAccess",
    "DescribeLogGroups",
    "LogStreamAccess",
    "XRayAccess",
    "CloudWatchMetrics",
    "GetAgentAccessToken",
}


def runtime(build: Synthesized) -> dict:
    (resource,) = build.agent.find_resources("AWS::BedrockAgentCore::Runtime").values()
    return resource


def actions_by_service(build: Synthesized, service: str) -> dict[str, list[str]]:
    """Sid -> actions of ``service`` it allows: proves no other statement grants that service."""
    found = {}
    for sid, statement in policy_statements(build.agent).items():
        actions = [a for a in as_list(statement["Action"]) if a.startswith(f"{service}:")]
        if actions:
            found[sid] = actions
    return found


def test_default_runtime_runs_the_bundled_code_on_python_3_12(default_build: Synthesized):
    properties = runtime(default_build)["Properties"]
    assert properties["AgentRuntimeName"] == "kokoro_voice_agent"
    code = properties["AgentRuntimeArtifact"]["CodeConfiguration"]
    assert (code["Runtime"], code["EntryPoint"]) == ("PYTHON_3_12", ["main.py"])
    (asset_hash, asset) = next(
        (h, a)
        for h, a in default_build.assets("KokoroVoiceAgent")["files"].items()
        if a["source"]["packaging"] == "zip"
    )
    assert code["Code"]["S3"]["Prefix"] == f"{asset_hash}.zip"
    assert asset["source"]["path"] == str(REPO_ROOT / "agent")  # bundling skipped here: see test_agent_bundle


def test_runtime_environment_points_the_agent_at_the_endpoint_and_the_model(
    default_build: Synthesized, cpu_build: Synthesized
):
    assert runtime(default_build)["Properties"]["EnvironmentVariables"] == {
        "TTS_TRANSPORT": "sagemaker",
        "TTS_ENDPOINT_NAME": "kokoro-tts",
        "TTS_REGION": REGION,
        "TTS_VOICE": "af_heart",
        "LLM_PROVIDER": "bedrock",
        "LLM_MODEL_ID": f"global.{PROFILE_MODEL}",
    }
    environment = runtime(cpu_build)["Properties"]["EnvironmentVariables"]
    assert (environment["TTS_ENDPOINT_NAME"], environment["TTS_VOICE"]) == ("Kokoro-CPU", "bf_emma")
    assert environment["LLM_MODEL_ID"] == "amazon.nova-lite-v1:0"


def test_origins_are_checked_only_when_the_operator_names_some(default_build: Synthesized, prebuilt_build: Synthesized):
    assert "AGENT_ALLOWED_ORIGINS" not in runtime(default_build)["Properties"]["EnvironmentVariables"]
    environment = runtime(prebuilt_build)["Properties"]["EnvironmentVariables"]
    assert environment["AGENT_ALLOWED_ORIGINS"] == "http://127.0.0.1:8000 https://app.example"


def test_tts_permission_is_both_invoke_actions_on_exactly_the_endpoint(
    default_build: Synthesized, cpu_build: Synthesized
):
    for build, account, name in (
        (default_build, "${AWS::AccountId}", "kokoro-tts"),
        (cpu_build, ACCOUNT, "kokoro-cpu"),
    ):
        assert actions_by_service(build, "sagemaker") == {
            "InvokeTtsEndpoint": ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithBidirectionalStream"]
        }
        statement = policy_statements(build.agent)["InvokeTtsEndpoint"]
        # SageMaker writes endpoint names in lower case in ARNs.
        assert render(statement["Resource"]) == f"arn:${{AWS::Partition}}:sagemaker:{REGION}:{account}:endpoint/{name}"


def test_runtime_is_created_after_its_tts_policy(default_build: Synthesized):
    (tts_policy,) = default_build.agent.find_resources(
        "AWS::IAM::Policy", {"Properties": {"PolicyDocument": {"Statement": [{"Sid": "InvokeTtsEndpoint"}]}}}
    )
    assert tts_policy in runtime(default_build)["DependsOn"]


def test_global_profile_grants_the_profile_and_the_model_only_through_it(default_build: Synthesized):
    assert actions_by_service(default_build, "bedrock") == {
        "InvokeInferenceProfile": ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"],
        "InvokeModelThroughProfile": ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"],
    }
    statements = policy_statements(default_build.agent)
    profile = f"arn:${{AWS::Partition}}:bedrock:{REGION}:${{AWS::AccountId}}:inference-profile/global.{PROFILE_MODEL}"
    assert render(statements["InvokeInferenceProfile"]["Resource"]) == profile
    through = statements["InvokeModelThroughProfile"]
    assert [render(r) for r in through["Resource"]] == [
        f"arn:${{AWS::Partition}}:bedrock:*::foundation-model/{PROFILE_MODEL}",
        f"arn:${{AWS::Partition}}:bedrock:::foundation-model/{PROFILE_MODEL}",
    ]
    assert render(through["Condition"]["StringEquals"]["bedrock:InferenceProfileArn"]) == profile


def test_geographic_profile_needs_no_regionless_model_arn(prebuilt_build: Synthesized):
    statements = policy_statements(prebuilt_build.agent)
    assert render(statements["InvokeInferenceProfile"]["Resource"]).endswith(
        ":inference-profile/us.amazon.nova-pro-v1:0"
    )
    assert [render(r) for r in as_list(statements["InvokeModelThroughProfile"]["Resource"])] == [
        "arn:${AWS::Partition}:bedrock:*::foundation-model/amazon.nova-pro-v1:0"
    ]


def test_plain_model_id_grants_that_model_in_this_region_only(cpu_build: Synthesized):
    assert set(actions_by_service(cpu_build, "bedrock")) == {"InvokeModel"}
    statement = policy_statements(cpu_build.agent)["InvokeModel"]
    assert (
        render(statement["Resource"])
        == f"arn:${{AWS::Partition}}:bedrock:{REGION}::foundation-model/amazon.nova-lite-v1:0"
    )
    assert "Condition" not in statement


def test_role_keeps_the_l2_statements_and_no_managed_policy(default_build: Synthesized):
    statements = policy_statements(default_build.agent)
    assert L2_STATEMENTS <= set(statements)
    for role in default_build.agent.find_resources("AWS::IAM::Role").values():
        assert "ManagedPolicyArns" not in role["Properties"]


def test_container_artifact_builds_an_arm64_image_from_a_narrow_context(cpu_build: Synthesized):
    (image,) = cpu_build.assets("KokoroVoiceAgent")["dockerImages"].values()
    assert image["source"]["platform"] == "linux/arm64"
    assert image["source"]["dockerFile"] == "agent/Dockerfile"
    staged = cpu_build.outdir / image["source"]["directory"]
    files = {str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file()}
    assert {"agent/Dockerfile", "speech_protocol/speech_protocol/framing.py", "agent/main.py"} <= files
    assert all(f.startswith(("agent/", "speech_protocol/")) for f in files)
    assert not any("__pycache__" in f for f in files)
    assert "container-assets" in render(
        runtime(cpu_build)["Properties"]["AgentRuntimeArtifact"]["ContainerConfiguration"]["ContainerUri"]
    )


def test_image_uri_artifact_is_pulled_from_exactly_its_repository(prebuilt_build: Synthesized):
    artifact = runtime(prebuilt_build)["Properties"]["AgentRuntimeArtifact"]
    assert artifact == {"ContainerConfiguration": {"ContainerUri": AGENT_IMAGE}}
    assert runtime(prebuilt_build)["Properties"]["AgentRuntimeName"] == "voice_agent_staging"
    pull = policy_statements(prebuilt_build.agent)["PullImage"]
    assert render(pull["Resource"]) == f"arn:${{AWS::Partition}}:ecr:{REGION}:{ACCOUNT}:repository/kokoro/agent"


def test_outputs_are_the_runtime_arn_and_id(default_build: Synthesized):
    runtime_id = next(iter(default_build.agent.find_resources("AWS::BedrockAgentCore::Runtime")))
    assert default_build.agent.find_outputs("*") == {
        "RuntimeArn": {"Value": {"Fn::GetAtt": [runtime_id, "AgentRuntimeArn"]}},
        "RuntimeId": {"Value": {"Fn::GetAtt": [runtime_id, "AgentRuntimeId"]}},
    }


def test_agent_stack_stands_alone(default_build: Synthesized):
    """No import of the model stack's outputs: either stack can be updated or deployed on its own."""
    text = default_build.template_path("KokoroVoiceAgent").read_text()
    assert "Fn::ImportValue" not in text
    assert "Export" not in json.dumps(default_build.model.find_outputs("*"))
