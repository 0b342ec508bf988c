"""The spoken conversation at ``/ws``: turns, barge-in, and a history of what the listener heard."""

from .connection import SESSION_HEADER, AnswerFor, converse, session_of

__all__ = ["SESSION_HEADER", "AnswerFor", "converse", "session_of"]
