"""A text's phonemes cut into the chunks the model speaks, one model call each, each phoneme tied to its
written word.

One chunk per sentence, so audio streams sentence by sentence; a sentence longer than the model reads in
one call is split at clauses, then at spaces, never truncated, into bounded render units. A chunk carries
the voice and speed it is spoken with, so chunks of different listeners can share one batched pass
(kokoro_server.engine.batch).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kokoro_server.refusals import Refusal
from kokoro_server.text.normalize import Normalized
from kokoro_server.text.owners import chunk_owners, phoneme_owners, token_words
from kokoro_server.text.tokens import Token

if TYPE_CHECKING:
    from misaki.en import MToken

MAX_PHONEMES = 510  # Kokoro's context is 512 tokens including the two pad tokens: one chunk, one call
# A sentence longer than the model reads in one call is split anyway; its parts are rendered in units of at most
# this many phonemes (about 11 s of audio), so that text without sentence ends (a URL, a code, a run-on
# transcript) holds a model worker for seconds at a time, not a whole 510-phoneme render, while a newcomer waits
# (docs/decisions/167-bounded-render-units.md). A sentence within MAX_PHONEMES stays one chunk, however long.
SPLIT_SENTENCE_PHONEMES = 200
# Kokoro speaks about this many phoneme characters a second at speed 1: 17.9-18.9 over English prose, a
# URL-like token and a code (docs/decisions/166-first-pieces-by-their-cost.md). A chunk's audio, before it is rendered.
PHONEMES_PER_AUDIO_S = 18.5
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_END = re.compile(r"(?<=[,;:—…])\s+")


class NothingToSay(Refusal):
    """The text holds nothing speakable (only symbols or whitespace after G2P)."""

    status, code = 400, "unspeakable_text"


@dataclass(frozen=True)
class Chunk:
    """One model call's worth of an utterance, in ``voice`` (a name or blend) at ``speed``. ``owners``: the
    written word (an index into ``words``, the utterance's written words) each phoneme character belongs
    to, -1 for none."""

    phonemes: str
    voice: str
    speed: float
    owners: tuple[int, ...] = ()
    words: tuple[str, ...] = ()


def chunks_of(
    spoken: Normalized, voice: str, speed: float, phonemes: str, tokens: Sequence[Token | MToken]
) -> list[Chunk]:
    """The chunks of a text read as ``phonemes`` and ``tokens`` (slice by slice, :mod:`.reading`, or
    whole), each phoneme tied to its written word; :class:`NothingToSay` if none has a speech sound."""
    spans = token_words(spoken, tokens)
    words = tuple(spoken.written[a:b] for a, b in spans)
    parts = chunk_phonemes(phonemes)
    owners = chunk_owners(phonemes, phoneme_owners(spoken, tokens, spans), parts)
    # A chunk of bare punctuation would be "spoken" as silence: only chunks with a phoneme count.
    chunks = [Chunk(ps, voice, speed, own, words) for ps, own in zip(parts, owners) if any(c.isalpha() for c in ps)]
    if not chunks:
        raise NothingToSay("the text has nothing to speak")
    return chunks


def _pack(parts: list[str], limit: int) -> list[str]:
    """Greedily join ``parts`` with spaces into strings of at most ``limit`` characters."""
    out: list[str] = []
    for part in parts:
        if out and len(out[-1]) + 1 + len(part) <= limit:
            out[-1] += " " + part
        else:
            out.append(part)
    return out


def _split_long(text: str, limit: int, unit: int) -> list[str]:
    """Split one sentence over ``limit`` into parts of at most ``unit``: at clause punctuation, then at spaces,
    then hard; never truncate."""
    if len(text) <= limit:
        return [text]
    parts: list[str] = []
    for clause in _CLAUSE_END.split(text):
        if len(clause) <= unit:
            parts.append(clause)
            continue
        for word in clause.split(" "):
            parts.extend(word[i : i + unit] for i in range(0, len(word), unit))
    return _pack(parts, unit)


def chunk_phonemes(phonemes: str, limit: int = MAX_PHONEMES, unit: int = SPLIT_SENTENCE_PHONEMES) -> list[str]:
    """One chunk per sentence (so audio can stream per sentence) of at most ``limit``; a longer sentence in
    parts of at most ``unit`` (``limit`` if smaller)."""
    chunks: list[str] = []
    for sentence in _SENTENCE_END.split(phonemes.strip()):
        if sentence:
            chunks.extend(c for c in _split_long(sentence, limit, min(unit, limit)) if c.strip())
    return chunks
