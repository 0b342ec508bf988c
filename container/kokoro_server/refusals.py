"""The root of every refusal the model server answers with: an HTTP status and a stable code.

Each typed refusal (an unknown voice, a text with nothing to say, a busy server, ...) is a subclass that
states its ``status`` and ``code`` where it is defined, so :func:`kokoro_server.errors.classify` reads two
attributes instead of testing types, and a new refusal cannot be forgotten by the mapping. A leaf module:
the text, engine and admission modules that raise refusals import it, and it imports nothing of theirs.

``log_level``: a refusal worth an operator's attention (misaki could not read a text, a G2P process died)
is logged with its traceback at this level when it is answered; the others are the client's business.
"""

from __future__ import annotations

from typing import ClassVar


class Refusal(Exception):
    """A request the server answers with ``status`` and ``code`` and this message, then keeps serving."""

    status: int = 500
    code: str = "synthesis_failed"
    log_level: ClassVar[int | None] = None
    retry_after_s: float | None = None  # a busy server says when to try again (``Retry-After``)

    @property
    def message(self) -> str:
        return str(self)
