"""What the agent may call beyond the L2's defaults: exactly one TTS endpoint and exactly one model.

The endpoint ARN is built from its name (SageMaker lower-cases names in ARNs), so this stack deploys on
its own after the model stack, with no CloudFormation export tying the two together.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_iam as iam
from constructs import Construct

from kokoro_stacks.settings.bedrock_model import INVOKE_ACTIONS, BedrockModel
from kokoro_stacks.template_checks import acknowledge, cfn_resource_of, ignore_lint_check, wildcard_resource

TTS_ACTIONS = ("sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithBidirectionalStream")


def grant_tts_endpoint(scope: Construct, role: iam.IRole, endpoint_name: str) -> iam.Policy:
    """A policy of its own, so the one cfn-lint exception it needs applies to nothing else."""
    stack = Stack.of(scope)
    arn = f"arn:{stack.partition}:sagemaker:{stack.region}:{stack.account}:endpoint/{endpoint_name.lower()}"
    policy = iam.Policy(
        scope,
        "TtsEndpointAccess",
        roles=[role],
        statements=[iam.PolicyStatement(sid="InvokeTtsEndpoint", actions=list(TTS_ACTIONS), resources=[arn])],
    )
    # W3037: cfn-lint's IAM action list predates sagemaker:InvokeEndpointWithBidirectionalStream
    # (001-sagemaker-container-contract.md).
    ignore_lint_check(cfn_resource_of(policy), "W3037")
    return policy


def grant_bedrock_model(role: iam.IRole, model: BedrockModel) -> None:
    """A plain model id: the model in this Region. A profile: the profile, and the model only through it."""
    stack = Stack.of(role)
    foundation_models = model.foundation_model_arns(stack.partition, stack.region)
    profile_arn = model.inference_profile_arn(stack.partition, stack.region, stack.account)
    if profile_arn is None:
        role.add_to_principal_policy(
            iam.PolicyStatement(sid="InvokeModel", actions=list(INVOKE_ACTIONS), resources=foundation_models)
        )
        return
    role.add_to_principal_policy(
        iam.PolicyStatement(sid="InvokeInferenceProfile", actions=list(INVOKE_ACTIONS), resources=[profile_arn])
    )
    role.add_to_principal_policy(
        iam.PolicyStatement(
            sid="InvokeModelThroughProfile",
            actions=list(INVOKE_ACTIONS),
            resources=foundation_models,
            conditions={"StringEquals": {"bedrock:InferenceProfileArn": profile_arn}},
        )
    )
    reason = (
        f"The {model.profile}. inference profile routes each request to this one model in a Region it picks; "
        "the bedrock:InferenceProfileArn condition allows the model only through that profile."
    )
    acknowledge(role, {wildcard_resource(stack, arn): reason for arn in foundation_models if "*" in arn})
