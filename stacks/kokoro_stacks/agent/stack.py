"""The agent stack: the Strands voice agent on an AgentCore runtime (arm64, Python 3.12).

It finds the TTS endpoint by the name in the settings, so it deploys on its own once the model stack
exists, and the model stack stays free to update.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Stack
from aws_cdk import aws_bedrockagentcore as agentcore
from constructs import Construct

from kokoro_stacks.agent.artifact import AgentArtifact
from kokoro_stacks.agent.permissions import grant_bedrock_model, grant_tts_endpoint
from kokoro_stacks.project import ProjectPaths
from kokoro_stacks.settings.deploy_settings import DeploySettings
from kokoro_stacks.template_checks import acknowledge, cfn_resource_of, ignore_lint_check, wildcard_resource
from speech_protocol.environment import pinned
from speech_protocol.http.browser_access import BrowserAccess
from voice_agent.settings import LlmSettings, TtsSettings, access_to_env


def agent_environment(settings: DeploySettings, region: str) -> dict[str, str]:
    """The agent's runtime variables (008-three-interfaces.md): speech from the endpoint, words from Bedrock,
    and the web pages allowed to call it when the operator names some (100-browser-reachable-servers.md).
    Named and written by the agent's own settings (voice_agent.settings), which check them first."""
    speech = pinned(
        TtsSettings, transport="sagemaker", endpoint_name=settings.endpoint_name, region=region, voice=settings.voice
    )
    words = pinned(LlmSettings, provider="bedrock", model_id=settings.model.model_id)
    pages = BrowserAccess(origins=frozenset(settings.agent_allowed_origins) or None)
    return {**speech, **words, **access_to_env(pages)}


class AgentStack(Stack):
    def __init__(self, scope: Construct, *, settings: DeploySettings, paths: ProjectPaths, **kwargs: Any):
        super().__init__(
            scope, settings.agent_stack_name, description="Kokoro voice agent on Bedrock AgentCore Runtime", **kwargs
        )
        artifact = AgentArtifact(self, "Artifact", settings=settings, paths=paths)
        self.runtime = agentcore.Runtime(
            self,
            "Runtime",
            runtime_name=settings.runtime_name,
            agent_runtime_artifact=artifact.artifact,
            environment_variables=agent_environment(settings, self.region),
            description="Speaks each sentence as soon as the LLM writes it",
        )
        artifact.grant(self.runtime)
        cfn_runtime = cfn_resource_of(self.runtime)  # not the L2: its execution role is a child of it
        cfn_runtime.node.add_dependency(grant_tts_endpoint(self, self.runtime.role, settings.endpoint_name))
        # W3005: the L2 declares DependsOn its role on top of the GetAtt of the role's ARN; harmless.
        ignore_lint_check(cfn_runtime, "W3005")
        grant_bedrock_model(self.runtime.role, settings.model)
        CfnOutput(self, "RuntimeArn", value=self.runtime.agent_runtime_arn)
        CfnOutput(self, "RuntimeId", value=self.runtime.agent_runtime_id)
        self._acknowledge_runtime_role()

    def _acknowledge_runtime_role(self) -> None:
        """The wildcards of the execution role the L2 creates: AgentCore's documented role
        (003-agentcore-runtime.md)."""
        logs = f"arn:{self.partition}:logs:{self.region}:{self.account}:log-group:"
        identities = (
            f"arn:{self.partition}:bedrock-agentcore:{self.region}:{self.account}:workload-identity-directory/default"
        )
        runtime_logs = "AgentCore creates the runtime's log groups and streams under /aws/bedrock-agentcore/runtimes/."
        acknowledge(
            self.runtime.role,
            {
                wildcard_resource(self, f"{logs}/aws/bedrock-agentcore/runtimes/*"): runtime_logs,
                wildcard_resource(self, f"{logs}/aws/bedrock-agentcore/runtimes/*:log-stream:*"): runtime_logs,
                wildcard_resource(self, f"{logs}*"): "logs:DescribeLogGroups is a list action: it cannot be "
                "scoped to a prefix, and it reads names only.",
                wildcard_resource(self, "*"): "X-Ray trace writes have no resource-level permissions; "
                "cloudwatch:PutMetricData is limited to the bedrock-agentcore namespace by condition.",
                wildcard_resource(self, f"{identities}/workload-identity/*"): "AgentCore creates the runtime's "
                "workload identity at deployment; the scope is the account's default directory in this Region.",
            },
        )
