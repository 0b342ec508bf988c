"""One Strands agent (with its message history) per conversation ``session``, bounded in number.

AgentCore routes one runtime session to one microVM, so a process sees few sessions; the bound
only stops a caller that invents a session per request from growing memory without limit.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from strands import Agent

MAX_CONVERSATIONS = 64


class Conversations:
    def __init__(self, new_agent: Callable[[], Agent], *, limit: int = MAX_CONVERSATIONS):
        self._new_agent = new_agent
        self._limit = limit
        self._agents: OrderedDict[str, Agent] = OrderedDict()

    def agent_for(self, session: str | None) -> Agent:
        """The session's agent (the least recently used one is forgotten first); no session: a fresh one."""
        if session is None:
            return self._new_agent()
        agent = self._agents.pop(session, None) or self._new_agent()
        self._agents[session] = agent
        while len(self._agents) > self._limit:
            self._agents.popitem(last=False)
        return agent
