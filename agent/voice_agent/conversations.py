"""One Strands agent (with its message history) per conversation ``session``, bounded in number.

AgentCore routes one runtime session to one microVM, so a process sees few sessions; the bound
only stops a caller that invents a session per request from growing memory without limit. A Strands
agent answers one turn at a time (a second concurrent call raises its ConcurrencyException), so a
session that is still answering refuses the next turn with a typed ``session_busy`` error.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterator

from strands import Agent

from .events import AgentError

MAX_CONVERSATIONS = 64


class SessionBusy(AgentError):
    def __init__(self, session: str):
        super().__init__("session_busy", f"session {session!r} is still answering; ask again when its answer ends")


class Conversations:
    def __init__(self, new_agent: Callable[[], Agent], *, limit: int = MAX_CONVERSATIONS):
        self._new_agent = new_agent
        self._limit = limit
        self._agents: OrderedDict[str, Agent] = OrderedDict()
        self._busy: set[str] = set()

    @contextlib.contextmanager
    def turn(self, session: str | None) -> Iterator[Agent]:
        """The agent for one turn of ``session``; :class:`SessionBusy` while its previous turn runs."""
        if session is None:
            yield self._new_agent()
            return
        if session in self._busy:
            raise SessionBusy(session)
        self._busy.add(session)
        try:
            yield self.agent_for(session)
        finally:
            self._busy.discard(session)

    def agent_for(self, session: str | None) -> Agent:
        """The session's agent (the least recently used one is forgotten first); no session: a fresh one."""
        if session is None:
            return self._new_agent()
        agent = self._agents.pop(session, None) or self._new_agent()
        self._agents[session] = agent
        while len(self._agents) > self._limit:
            self._agents.popitem(last=False)
        return agent
