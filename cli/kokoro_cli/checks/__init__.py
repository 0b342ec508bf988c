"""Does it speak? The smoke checks of a model server or an agent, local or deployed.

Each check exercises one path a real caller uses (``/invocations``; a bidirectional session sent as
BINARY frames; the agent's event stream) and passes only when speech comes back, so an endpoint that is
InService but broken fails here rather than in production.
"""
