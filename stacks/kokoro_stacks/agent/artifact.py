"""What AgentCore runs: a code zip (default, no Docker), an arm64 image built here, or a prebuilt image."""

from __future__ import annotations

from aws_cdk import BundlingOptions, Stack
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct

from kokoro_stacks.agent.bundle import UNUSED_BUNDLING_IMAGE, AgentBundler, bundle_fingerprint
from kokoro_stacks.agent.bundle_build import ENTRYPOINT
from kokoro_stacks.ecr_pull import grant_ecr_pull
from kokoro_stacks.project import ProjectPaths
from kokoro_stacks.settings.deploy_settings import DeploySettings
from kokoro_stacks.template_checks import acknowledge, wildcard_action, wildcard_resource

# The image's build context is the repository root (it needs agent/ and the speech_protocol package):
# send Docker only those, and never .venv, node_modules or cdk.out.
_IMAGE_CONTEXT = [
    "*",
    "!agent",
    "!speech_protocol",
    "**/__pycache__",
    "**/*.egg-info",
    "speech_protocol/build",
]
_CODE_BUCKET_READ = (
    "The L2 grants the runtime read on the CDK asset bucket so that AgentCore can fetch the code zip: "
    "read-only, on a bucket that holds only this account's content-addressed deployment assets."
)


class AgentArtifact(Construct):
    """``artifact`` for the runtime; :meth:`grant` adds what the L2 does not grant for it."""

    def __init__(self, scope: Construct, id: str, *, settings: DeploySettings, paths: ProjectPaths):
        super().__init__(scope, id)
        self._settings = settings
        self._code: s3_assets.Asset | None = None
        if settings.agent_artifact == "code":
            self._code = s3_assets.Asset(
                self,
                "Code",
                path=str(paths.agent_dir),
                asset_hash=bundle_fingerprint(paths),
                bundling=BundlingOptions(
                    image=UNUSED_BUNDLING_IMAGE,
                    local=AgentBundler(paths),  # type: ignore[arg-type]  # aws-cdk types try_bundle with keyword options; jsii passes them positionally (aws-cdk#26581)
                ),
                display_name="Kokoro voice agent code (arm64, cp312)",
            )
            location = s3.Location(bucket_name=self._code.s3_bucket_name, object_key=self._code.s3_object_key)
            self.artifact = agentcore.AgentRuntimeArtifact.from_s3(
                location, agentcore.AgentCoreRuntime.PYTHON_3_12, [ENTRYPOINT]
            )
        elif settings.agent_artifact == "container":
            self.artifact = agentcore.AgentRuntimeArtifact.from_asset(
                str(paths.root),
                file=paths.agent_dockerfile,
                platform=ecr_assets.Platform.LINUX_ARM64,
                exclude=_IMAGE_CONTEXT,
                display_name="Kokoro voice agent image (arm64)",
            )
        else:
            assert settings.agent_image is not None  # parse_settings requires it for agent_artifact=image
            self.artifact = agentcore.AgentRuntimeArtifact.from_image_uri(settings.agent_image.uri)

    def grant(self, runtime: agentcore.Runtime) -> None:
        """The L2 grants nothing for an image given by URI, and bucket-wide read for a code zip."""
        if self._settings.agent_image is not None:
            grant_ecr_pull(runtime.role, self._settings.agent_image.repository_arn(Stack.of(self).partition))
        if self._code is not None:
            objects = f"arn:{Stack.of(self).partition}:s3:::{self._code.s3_bucket_name}/*"
            findings = [wildcard_action(action) for action in ("s3:GetObject*", "s3:GetBucket*", "s3:List*")]
            findings.append(wildcard_resource(Stack.of(self), objects))
            acknowledge(runtime.role, dict.fromkeys(findings, _CODE_BUCKET_READ))
