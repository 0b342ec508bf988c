"""What the listener heard, and the conversation history that remembers exactly that.

The words of a turn come with the time each starts in the turn's audio. When the listener interrupts
after ``played_s`` seconds, the words that started before then are the ones heard (a word cut off
mid-way was still begun aloud, as livekit-agents and OpenAI Realtime's truncate count it). The history
then keeps only that text for the turn, marked as interrupted, so the next answer knows what was said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from strands.types.content import ContentBlock, Messages

from speech_protocol.pace import WIDE_SCRIPT

from ..events import WordSpan
from .events import HistoryLine

# A second text block after the heard words: the LLM sees the cut; the heard text itself stays verbatim.
INTERRUPTED_MARK = "[interrupted by the listener here]"
_WIDE = re.compile(f"[{WIDE_SCRIPT}]")


def heard_text(answer: str, words: Sequence[WordSpan], played_s: float) -> str:
    """The prefix of ``answer`` that was spoken before ``played_s``.

    The words are the text the speech session was given (markdown already stripped), so each is found in
    the answer from where the previous one ended; the prefix ends with the last heard word's trailing
    punctuation (and markup), up to the next space or Japanese or Chinese character. A word that cannot be found (rewritten on the way to speech) is skipped.
    """
    cursor = 0
    for word in words:
        text = word.text.strip()
        if word.start_s >= played_s:
            break
        found = answer.find(text, cursor) if text else -1
        if found >= 0:
            cursor = found + len(text)
    while 0 < cursor < len(answer) and not answer[cursor].isspace() and not _WIDE.match(answer, cursor):
        cursor += 1  # the word's closing marks, not the next word (in Japanese or Chinese it follows unspaced)
    return answer[:cursor]


def record_interrupted(messages: Messages, heard: str) -> None:
    """Make the turn's assistant message hold only ``heard`` (plus the mark), whether the LLM had finished
    writing (its full answer is replaced) or was stopped mid-stream (no assistant message yet)."""
    content: list[ContentBlock] = [{"text": heard}] if heard else []
    content.append({"text": INTERRUPTED_MARK})
    if messages and messages[-1].get("role") == "assistant":
        messages[-1]["content"] = content
    else:
        messages.append({"role": "assistant", "content": content})


def close_failed_turn(messages: Messages) -> None:
    """A turn that failed before the LLM finished leaves the user's message unanswered; two user messages
    in a row are refused by the LLM APIs, so the failed turn is recorded as an empty interrupted answer."""
    if messages and messages[-1].get("role") == "user":
        record_interrupted(messages, "")


def transcript(messages: Messages) -> tuple[HistoryLine, ...]:
    """The history as the page shows it: who said what, and which answers were cut off."""
    lines = []
    for message in messages:
        texts = [block["text"] for block in message.get("content", []) if isinstance(block.get("text"), str)]
        interrupted = INTERRUPTED_MARK in texts
        text = "".join(t for t in texts if t != INTERRUPTED_MARK)
        lines.append(HistoryLine(message["role"], text, interrupted))
    return tuple(lines)
