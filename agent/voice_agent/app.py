"""The AgentCore application: ``POST /invocations`` streams an answer as text and speech events;
``/ws`` holds a spoken conversation with barge-in (:mod:`voice_agent.conversation`).

Configuration arrives as an :class:`AgentSettings` object (parsed once in ``agent/main.py`` or by
the local CLI); the connector and the agent factory can be handed in, which is how tests and the
local CLI aim the same app at a local model server or a scripted LLM.

Every failure reaches the caller as one typed ``error`` event: anything unforeseen becomes
``internal_error`` here, because the AgentCore app would otherwise stream an event without a ``type``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from bedrock_agentcore.runtime import BedrockAgentCoreApp, RequestContext
from starlette.middleware import Middleware
from starlette.websockets import WebSocket
from strands import Agent

from speech_protocol.http.browser_access import BrowserGuard
from speech_protocol.pieces.segmenter import Segmenter
from speech_protocol.transports.part_stream import Connector
from speech_protocol.tts_session import TtsSession
from speech_protocol.turn import PieceSegmenter

from .agent_pool import AgentPool
from .body_limit import BodyLimit, JsonBody
from .conversation.connection import converse, session_id_of
from .conversation.messages import Prompt
from .events import error_event, to_wire
from .hangup import HangupSignal, hangup_flag, until_hangup
from .llm import build_agent, text_deltas
from .pipeline import VoiceChoice, speak_answer
from .request import BadRequest, parse_invocation
from .settings import AgentSettings
from .tts_client import connector_for

# After SIGTERM, answers still streaming get this long before uvicorn cancels them (closing their LLM
# stream and speech session): AgentCore and a terminal's Ctrl-C both expect an end within seconds.
SHUTDOWN_GRACE_S = 2  # whole seconds: uvicorn declares timeout_graceful_shutdown an int


def create_app(
    settings: AgentSettings,
    *,
    connector: Connector | None = None,
    new_agent: Callable[[], Agent] | None = None,
    new_segmenter: Callable[[], PieceSegmenter] = Segmenter,
) -> BedrockAgentCoreApp:
    app = BedrockAgentCoreApp(
        middleware=[
            Middleware(BrowserGuard, access=settings.access),  # first: a refused page costs nothing
            Middleware(BodyLimit),
            Middleware(JsonBody),
            Middleware(HangupSignal),
        ]
    )
    tts = connector or connector_for(settings.tts)
    agents = AgentPool(new_agent or (lambda: build_agent(settings.llm)))

    @app.entrypoint
    async def invocations(payload: Any, context: RequestContext) -> AsyncIterator[dict[str, Any]]:
        try:
            request = parse_invocation(payload)
        except BadRequest as err:
            yield to_wire(error_event(err))
            return
        voice = VoiceChoice(request.voice or settings.tts.voice, request.speed or settings.tts.speed)
        try:
            with agents.turn(request.session_id) as agent:
                tts_session = TtsSession(tts, timeout_s=settings.tts.timeout_s)
                answer = speak_answer(text_deltas(agent, request.prompt), tts_session, new_segmenter(), voice)
                async for event in until_hangup(answer, hangup_flag(context.request)):
                    yield to_wire(event)
        except Exception as err:  # typed for the caller; CancelledError (hang-up) passes
            yield to_wire(error_event(err))

    def answer_for(agent: Agent, prompt: Prompt) -> AsyncIterator:
        voice = VoiceChoice(prompt.voice or settings.tts.voice, prompt.speed or settings.tts.speed)
        tts_session = TtsSession(tts, timeout_s=settings.tts.timeout_s)
        return speak_answer(text_deltas(agent, prompt.text), tts_session, new_segmenter(), voice, with_words=True)

    @app.websocket
    async def conversation(websocket: WebSocket, context: RequestContext) -> None:
        await converse(websocket, session_id_of(websocket, context.session_id), agents, answer_for)

    return app
