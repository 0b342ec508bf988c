"""A local AWS for the whole deploy: moto, with AgentCore runtimes that run, behind the AgentCore emulator.

``python -m kokoro_devtools.local_aws`` serves moto (every control-plane API the CLIs and ``cdk`` call) with one
resource type added to its CloudFormation, ``AWS::BedrockAgentCore::Runtime``: kept in moto's own
bedrock-agentcore-control backend, and for a code runtime also started from the agent's bundle as AgentCore starts
it (:mod:`kokoro_devtools.agentcore_emulator.runtime`) and put behind its ARN in the AgentCore emulator, which the
same process serves. With ``--model-server`` it also puts the SageMaker emulator in front of a model server, for
the runtimes' speech. Decision: docs/decisions/162-a-local-aws-for-the-whole-deploy.md.
"""
