"""Conversation memory per session id, bounded."""

from __future__ import annotations

from voice_agent.agent_pool import AgentPool
from voice_agent.llm import build_agent
from voice_agent.settings import LlmSettings


def test_sessions_keep_their_agent_and_the_oldest_is_forgotten() -> None:
    pool = AgentPool(lambda: build_agent(LlmSettings(provider="scripted")), limit=2)
    first = pool.agent_for("a")
    assert pool.agent_for("a") is first
    assert pool.agent_for(None) is not pool.agent_for(None)
    pool.agent_for("b")
    pool.agent_for("a")  # "a" is now the most recent
    pool.agent_for("c")  # forgets "b"
    assert pool.agent_for("a") is first
    b_again = pool.agent_for("b")
    assert pool.agent_for("b") is b_again
