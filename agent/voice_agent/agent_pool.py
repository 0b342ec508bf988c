"""One Strands agent (with its message history) per AgentCore session id, bounded in number.

AgentCore routes one runtime session to one microVM, so a process sees few sessions; the bound
only stops a caller that invents a session id per request from growing memory without limit. A Strands
agent answers one turn at a time (a second concurrent call raises its ConcurrencyException), so a
session that is still answering refuses the next turn with a typed ``session_busy`` error.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterator

from strands import Agent

from .events import AgentError

MAX_AGENTS = 64


class SessionBusy(AgentError):
    def __init__(self, session_id: str):
        super().__init__("session_busy", f"session {session_id!r} is still answering; ask again when its answer ends")


class AgentPool:
    """The Strands agent of each session id, the least recently used forgotten first."""

    def __init__(self, new_agent: Callable[[], Agent], *, limit: int = MAX_AGENTS):
        self._new_agent = new_agent
        self._limit = limit
        self._agents: OrderedDict[str, Agent] = OrderedDict()
        self._busy: set[str] = set()

    @contextlib.contextmanager
    def turn(self, session_id: str | None) -> Iterator[Agent]:
        """The agent for one turn of ``session_id``; :class:`SessionBusy` while its previous turn runs."""
        if session_id is None:
            yield self._new_agent()
            return
        if session_id in self._busy:
            raise SessionBusy(session_id)
        self._busy.add(session_id)
        try:
            yield self.agent_for(session_id)
        finally:
            self._busy.discard(session_id)

    def agent_for(self, session_id: str | None) -> Agent:
        """The session's agent (the least recently used one is forgotten first); no session id: a fresh one."""
        if session_id is None:
            return self._new_agent()
        agent = self._agents.pop(session_id, None) or self._new_agent()
        self._agents[session_id] = agent
        while len(self._agents) > self._limit:
            self._agents.popitem(last=False)
        return agent
