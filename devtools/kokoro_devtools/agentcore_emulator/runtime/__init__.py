"""The agent's code bundle run as AgentCore Runtime runs it, for the AgentCore emulator to put behind an ARN.

``python -m kokoro_devtools.agentcore_emulator.runtime cdk.out/KokoroVoiceAgent.template.json`` reads the runtime
from a synthesized template (its entry point, its Python, its environment variables), bundles the agent with the
project's own bundler for this machine's platform instead of arm64, and starts the entry point with that bare
Python in the bundle's folder, listening on the contract's 0.0.0.0:8080 inside a network namespace of its own.
The namespace is reached from 127.0.0.1 on the port asked for; every loopback address the environment names
(a model server, the SageMaker emulator) is reached on this machine's. Decision:
docs/decisions/161-the-agent-bundle-behind-the-emulator.md.
"""
