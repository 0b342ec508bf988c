"""The voice agent: an LLM's answer spoken piece by piece as it is written. Its public modules, by layer:

* :mod:`~voice_agent.app` (AgentCore's ``/invocations`` and ``/ws``), :mod:`~voice_agent.settings`,
  :mod:`~voice_agent.request`, :mod:`~voice_agent.body_limit`, :mod:`~voice_agent.hangup`: the application
  and its edges;
* :mod:`~voice_agent.conversation`, :mod:`~voice_agent.agent_pool`: the spoken conversation and the
  Strands agent per session id;
* :mod:`~voice_agent.pipeline`, :mod:`~voice_agent.events`, :mod:`~voice_agent.llm`: one answer, from the
  LLM's deltas to the caller's events (cut into pieces by :mod:`speech_protocol.pieces`);
* :mod:`~voice_agent.tts_client`: the speech transports.

Nothing is imported here: ``import voice_agent`` loads no LLM or AWS library (docs/decisions/119-public-names.md).
"""

__all__ = [
    "agent_pool",
    "app",
    "body_limit",
    "conversation",
    "events",
    "hangup",
    "llm",
    "pipeline",
    "request",
    "settings",
    "tts_client",
]
