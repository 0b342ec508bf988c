"""Word timing's mapping, step by step: written words <- spoken text <- G2P tokens <- chunks <- frames.

Tokens here are built by hand (misaki's ``MToken`` has exactly these three fields that matter), so each
step is checked on its own; the real G2P and model are exercised in ``test_word_timing_speech.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kokoro_server.engine.backend import FRAME_SAMPLES
from kokoro_server.engine.word_timing import AUDIO_LEAD_FRAMES, WordTimeline, chunk_spans
from kokoro_server.text.chunks import chunk_phonemes
from kokoro_server.text.normalize import Normalized
from kokoro_server.text.owners import NO_WORD, chunk_owners, phoneme_owners, written_words
from speech_protocol.server_events import WordSpan


@dataclass
class Token:
    text: str
    phonemes: str | None
    whitespace: str = ""


def phoneme_string(tokens: list[Token]) -> str:
    """What misaki's G2P returns beside its tokens."""
    return "".join((t.phonemes or "") + t.whitespace for t in tokens)


def test_written_words_keep_their_punctuation():
    text = '  "Hello," she said — $3.50!'
    assert [text[a:b] for a, b in written_words(text)] == ['"Hello,"', "she", "said", "—", "$3.50!"]


def test_each_speech_sound_belongs_to_its_written_word_punctuation_to_none():
    text = "Hi, you."
    tokens = [Token("Hi", "hˈI"), Token(",", ",", " "), Token("you", "jˈu"), Token(".", ".")]
    owners = phoneme_owners(Normalized(text, text), tokens, written_words(text))
    assert len(owners) == len(phoneme_string(tokens)) == len("hˈI, jˈu.")
    assert owners == [0, 0, 0, NO_WORD, NO_WORD, 1, 1, 1, NO_WORD]


def test_a_rewritten_region_maps_back_to_one_written_word():
    # "$3.50" spoken as "three fifty": five spoken words' sounds all belong to the one written word.
    written, spoken = "Pay $3.50 now", "Pay three fifty now"
    text = Normalized(written, spoken, rewrites=((4, 15, 4, 9),))
    tokens = [Token("Pay", "pˈA", " "), Token("three", "θɹˈi", " "), Token("fifty", "fˈɪfti", " "), Token("now", "nˈW")]
    owners = phoneme_owners(text, tokens, written_words(written))
    words = {o for o in owners if o != NO_WORD}
    assert words == {0, 1, 2}
    assert owners[len("pˈA ") : len("pˈA θɹˈi fˈɪfti")] == [1] * 4 + [NO_WORD] + [1] * 6


def test_a_token_misaki_respelled_goes_to_the_word_being_read():
    text = "Go now"
    tokens = [Token("Go", "ɡˈO", " "), Token("NOW!", "nˈW")]  # not found in the text as written
    assert phoneme_owners(Normalized(text, text), tokens, written_words(text))[-3:] == [1, 1, 1]


def test_chunks_inherit_owners_through_splitting_and_rejoining():
    phonemes = "wˈʌn, tˈu. θɹˈi!  fˈɔɹ"
    owners = [i if ch.isalpha() else NO_WORD for i, ch in enumerate(phonemes)]
    chunks = chunk_phonemes(phonemes, limit=8)
    rows = chunk_owners(phonemes, owners, chunks)
    assert [len(r) for r in rows] == [len(c) for c in chunks]
    flat = [(ch, o) for chunk, row in zip(chunks, rows) for ch, o in zip(chunk, row) if not ch.isspace()]
    assert flat == [(ch, o) for ch, o in zip(phonemes, owners) if not ch.isspace()]


def test_spans_count_frames_after_the_lead_pad_and_move_with_trimming():
    owners = (0, 0, NO_WORD, 1)  # "ab c" -> word 0 is "ab", word 1 is "c"
    frames = np.array([10, 2, 3, 1, 4, 5])  # pad, a, b, space, c, pad
    f, lead = FRAME_SAMPLES, AUDIO_LEAD_FRAMES
    assert chunk_spans(owners, frames, 0, 25 * f) == {
        0: ((10 - lead) * f, (15 - lead) * f),
        1: ((16 - lead) * f, (20 - lead) * f),
    }
    cut = 5 * f  # trimming removed 5 frames in front; the audio ends 12 frames later, inside "c"
    assert chunk_spans(owners, frames, cut, cut + 12 * f) == {
        0: ((5 - lead) * f, (10 - lead) * f),
        1: ((11 - lead) * f, 12 * f),
    }


def test_a_character_the_model_skipped_takes_no_time():
    frames = np.array([AUDIO_LEAD_FRAMES + 1, 2, 0, 3, 1])
    assert chunk_spans((0, 0, 0), frames, 0, 7 * FRAME_SAMPLES) == {0: (FRAME_SAMPLES, 6 * FRAME_SAMPLES)}


def test_spans_stay_inside_the_audio():
    frames = np.array([0, 3, 50, 0])  # a lead pad shorter than the audio's lead, a word past the end
    assert chunk_spans((0, 1), frames, 0, 10 * FRAME_SAMPLES) == {
        0: (0, FRAME_SAMPLES),
        1: (FRAME_SAMPLES, 10 * FRAME_SAMPLES),
    }


def test_timeline_offsets_each_chunk_and_joins_a_word_split_over_two():
    timeline = WordTimeline(("one", "two"))
    timeline.add({0: (100, 2400)}, 4800)
    timeline.add({0: (0, 1200), 1: (2400, 4800)}, 7200)
    assert timeline.samples == 12000
    assert timeline.spans() == [WordSpan("one", round(100 / 24000, 4), 0.25), WordSpan("two", 0.3, 0.4)]
