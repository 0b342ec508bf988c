"""The endpoint's image: built from ``container/`` for linux/amd64 (g5 is x86-64), or a prebuilt URI.

At synth the asset is only staged (copied into ``cdk.out``, minus what ``container/.dockerignore``
lists); Docker runs at deploy time, so synth works on a machine without Docker.
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Stack
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_iam as iam
from constructs import Construct, IDependable

from stacks.ecr_image import EcrImage
from stacks.ecr_pull import grant_ecr_pull
from stacks.settings import Engine


class ModelImage(Construct):
    """``image_uri`` for the model definition, and :meth:`grant_pull` for the role that runs it."""

    def __init__(self, scope: Construct, id: str, *, engine: Engine, prebuilt: EcrImage | None, context_dir: Path):
        super().__init__(scope, id)
        if prebuilt is not None:
            self.image_uri = prebuilt.uri
            self._repository_arn = prebuilt.repository_arn(Stack.of(self).partition)
            return
        asset = ecr_assets.DockerImageAsset(
            self,
            "Asset",
            directory=str(context_dir),
            file="Dockerfile",
            platform=ecr_assets.Platform.LINUX_AMD64,
            build_args={"ENGINE": engine},
            display_name=f"Kokoro TTS model image ({engine})",
        )
        self.image_uri = asset.image_uri
        self._repository_arn = asset.repository.repository_arn

    def grant_pull(self, role: iam.IRole) -> IDependable | None:
        return grant_ecr_pull(role, self._repository_arn)
