"""The SageMaker real-time endpoint serving Kokoro: execution role, model, endpoint config, endpoint.

The endpoint keeps the name from the settings (the agent stack finds it by that name); the model and
the endpoint config get generated names, so CloudFormation can replace them on change and then update
the endpoint in place.

Encryption at rest of the endpoint's instances: a customer-managed key, unless SageMaker forbids one.
Instance types with local NVMe storage encrypt it in hardware, and CreateEndpointConfig rejects a
``KmsKeyId`` for them (SageMaker API reference); every other instance type gets a rotating KMS key.
"""

from __future__ import annotations

import re

from aws_cdk import Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

from kokoro_server.environment import ServerEnvironment
from kokoro_stacks.model.image import ModelImage
from kokoro_stacks.settings.deploy_settings import DeploySettings
from kokoro_stacks.template_checks import acknowledge, wildcard_resource
from speech_protocol.environment import pinned

VARIANT_NAME = "AllTraffic"
# Model load (weights, G2P, warm-up) happens before /ping turns green
# (001-sagemaker-container-contract.md); a GPU image pulls several GB first. 600 s is the common
# setting for such containers.
STARTUP_HEALTH_CHECK_TIMEOUT_S = 600
# The GPU engine speaks several sessions' pieces in one forward pass (125-batched-synthesis.md). Not yet
# measured on a GPU (bench/gpu_batching.sh measures them): the ONNX/CPU engine keeps batch 1.
GPU_BATCHING = {"max_batch": 16, "batch_wait_ms": 2.0}
# EC2 marks local NVMe storage with a "d" attribute (g4dn, p4d, c5d, m6id); these families have it
# without the letter.
_NVME_FAMILIES = frozenset({"g5", "g6", "g6e", "gr6", "p5", "p5e", "p5en", "trn1", "trn1n", "trn2"})


def has_local_nvme(instance_type: str) -> bool:
    """``ml.g5.xlarge`` -> True; ``ml.c7i.xlarge`` -> False."""
    family = instance_type.split(".")[1]
    attributes = re.sub(r"^[a-z]+\d+", "", family)
    return family in _NVME_FAMILIES or "d" in attributes


def container_environment(settings: DeploySettings) -> dict[str, str]:
    """The server's variables the endpoint sets, named and written by the server's own
    :class:`~kokoro_server.environment.ServerEnvironment`: the voice, and batching for the GPU engine."""
    batching = GPU_BATCHING if settings.engine == "torch" else {}
    return pinned(ServerEnvironment, voice=settings.voice, **batching)


def volume_key(scope: Construct, instance_type: str, endpoint_name: str) -> kms.Key | None:
    if has_local_nvme(instance_type):
        return None
    return kms.Key(scope, "VolumeKey", enable_key_rotation=True, description=f"{endpoint_name} instance volumes")


class ModelEndpoint(Construct):
    def __init__(self, scope: Construct, id: str, *, settings: DeploySettings, image: ModelImage):
        super().__init__(scope, id)
        self.role = iam.Role(
            self,
            "ExecutionRole",
            assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"),
            description=f"Runs the {settings.endpoint_name} model container: image pull, its logs, metrics",
        )
        pull_policy = image.grant_pull(self.role)
        self._grant_logs_and_metrics(settings.endpoint_name)

        self.model = sagemaker.CfnModel(
            self,
            "Model",
            execution_role_arn=self.role.role_arn,
            primary_container=sagemaker.CfnModel.ContainerDefinitionProperty(
                image=image.image_uri,
                environment=container_environment(settings),
            ),
            # The image carries its weights and voices; the server never needs the network.
            enable_network_isolation=True,
        )
        if pull_policy is not None:
            self.model.node.add_dependency(pull_policy)  # SageMaker checks image access at CreateModel
        acknowledge(
            self.model,
            {
                "AwsSolutions-SM1": "Network isolation blocks all outbound traffic from the container, which is "
                "stricter than a VPC and needs no NAT gateway or VPC endpoints; callers reach it only via SageMaker.",
            },
        )

        self.volume_key = volume_key(self, settings.instance_type, settings.endpoint_name)
        self.config = sagemaker.CfnEndpointConfig(
            self,
            "Config",
            kms_key_id=self.volume_key.key_arn if self.volume_key else None,
            production_variants=[
                sagemaker.CfnEndpointConfig.ProductionVariantProperty(
                    variant_name=VARIANT_NAME,
                    model_name=self.model.attr_model_name,
                    instance_type=settings.instance_type,
                    initial_instance_count=settings.instance_count,
                    initial_variant_weight=1.0,
                    container_startup_health_check_timeout_in_seconds=STARTUP_HEALTH_CHECK_TIMEOUT_S,
                )
            ],
        )
        if self.volume_key is None:
            acknowledge(
                self.config,
                {
                    "AwsSolutions-SM2": f"{settings.instance_type} has local NVMe storage, encrypted in hardware; "
                    "CreateEndpointConfig rejects a KmsKeyId for such instance types (SageMaker API reference).",
                },
            )
        self.endpoint = sagemaker.CfnEndpoint(
            self,
            "Endpoint",
            endpoint_name=settings.endpoint_name,
            endpoint_config_name=self.config.attr_endpoint_config_name,
        )

    def _grant_logs_and_metrics(self, endpoint_name: str) -> None:
        """The container's stdout goes to ``/aws/sagemaker/Endpoints/<name>``; nothing else is writable."""
        stack = Stack.of(self)
        log_group = f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:/aws/sagemaker/Endpoints/{endpoint_name}"
        self.role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="EndpointLogs",
                actions=["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
                resources=[log_group, f"{log_group}:log-stream:*"],
            )
        )
        acknowledge(
            self.role,
            {
                wildcard_resource(stack, f"{log_group}:log-stream:*"): "SageMaker names a log stream per "
                "instance at run time; the scope is this endpoint's own log group.",
                wildcard_resource(stack, "*"): "cloudwatch:PutMetricData has no resource-level permissions; "
                "the cloudwatch:namespace condition limits it to SageMaker's /aws/sagemaker/* namespaces.",
            },
        )
        self.role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="EndpointMetrics",
                actions=["cloudwatch:PutMetricData"],
                resources=["*"],  # PutMetricData has no resource-level scope; the namespace condition is the scope
                conditions={"StringLike": {"cloudwatch:namespace": "/aws/sagemaker/*"}},
            )
        )
