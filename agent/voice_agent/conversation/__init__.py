"""The spoken conversation at ``/ws``: turns, barge-in, and a history of what the listener heard.

* :mod:`~voice_agent.conversation.connection`: one socket's loop (``converse``);
* :mod:`~voice_agent.conversation.turn`: one prompt answered aloud;
* :mod:`~voice_agent.conversation.messages`: what a client may send (and the session parameter);
* :mod:`~voice_agent.conversation.events`: what the agent sends back, as typed events;
* :mod:`~voice_agent.conversation.outbox`: one writer per socket;
* :mod:`~voice_agent.conversation.history`: what the listener heard, kept as the agent's history.

Nothing is imported here, so a client of the protocol (the CLI's page server) loads no Strands
(docs/decisions/119-public-names.md).
"""

__all__ = ["connection", "events", "history", "messages", "outbox", "turn"]
