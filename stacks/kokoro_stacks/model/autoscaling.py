"""Target tracking on concurrent requests per instance: the metric that follows streaming load.

A speech session is one long bidirectional request: ``InvocationsPerInstance`` counts it once when it
opens, however long it speaks, while the high-resolution concurrency metric (10 s) counts every session
still open. The target (``sessions_per_instance``) is how many simultaneous streams one instance serves
without first audio degrading (reported on an L40S: p50 252 ms at 4 streams, 010-gpu-capacity.md).
"""

from __future__ import annotations

from aws_cdk import aws_applicationautoscaling as appscaling
from constructs import Construct

from kokoro_stacks.model.endpoint import VARIANT_NAME, ModelEndpoint
from kokoro_stacks.settings.deploy_settings import DeploySettings

SCALE_OUT_COOLDOWN_S = 60
# A new g5 instance takes minutes to pull and warm up: scale in slowly so a lull does not undo it.
SCALE_IN_COOLDOWN_S = 600


class EndpointAutoscaling(Construct):
    """L1 resources on purpose: the L2 ScalableTarget adds an IAM role with no permissions, where
    Application Auto Scaling uses its SageMaker service-linked role when none is given."""

    def __init__(self, scope: Construct, id: str, *, endpoint: ModelEndpoint, settings: DeploySettings):
        super().__init__(scope, id)
        self.target = appscaling.CfnScalableTarget(
            self,
            "Target",
            service_namespace="sagemaker",
            resource_id=f"endpoint/{endpoint.endpoint.attr_endpoint_name}/variant/{VARIANT_NAME}",
            scalable_dimension="sagemaker:variant:DesiredInstanceCount",
            min_capacity=settings.min_instances,
            max_capacity=settings.max_instances,
        )
        metric = appscaling.CfnScalingPolicy.PredefinedMetricSpecificationProperty(
            predefined_metric_type="SageMakerVariantConcurrentRequestsPerModelHighResolution"
        )
        self.policy = appscaling.CfnScalingPolicy(
            self,
            "ConcurrentSessions",
            policy_name=f"{settings.endpoint_name}-concurrent-sessions",
            policy_type="TargetTrackingScaling",
            scaling_target_id=self.target.ref,
            target_tracking_scaling_policy_configuration=appscaling.CfnScalingPolicy.TargetTrackingScalingPolicyConfigurationProperty(
                target_value=float(settings.sessions_per_instance),
                predefined_metric_specification=metric,
                scale_out_cooldown=SCALE_OUT_COOLDOWN_S,
                scale_in_cooldown=SCALE_IN_COOLDOWN_S,
            ),
        )
