"""A local stand-in for Bedrock AgentCore Runtime's data plane, in front of agents served over HTTP.

``python -m kokoro_devtools.agentcore_emulator --runtime ARN=URL`` answers ``InvokeAgentRuntime`` and
``StopRuntimeSession`` as AgentCore does, for the real boto3 client pointed at it with
``AWS_ENDPOINT_URL_BEDROCK_AGENTCORE``: every request's SigV4 signature is verified against the credentials it
is given, the runtime ARN and session id are checked, and a refusal is one of the service's error shapes. What
it assumes of the service: docs/decisions/160-agentcore-emulator.md.
"""
