"""The agent stack: the Strands voice agent on an AgentCore runtime, its artifact, bundle and permissions."""
