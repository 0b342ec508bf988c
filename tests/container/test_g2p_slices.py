"""Reading a text slice by slice gives what reading it whole gives: the same chunks, phonemes and word
owners, so what is heard does not change (docs/decisions/130-fair-g2p-slices.md); and the slices are
bounded and lose nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kokoro_bench.texts import LONG
from kokoro_server.text.chunks import chunks_of
from kokoro_server.text.normalize import normalize
from kokoro_server.text.phonemes import Phonemizer, bound_tokens
from kokoro_server.text.reading import Reading
from kokoro_server.text.slices import SLICE_CHARS, g2p_slices

hostile_or_prose = st.lists(
    st.sampled_from([*"aBZ7/-_&.#:?=,;!é\u0301日 \n", "the ", "Dr. ", "read. ", "$3.50 "]), max_size=800
).map("".join)
PROSE = (
    "The river walk takes about forty minutes at an easy pace, past the old mills. Dr. Smith lives at "
    "221B Baker St. and I read that he will read it to you. "
)
TEXTS = [
    "Hello.",
    PROSE * 8,
    "It is $3.50 until 10:45 pm on 2026-11-30. Call 555-1234! Really? Yes; maybe, or not, who knows. " * 6,
    # One sentence over a slice long: cut at a comma.
    "When the train finally pulled into the station after a delay of nearly two hours, the passengers, who "
    "had been waiting on the cold platform, rushed toward the doors, carrying suitcases, umbrellas and bags, "
    "while the conductor, a tall man with a grey beard, shouted instructions that nobody could hear over "
    "the noise of the engine and the rain that drummed on the roof above them all.",
    "Visit https://example.com/docs/start. Then read the guide at www.example.org, and write to me. " * 5,
    LONG,  # paragraphs and a markdown list: line breaks, where misaki's whole reading joins the lines
]


@given(hostile_or_prose)
def test_slices_are_bounded_and_put_back_together_are_the_bounded_text(text: str) -> None:
    slices = g2p_slices(text)
    assert "".join(s.text + s.separator for s in slices) == bound_tokens(text).strip()
    assert all(0 < len(s.text) <= SLICE_CHARS for s in slices)


@given(hostile_or_prose)
def test_bounding_twice_is_bounding_once(text: str) -> None:
    assert bound_tokens(bound_tokens(text)) == bound_tokens(text)  # a slice is bounded again in its worker


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("voice", ["af_heart", "bf_emma"])
def test_a_text_read_in_slices_gives_the_chunks_of_the_whole_text(
    phonemizer: Phonemizer, text: str, voice: str
) -> None:
    reading = Reading(text, voice, 1.0, phonemizer.read)
    steps = 1
    while (chunks := reading.step()) is None:
        steps += 1
    assert (steps > 1) == (len(text) > SLICE_CHARS)  # one step per slice
    spoken = normalize(text)
    whole = chunks_of(spoken, voice, 1.0, *phonemizer.phonemize(spoken.spoken, voice[0]))  # misaki, in one call
    assert [(c.phonemes, c.owners, c.words) for c in chunks] == [(c.phonemes, c.owners, c.words) for c in whole]
