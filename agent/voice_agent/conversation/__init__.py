"""The spoken conversation at ``/ws``: turns, barge-in, and a history of what the listener heard."""

from .connection import SESSION_ID_HEADER, AnswerFor, converse, session_id_of

__all__ = ["SESSION_ID_HEADER", "AnswerFor", "converse", "session_id_of"]
