"""The model stack's template: endpoint, image, role, autoscaling and outputs, per settings variant."""

from __future__ import annotations

from stack_synth import ACCOUNT, MODEL_IMAGE, REGION, Synthesized, as_list, policy_statements, render


def only(build: Synthesized, resource_type: str) -> dict:
    resources = build.model.find_resources(resource_type)
    assert len(resources) == 1, f"expected one {resource_type}, found {len(resources)}"
    return next(iter(resources.values()))


def variant(build: Synthesized) -> dict:
    (production_variant,) = only(build, "AWS::SageMaker::EndpointConfig")["Properties"]["ProductionVariants"]
    return production_variant


def test_default_endpoint_runs_one_g5_with_a_startup_timeout_that_fits_model_load(default_build: Synthesized):
    model_id = next(iter(default_build.model.find_resources("AWS::SageMaker::Model")))
    assert variant(default_build) == {
        "VariantName": "AllTraffic",
        "ModelName": {"Fn::GetAtt": [model_id, "ModelName"]},
        "InstanceType": "ml.g5.xlarge",
        "InitialInstanceCount": 1,
        "InitialVariantWeight": 1,
        "ContainerStartupHealthCheckTimeoutInSeconds": 600,
    }
    default_build.model.has_resource_properties("AWS::SageMaker::Endpoint", {"EndpointName": "kokoro-tts"})


def test_g5_has_no_kms_key_because_sagemaker_rejects_one_on_local_nvme(default_build: Synthesized):
    assert "KmsKeyId" not in only(default_build, "AWS::SageMaker::EndpointConfig")["Properties"]
    default_build.model.resource_count_is("AWS::KMS::Key", 0)


def test_instance_without_local_storage_gets_a_rotating_kms_key(cpu_build: Synthesized):
    key_id = next(iter(cpu_build.model.find_resources("AWS::KMS::Key", {"Properties": {"EnableKeyRotation": True}})))
    config = only(cpu_build, "AWS::SageMaker::EndpointConfig")["Properties"]
    assert config["KmsKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    assert variant(cpu_build)["InstanceType"] == "ml.c7i.xlarge"
    assert variant(cpu_build)["InitialInstanceCount"] == 2


def test_default_image_is_built_from_container_for_amd64_with_the_torch_engine(default_build: Synthesized):
    (image,) = default_build.assets(default_build.settings.model_stack_name)["dockerImages"].values()
    assert image["source"]["platform"] == "linux/amd64"
    assert image["source"]["dockerBuildArgs"] == {"ENGINE": "torch"}
    assert image["source"]["dockerFile"] == "container/Dockerfile"
    staged = default_build.outdir / image["source"]["directory"]
    files = {str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file()}
    assert {"container/Dockerfile", "container/kokoro_server/server.py", "speech_protocol/pyproject.toml"} <= files
    assert all(f.startswith(("container/", "speech_protocol/")) for f in files)
    model = only(default_build, "AWS::SageMaker::Model")["Properties"]
    assert "container-assets" in render(model["PrimaryContainer"]["Image"])


def test_cpu_engine_builds_the_onnx_image(cpu_build: Synthesized):
    (image,) = cpu_build.assets(cpu_build.settings.model_stack_name)["dockerImages"].values()
    assert image["source"]["dockerBuildArgs"] == {"ENGINE": "onnx"}
    assert image["source"]["platform"] == "linux/amd64"


def test_image_uri_skips_the_build_and_is_pulled_from_its_own_repository(prebuilt_build: Synthesized):
    assert not prebuilt_build.assets("TtsStaging").get("dockerImages")
    model = only(prebuilt_build, "AWS::SageMaker::Model")["Properties"]
    assert model["PrimaryContainer"]["Image"] == MODEL_IMAGE
    pull = policy_statements(prebuilt_build.model)["PullImage"]
    assert render(pull["Resource"]) == f"arn:${{AWS::Partition}}:ecr:{REGION}:{ACCOUNT}:repository/kokoro-tts"


def test_model_is_network_isolated_and_speaks_the_configured_voice(default_build: Synthesized, cpu_build: Synthesized):
    """The GPU engine batches sessions' pieces (125-batched-synthesis.md); the CPU one speaks each alone."""
    gpu = {"KOKORO_VOICE": "af_heart", "KOKORO_MAX_BATCH": "16", "KOKORO_BATCH_WAIT_MS": "2"}
    for build, environment in ((default_build, gpu), (cpu_build, {"KOKORO_VOICE": "bf_emma"})):
        model = only(build, "AWS::SageMaker::Model")["Properties"]
        assert model["EnableNetworkIsolation"] is True
        assert model["PrimaryContainer"]["Environment"] == environment


def test_execution_role_holds_exactly_pull_logs_and_metrics(default_build: Synthesized):
    role = only(default_build, "AWS::IAM::Role")["Properties"]
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    assert "ManagedPolicyArns" not in role
    statements = policy_statements(default_build.model)
    assert set(statements) == {"PullImage", "EcrLogin", "EndpointLogs", "EndpointMetrics"}
    pull = statements["PullImage"]
    assert pull["Action"] == ["ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage"]
    assert "container-assets" in render(pull["Resource"])  # the asset's repository, not "*"
    assert (statements["EcrLogin"]["Action"], statements["EcrLogin"]["Resource"]) == ("ecr:GetAuthorizationToken", "*")
    logs = statements["EndpointLogs"]
    assert logs["Action"] == [
        "logs:CreateLogGroup",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "logs:DescribeLogStreams",
    ]
    group = f"arn:${{AWS::Partition}}:logs:{REGION}:${{AWS::AccountId}}:log-group:/aws/sagemaker/Endpoints/kokoro-tts"
    assert [render(r) for r in as_list(logs["Resource"])] == [group, f"{group}:log-stream:*"]
    metrics = statements["EndpointMetrics"]
    assert (metrics["Action"], metrics["Resource"]) == ("cloudwatch:PutMetricData", "*")
    assert metrics["Condition"] == {"StringLike": {"cloudwatch:namespace": "/aws/sagemaker/*"}}


def test_model_waits_for_the_pull_policy(default_build: Synthesized):
    (policy_id,) = default_build.model.find_resources("AWS::IAM::Policy")
    assert only(default_build, "AWS::SageMaker::Model")["DependsOn"] == [policy_id]


def test_autoscaling_tracks_concurrent_sessions_between_the_bounds(default_build: Synthesized, cpu_build: Synthesized):
    for build, (low, high, target) in ((default_build, (1, 2, 4)), (cpu_build, (1, 4, 8))):
        scalable = only(build, "AWS::ApplicationAutoScaling::ScalableTarget")["Properties"]
        assert (scalable["MinCapacity"], scalable["MaxCapacity"]) == (low, high)
        assert scalable["ScalableDimension"] == "sagemaker:variant:DesiredInstanceCount"
        endpoint_id = next(iter(build.model.find_resources("AWS::SageMaker::Endpoint")))
        assert render(scalable["ResourceId"]) == f"endpoint/${{{endpoint_id}.EndpointName}}/variant/AllTraffic"
        assert "RoleARN" not in scalable  # the service-linked role, not an empty custom one
        tracking = only(build, "AWS::ApplicationAutoScaling::ScalingPolicy")["Properties"]
        config = tracking["TargetTrackingScalingPolicyConfiguration"]
        assert config["PredefinedMetricSpecification"] == {
            "PredefinedMetricType": "SageMakerVariantConcurrentRequestsPerModelHighResolution"
        }
        assert config["TargetValue"] == target
        assert (config["ScaleOutCooldown"], config["ScaleInCooldown"]) == (60, 600)


def test_outputs_are_the_endpoint_name_and_arn_and_are_not_exported(default_build: Synthesized):
    endpoint_id = next(iter(default_build.model.find_resources("AWS::SageMaker::Endpoint")))
    outputs = default_build.model.find_outputs("*")
    assert outputs == {
        "EndpointName": {"Value": {"Fn::GetAtt": [endpoint_id, "EndpointName"]}},
        "EndpointArn": {"Value": {"Ref": endpoint_id}},
    }


def test_stack_names_come_from_the_settings(prebuilt_build: Synthesized):
    assert prebuilt_build.template_path("TtsStaging").is_file()
    assert prebuilt_build.template_path("AgentStaging").is_file()
