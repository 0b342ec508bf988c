"""Whether a request's body is JSON: only when its ``Content-Type`` says so.

A cross-site form or ``text/plain`` POST, which a browser sends without asking the server first, is never
read as JSON (docs/decisions/101-json-only-as-json.md); the model server and the agent check the same way.
"""

from __future__ import annotations

JSON_MEDIA_TYPE = "application/json"


def declares_json(content_type: str) -> bool:
    """Whether a ``Content-Type`` header names JSON (parameters such as ``charset`` aside)."""
    return content_type.split(";", 1)[0].strip().lower() == JSON_MEDIA_TYPE
