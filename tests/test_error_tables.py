"""docs/errors.md's tables against the codes the code can emit, found by reading the source (no servers).

Each interface is a set of source scopes (a file, or some of its functions). In a scope every string
constant passed as the ``code`` of an error constructor (``ProtocolError``, ``RequestError``, the
``AgentError`` family, ``refuse``, ``code=``), every ``(status, code, message)`` tuple ``classify``
returns, every raised ``Tts*`` error's class ``code`` and every ``close(code)`` counts as emitted. The
test fails both ways: a code the code emits that the table lacks, and a documented code nobody emits.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "errors.md"
PROTOCOL = "speech_protocol/speech_protocol/"
CLIENT_MESSAGES = PROTOCOL + "client_messages.py"
FRAMING = PROTOCOL + "framing.py"
SERVER = "container/kokoro_server/server.py"
HTTP_REQUESTS = "container/kokoro_server/http_requests.py"
CLASSIFY = "container/kokoro_server/errors.py"
AGENT = "agent/voice_agent/"

# Error constructors and helpers: positional index of the ``code`` (and ``status``) argument.
CODE_ARG = {
    "ProtocolError": 0,
    "RequestError": 1,
    "AgentError": 0,
    "BadRequest": 0,
    "BadMessage": 0,
    "_check_unicode": 2,
    "refuse": 2,
    "ErrorEvent": 0,
    "error_response": 1,
    "ParamError": 0,
    "_text_field": 2,
    "_one_of": 3,
}
STATUS_ARG = {"RequestError": 0, "refuse": 1, "error_response": 0}
PROTOCOL_ERROR_STATUS = 400  # classify(): a ProtocolError met over HTTP is a 400
# Raisers of a ProtocolError (or its OpenAI subclass ParamError): their codes are 400s over HTTP.
PROTOCOL_RAISERS = ("ProtocolError", "_check_unicode", "ParamError", "_text_field", "_one_of")

# What reaches each interface. ``None`` takes the whole file.
REQUEST_FIELDS = ["validate_synthesis_fields", "parse_speed", "validate_normalize", "validate_language"]
MODEL_HTTP = {
    SERVER: ["invocations"],
    HTTP_REQUESTS: ["read_json"],
    CLIENT_MESSAGES: REQUEST_FIELDS,
    FRAMING: ["loads"],
    CLASSIFY: ["classify"],
}
OPENAI_API = "container/kokoro_server/openai_api/"
MODEL_OPENAI = {
    OPENAI_API + "request.py": None,
    OPENAI_API + "routes.py": None,
    CLIENT_MESSAGES: ["validate_language"],
    HTTP_REQUESTS: ["read_json"],
    FRAMING: ["loads"],
    CLASSIFY: ["classify"],
}
MODEL_SESSION = {
    SERVER: ["session"],
    "container/kokoro_server/synthesis_session.py": None,
    CLIENT_MESSAGES: [*REQUEST_FIELDS, "_parse_id", "parse_client_message", "decode_client_frame"],
    FRAMING: ["loads"],
    CLASSIFY: ["classify"],
}
AGENT_ANSWER = {AGENT + "llm.py": None, AGENT + "agent_pool.py": None, AGENT + "events.py": ["error_event"]}
AGENT_SSE = {AGENT + "request.py": None, CLIENT_MESSAGES: ["parse_speed"], **AGENT_ANSWER}
AGENT_WS = {
    AGENT + "conversation/messages.py": None,
    AGENT + "conversation/connection.py": None,
    AGENT + "conversation/turn.py": None,
    **AGENT_ANSWER,
}
# A prompt message passes only text, voice and speed to parse_invocation: these two cannot happen there.
NOT_FROM_PROMPT = {"bad_payload", "bad_session"}
TTS_RAISERS = [PROTOCOL, PROTOCOL + "transports"]


@cache
def _tree(rel: str) -> ast.Module:
    return ast.parse((ROOT / rel).read_text())


def _constants() -> dict[str, object]:
    """Module-level ``NAME = "code"`` constants the emitting code names (``SERVER_BUSY``)."""
    out: dict[str, object] = {}
    for node in _tree(PROTOCOL + "errors.py").body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            out.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def _value(node: ast.AST | None):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return _constants().get(node.id)
    return None


def _scope_nodes(rel: str, functions: list[str] | None) -> list[ast.AST]:
    tree = _tree(rel)
    if functions is None:
        return [tree]
    found = [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in functions
    ]
    assert {n.name for n in found} == set(functions), f"{rel} lost a function of {functions}"
    return found


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _emitted(scopes: dict[str, list[str] | None]) -> set[tuple[int | None, str]]:
    """(status or None, code) pairs emitted in the scopes."""
    out: set[tuple[int | None, str]] = set()
    for rel, functions in scopes.items():
        for root in _scope_nodes(rel, functions):
            for node in ast.walk(root):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 3:
                    status, code = _value(node.value.elts[0]), _value(node.value.elts[1])
                    if isinstance(status, int) and isinstance(code, str):
                        out.add((status, code))
                if not isinstance(node, ast.Call):
                    continue
                name = _callee(node)
                code = next((_value(k.value) for k in node.keywords if k.arg == "code"), None)
                if code is None and name in CODE_ARG and len(node.args) > CODE_ARG[name]:
                    code = _value(node.args[CODE_ARG[name]])
                if code is None and name == "__init__" and node.args:  # super().__init__("session_busy", ...)
                    code = _value(node.args[0])
                if isinstance(code, str):
                    status = _value(node.args[STATUS_ARG[name]]) if name in STATUS_ARG else None
                    if status is None and name in PROTOCOL_RAISERS:
                        status = PROTOCOL_ERROR_STATUS
                    out.add((status, code))
        if rel == CLASSIFY:  # classify answers every typed refusal with its own status and code
            out |= _refusals()
    return out


@cache
def _refusals() -> frozenset[tuple[int, str]]:
    """(status, code) of every typed refusal of the model server: each ``Refusal`` subclass states them in
    its body (``status, code = 400, "unknown_voice"``), and ``classify`` answers every request with them."""
    out = set()
    for path in (ROOT / "container/kokoro_server").rglob("*.py"):
        for node in ast.walk(_tree(str(path.relative_to(ROOT)))):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Tuple):
                    names = [getattr(t, "id", None) for t in item.targets[0].elts]
                    if names[:2] == ["status", "code"] and isinstance(item.value, ast.Tuple):
                        status, code = (_value(v) for v in item.value.elts[:2])
                        out.add((status, code))
    assert out, "no Refusal subclass found: has the refusal root moved?"
    return frozenset(out)


def _codes(scopes) -> set[str]:
    return {code for _status, code in _emitted(scopes)}


def _tts_codes() -> set[str]:
    """The ``code`` of every ``Tts*`` error class that some client code raises."""
    classes = {}
    for node in _tree(PROTOCOL + "errors.py").body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.Assign) and any(getattr(t, "id", "") == "code" for t in item.targets):
                    classes[node.name] = item.value.value
    raised = set()
    for folder in TTS_RAISERS:
        for path in (ROOT / folder).glob("*.py"):
            for node in ast.walk(_tree(str(path.relative_to(ROOT)))):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                    raised.add(_callee(node.exc))
    return {code for name, code in classes.items() if name in raised}


def _close_codes(scopes) -> set[int]:
    out = set()
    for rel, functions in scopes.items():
        for root in _scope_nodes(rel, functions):
            for node in ast.walk(root):
                if isinstance(node, ast.Call) and _callee(node) == "close":
                    args = [*node.args, *(k.value for k in node.keywords if k.arg == "code")]
                    out |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, int)}
    return out


def _exit_codes(rel: str) -> set[int]:
    """``typer.Exit(N)`` and ``os._exit(N)`` constants of one CLI module, and 0 for a normal end."""
    out = {0}
    for node in ast.walk(_tree(rel)):
        if isinstance(node, ast.Call) and _callee(node) in ("Exit", "_exit") and node.args:
            if isinstance(node.args[0], ast.Constant):
                out.add(node.args[0].value)
    return out


def _deploy_exit_codes() -> set[int]:
    """The deploy CLIs exit through ``kokoro_cli.common.errors.ExitCode`` only."""
    tree = _tree("cli/kokoro_cli/common/errors.py")
    enum = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ExitCode")
    return {item.value.value for item in enum.body if isinstance(item, ast.Assign)}


# ------------------------------------------------------------------ the document


def _table(heading: str) -> list[list[str]]:
    """The rows (cells, backticks stripped) of the first table under the ``## heading``."""
    text = DOC.read_text()
    start = text.index(f"\n## {heading}\n")
    section = text[start + 1 :].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    cells = [[c.strip().strip("`") for c in row.strip("|").split("|")] for row in rows]
    return cells[2:]  # past the header and its --- line


def _documented(heading: str) -> list[str]:
    return [row[0] for row in _table(heading)]


def _check(documented: list, emitted: set) -> None:
    assert len(documented) == len(set(documented)), f"a code is listed twice: {sorted(documented)}"
    assert set(documented) - emitted == set(), "documented, but nothing emits it"
    assert emitted - set(documented) == set(), "emitted, but docs/errors.md lacks it"


def test_model_http():
    documented = [(int(row[0]), row[1]) for row in _table("Model server: HTTP `POST /invocations`")]
    _check(documented, _emitted(MODEL_HTTP))


def test_model_openai_http():
    documented = [(int(row[0]), row[1]) for row in _table("Model server: OpenAI `POST /v1/audio/speech`")]
    _check(documented, _emitted(MODEL_OPENAI))


def test_model_session_errors():
    _check(_documented("Model server: session `error` events"), _codes(MODEL_SESSION))


def test_model_session_close_codes():
    listener = (ROOT / "container/kokoro_server/listener.py").read_text()
    assert "ws_max_size=" in listener  # the WebSocket library closes an oversized frame with 1009
    emitted = _close_codes({SERVER: ["session", "_refuse"], "container/kokoro_server/synthesis_session.py": None}) | {
        1009
    }
    _check([int(c) for c in _documented("Model server: session close codes")], emitted)


def test_agent_http():
    documented = [(int(row[0]), row[1]) for row in _table("Agent: HTTP `POST /invocations`")]
    _check(documented, _emitted({AGENT + "body_limit.py": None}))


def test_browser_refusals():
    documented = [(int(row[0]), row[1]) for row in _table("Local servers: refused before any work")]
    _check(documented, _emitted({PROTOCOL + "http/browser_access.py": None}))


def test_conversation_page_connect():
    documented = [(int(row[0]), row[1]) for row in _table("Conversation page: `GET /connect`")]
    _check(documented, _emitted({"cli/kokoro_cli/local/web_page.py": None}))


def test_agent_sse_errors():
    _check(_documented("Agent: `POST /invocations` stream `error` events"), _codes(AGENT_SSE) | _tts_codes())


def test_agent_websocket_errors():
    source = (ROOT / AGENT / "conversation/messages.py").read_text()
    renamed = dict(re.findall(r'"(\w+)": "(\w+)"', source.split("PROMPT_CODES = {", 1)[1].split("}", 1)[0]))
    prompt = {renamed.get(c, c) for c in _codes({AGENT + "request.py": None, CLIENT_MESSAGES: ["parse_speed"]})}
    emitted = _codes(AGENT_WS) | _tts_codes() | (prompt - NOT_FROM_PROMPT)
    _check(_documented("Agent: conversation WebSocket `/ws` `error` events"), emitted)


def test_agent_websocket_close_codes():
    emitted = _close_codes({AGENT + "conversation/connection.py": None})
    _check([int(c) for c in _documented("Agent: conversation WebSocket close codes")], emitted)


def test_cli_exit_codes():
    programs = {
        "deploy-model": _deploy_exit_codes(),
        "deploy-agent": _deploy_exit_codes(),
        "kokoro-serve": _exit_codes("container/kokoro_server/cli.py"),
        "python -m kokoro_bench": _exit_codes("bench/kokoro_bench/app.py")
        | _exit_codes("bench/kokoro_bench/interruption.py"),
    }
    rows = _table("CLI exit codes")
    for program, emitted in programs.items():
        documented = [int(row[1]) for row in rows if program in row[0].split(", ")]
        assert documented, f"no rows for {program}"
        _check(documented, emitted)
