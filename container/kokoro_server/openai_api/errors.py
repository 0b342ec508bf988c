"""Every refusal of the OpenAI routes in OpenAI's shape: ``{"error": {"message", "type", "param", "code"}}``.

Status, code, message and ``Retry-After`` are the ones ``/invocations`` gives for the same fault
(:func:`kokoro_server.errors.http_error_body`); ``type`` is OpenAI's ``invalid_request_error`` for a
4xx and ``server_error`` for a 5xx, and ``param`` names the field at fault where there is one. A server
at capacity answers 503 ``server_busy`` with ``Retry-After``: the OpenAI SDK retries a 503 after it.
"""

from __future__ import annotations

from starlette.responses import JSONResponse

from kokoro_server.errors import http_error_body

# The field behind the codes the engine's errors get (the request's own errors carry their ``param``).
_PARAMS = {"unknown_voice": "voice", "unspeakable_text": "input", "bad_text": "input"}


def openai_error(exc: BaseException) -> JSONResponse:
    status, body, headers = http_error_body(exc)
    code, message = body["error"]["code"], body["error"]["message"]
    error = {
        "message": message,
        "type": "invalid_request_error" if status < 500 else "server_error",
        "param": getattr(exc, "param", None) or _PARAMS.get(code),
        "code": code,
    }
    return JSONResponse({"error": error}, status_code=status, headers=headers)
