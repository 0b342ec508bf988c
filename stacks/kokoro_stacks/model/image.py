"""The endpoint's image: ``container/Dockerfile`` built for linux/amd64 (g5 is x86-64), or a prebuilt URI.

The build context is the repository root, because the image installs the ``speech_protocol`` package
beside the server; only the paths the Dockerfile copies are staged. At synth the asset is only staged
(copied into ``cdk.out``); Docker runs at deploy time, so synth works on a machine without Docker.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_iam as iam
from constructs import Construct, IDependable

from kokoro_stacks.ecr_pull import grant_ecr_pull
from kokoro_stacks.project import ProjectPaths
from kokoro_stacks.settings.deploy_settings import Engine
from kokoro_stacks.settings.ecr_image import EcrImage

# What the Dockerfile copies (never .venv, assets, node_modules or cdk.out); container/Dockerfile.dockerignore
# says the same to a plain `docker build -f container/Dockerfile .`.
_IMAGE_CONTEXT = [
    "*",
    "!container",
    "!speech_protocol",
    "**/__pycache__",
    "**/*.egg-info",
    "speech_protocol/build",
]


class ModelImage(Construct):
    """``image_uri`` for the model definition, and :meth:`grant_pull` for the role that runs it."""

    def __init__(self, scope: Construct, id: str, *, engine: Engine, prebuilt: EcrImage | None, paths: ProjectPaths):
        super().__init__(scope, id)
        if prebuilt is not None:
            self.image_uri = prebuilt.uri
            self._repository_arn = prebuilt.repository_arn(Stack.of(self).partition)
            return
        asset = ecr_assets.DockerImageAsset(
            self,
            "Asset",
            directory=str(paths.root),
            file=paths.model_dockerfile,
            exclude=_IMAGE_CONTEXT,
            platform=ecr_assets.Platform.LINUX_AMD64,
            build_args={"ENGINE": engine},
            display_name=f"Kokoro TTS model image ({engine})",
        )
        self.image_uri = asset.image_uri
        self._repository_arn = asset.repository.repository_arn

    def grant_pull(self, role: iam.IRole) -> IDependable | None:
        return grant_ecr_pull(role, self._repository_arn)
