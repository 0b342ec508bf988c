"""Conversation memory per session id, bounded."""

from __future__ import annotations

from voice_agent.conversations import Conversations
from voice_agent.llm import build_agent
from voice_agent.settings import LlmSettings


def test_sessions_keep_their_agent_and_the_oldest_is_forgotten() -> None:
    conversations = Conversations(lambda: build_agent(LlmSettings(provider="scripted")), limit=2)
    first = conversations.agent_for("a")
    assert conversations.agent_for("a") is first
    assert conversations.agent_for(None) is not conversations.agent_for(None)
    conversations.agent_for("b")
    conversations.agent_for("a")  # "a" is now the most recent
    conversations.agent_for("c")  # forgets "b"
    assert conversations.agent_for("a") is first
    b_again = conversations.agent_for("b")
    assert conversations.agent_for("b") is b_again
