"""One conversation socket: read the listener's messages while the current turn speaks.

The connection loop never waits for a turn: each turn runs in its own task, so an ``interrupt`` is read
and acted on while audio is still streaming (the turn's audio gate closes first, then its task is
cancelled, which closes the LLM stream and cancels the speech session's pieces). A socket that closes,
by ``bye`` or by vanishing, ends its turn's work at once. The history lives in the session's Strands
agent, so a new socket with the same AgentCore session id continues the same conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from strands import Agent

from speech_protocol.framing import SAMPLE_RATE

from ..agent_pool import AgentPool, SessionBusy
from ..events import AgentEvent
from .events import ErrorNotice, Ready, TurnStart
from .history import close_failed_turn, heard_text, record_interrupted, transcript
from .messages import MAX_AUDIO_FRAME_BYTES, SESSION_ID_HEADER, BadMessage, Bye, Interrupt, Prompt, parse_client_frame
from .outbox import Outbox
from .turn import Turn, stream_turn

MAX_SESSION_ID_CHARS = 256
# (agent, prompt) -> the answer's events, words included
AnswerFor = Callable[[Agent, Prompt], AsyncIterator[AgentEvent]]


def session_id_of(websocket: Any, header_value: str | None) -> str | None:
    """AgentCore's session header; else the same name as a query parameter, which is where a presigned
    URL carries it and how a browser (which cannot set headers on a WebSocket) names its session."""
    session_id = header_value or websocket.query_params.get(SESSION_ID_HEADER)
    if session_id and len(session_id) <= MAX_SESSION_ID_CHARS and session_id.isprintable():
        return session_id
    return None


class Connection:
    """The turns of one socket, over the history of one Strands agent."""

    def __init__(self, agents: AgentPool, session_id: str | None, outbox: Outbox, answer_for: AnswerFor):
        self.agents = agents
        self.session_id = session_id
        self.agent = agents.agent_for(session_id)  # no session id: this socket's own history
        self.outbox = outbox
        self.answer_for = answer_for
        self.turns = 0
        self.last: Turn | None = None

    async def prompt(self, prompt: Prompt) -> None:
        """A new turn; the latest one is interrupted first if it is still speaking, or if ``played_s`` says
        the listener had not heard all of it."""
        last = self.last
        if last is not None and not last.interrupted:
            if last.speaking or (prompt.played_s is not None and prompt.played_s < last.audio_s):
                await self.interrupt(Interrupt(last.audio_s if prompt.played_s is None else prompt.played_s))
        self.turns += 1
        turn = Turn(id=f"t{self.turns}")
        self.last = turn
        await self.outbox.send(TurnStart(turn.id, prompt.text))
        turn.task = asyncio.create_task(self._run(turn, prompt))

    async def _run(self, turn: Turn, prompt: Prompt) -> None:
        try:
            with self._turn_of_session():
                await stream_turn(turn, self.answer_for(self.agent, prompt), self.outbox)
        except SessionBusy as err:  # another socket or request is answering: not our history to touch
            turn.failed = True
            await self.outbox.send(ErrorNotice(err.code, err.message, turn.id))
        else:
            if turn.failed:
                close_failed_turn(self.agent.messages)
        await self.outbox.send(turn.end_event(turn.text))
        turn.ended = True

    async def interrupt(self, message: Interrupt) -> None:
        """Stop the latest turn where the listener is; also valid after its ``turn_end``, while its audio
        is still playing on the listener's side: a new ``turn_end`` for that turn then supersedes the first."""
        turn = self.last
        if turn is None or turn.interrupted:
            raise BadMessage("no_turn", "there is no turn to interrupt: send a prompt first")
        turn.gate.close()
        turn.interrupted = turn.speaking or message.played_s < turn.audio_s
        await turn.await_words(message.played_s)  # the words of what was heard (decision 071)
        await self._stop(turn)
        heard = heard_text(turn.text, turn.words, message.played_s) if turn.interrupted else turn.text
        if turn.interrupted:
            record_interrupted(self.agent.messages, heard)
        await self.outbox.send(turn.end_event(heard, message.played_s))

    async def hang_up(self) -> None:
        """The socket is gone: stop the turn; the history keeps what was sent, marked as interrupted."""
        turn = self.last
        if turn is None or turn.interrupted or turn.ended:
            return
        turn.gate.close()
        turn.interrupted = True
        await self._stop(turn)
        record_interrupted(self.agent.messages, heard_text(turn.text, turn.words, turn.audio_s))

    def _turn_of_session(self) -> contextlib.AbstractContextManager:
        """A session's agent answers one turn at a time, whichever socket or request asks."""
        return self.agents.turn(self.session_id) if self.session_id else contextlib.nullcontext()

    @staticmethod
    async def _stop(turn: Turn) -> None:
        if turn.task is not None and not turn.task.done():
            turn.task.cancel()
        if turn.task is not None:
            await asyncio.gather(turn.task, return_exceptions=True)


async def converse(websocket: Any, session_id: str | None, agents: AgentPool, answer_for: AnswerFor) -> None:
    """Serve one socket until the listener says ``bye`` or goes away."""
    await websocket.accept()
    outbox = Outbox(websocket)
    talk = Connection(agents, session_id, outbox, answer_for)
    try:
        await outbox.send(Ready(SAMPLE_RATE, session_id, MAX_AUDIO_FRAME_BYTES, transcript(talk.agent.messages)))
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                return
            try:
                message = parse_client_frame(frame)
                if isinstance(message, Bye):
                    await talk.hang_up()
                    await websocket.close(1000)
                    return
                if isinstance(message, Prompt):
                    await talk.prompt(message)
                else:
                    await talk.interrupt(message)
            except BadMessage as err:
                await outbox.send(ErrorNotice(err.code, err.message))
    finally:
        await talk.hang_up()
