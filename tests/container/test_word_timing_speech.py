"""Word spans against real speech: a real server (int8 ONNX), real sentences, the offline recognizer.

Each word's audio is cut at its span's edges and the cuts are laid end to end with silence between them;
the recognizer must hear the sentence from those cuts alone. A span that started late or ended early
loses part of its word, one that reached into a neighbour brings a fragment of it along, and either
shows up as a wrong word. The same cuts moved by 150 ms must fail, so the check can fail.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
import websockets
from session_client import ended, read_until, ws_url
from speech import heard_from_cuts, wer

from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.server_events import Audio, StreamDecoder, Words

pytestmark = pytest.mark.slow

UTTERANCES = [  # (text, voice, speed): two sentences each, so spans cross a chunk seam
    ("The museum opens every morning at nine. The guided tour starts an hour later.", "af_heart", 1.0),
    ("Please remember to bring your umbrella; the forecast says heavy rain tonight.", "bf_emma", 1.2),
    ("Bring it back before Friday, because the library closes early. Thank you!", "am_michael", 1.0),
]


async def speak(url: str, text: str, voice: str, speed: float) -> tuple[np.ndarray, Words, list]:
    async with websockets.connect(ws_url(url)) as ws:
        await ws.send(encode_client_message(Synthesize(text, id="w", voice=voice, speed=speed)))
        events = await read_until(ws, StreamDecoder(), ended("w"), timeout=120)
    pcm = b"".join(e.pcm for e in events if isinstance(e, Audio))
    (words,) = [e for e in events if isinstance(e, Words)]
    return np.frombuffer(pcm, dtype="<i2"), words, [type(e) for e in events]


def heard_from_word_cuts(audio: np.ndarray, words: Words, shift_s: float = 0.0) -> str:
    spans = [(w.start_s, w.end_s) for w in words.words]
    return heard_from_cuts(audio.astype("<i2").tobytes(), SAMPLE_RATE, spans, shift_s)


@pytest.fixture(scope="module")
def spoken(model_server_url):
    return [(text, *asyncio.run(speak(model_server_url, text, voice, speed))) for text, voice, speed in UTTERANCES]


def test_one_ordered_span_per_written_word_inside_the_audio(spoken):
    for text, audio, words, kinds in spoken:
        assert kinds.index(Words) == len(kinds) - 2  # just before end, after all the audio
        assert [w.text for w in words.words] == text.split()
        duration = len(audio) / SAMPLE_RATE
        for w, after in zip(words.words, words.words[1:] + [None]):
            assert 0 <= w.start_s < w.end_s <= duration + 1e-4, w
            assert after is None or w.end_s <= after.start_s, (w, after)


def test_each_words_cut_is_heard_as_that_word(spoken):
    for text, audio, words, _ in spoken:
        heard = heard_from_word_cuts(audio, words)
        assert wer(text, heard) <= 0.1, (text, heard)


def test_cuts_moved_by_150_ms_are_not(spoken):
    moved = [wer(text, heard_from_word_cuts(audio, words, 0.15)) for text, audio, words, _ in spoken]
    assert np.mean(moved) >= 0.2, moved
