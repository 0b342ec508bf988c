"""The model stack: Kokoro on a SageMaker real-time endpoint, autoscaled, with its name and ARN as outputs.

Outputs are plain outputs, not exports: the agent stack finds the endpoint by name, so this stack stays
free to replace its resources.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from kokoro_stacks.model.autoscaling import EndpointAutoscaling
from kokoro_stacks.model.endpoint import ModelEndpoint
from kokoro_stacks.model.image import ModelImage
from kokoro_stacks.project import ProjectPaths
from kokoro_stacks.settings.deploy_settings import DeploySettings


class ModelStack(Stack):
    def __init__(self, scope: Construct, *, settings: DeploySettings, paths: ProjectPaths, **kwargs: Any):
        super().__init__(
            scope, settings.model_stack_name, description="Kokoro-82M text-to-speech on a SageMaker endpoint", **kwargs
        )
        image = ModelImage(self, "Image", engine=settings.engine, prebuilt=settings.model_image, paths=paths)
        self.endpoint = ModelEndpoint(self, "Tts", settings=settings, image=image)
        self.autoscaling = EndpointAutoscaling(self, "Scaling", endpoint=self.endpoint, settings=settings)
        CfnOutput(self, "EndpointName", value=self.endpoint.endpoint.attr_endpoint_name)
        CfnOutput(self, "EndpointArn", value=self.endpoint.endpoint.ref)
