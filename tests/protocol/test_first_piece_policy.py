"""The adaptive first piece and the ramp: each piece's synthesis fits in the audio queued ahead of it."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from line_count import lines_executed

from speech_protocol.pace import PIECE_OVERHEAD_S, SPEECH_WORDS_PER_S, SpeechModel, word_count
from speech_protocol.pieces.cuts import natural_cut_after, weak_cut_before
from speech_protocol.pieces.first_piece import (
    ADAPTIVE_FIRST_WORDS,
    LONG_SENTENCE_WORDS,
    MAX_RAMP_WORDS,
    NEXT_PIECE_WORDS,
    SegmentPolicy,
    SegmentPolicyError,
    adaptive_policy,
    cautious,
    first_piece_words,
    ramp_words,
)
from speech_protocol.pieces.segmenter import Segmenter

ANSWER = "Well, as far as I can tell from the records, the museum opens at nine on weekdays. It closes at six."


def first_piece(policy: SegmentPolicy) -> str:
    segmenter = Segmenter(policy)
    pieces = [p for word in ANSWER.split(" ") for p in segmenter.feed(word + " ")] + segmenter.flush()
    return pieces[0]


@given(st.floats(min_value=0.001, max_value=100.0))
def test_the_first_piece_outlasts_the_next_pieces_synthesis(rtf: float) -> None:
    words = first_piece_words(rtf)
    low, high = ADAPTIVE_FIRST_WORDS
    assert low <= words <= high
    if low < words < high:  # not clamped: the inequality holds, and one word fewer breaks it
        next_ready_s = rtf * NEXT_PIECE_WORDS / SPEECH_WORDS_PER_S + PIECE_OVERHEAD_S
        assert words / SPEECH_WORDS_PER_S >= next_ready_s - 1e-9
        assert (words - 1) / SPEECH_WORDS_PER_S < next_ready_s


def test_a_slower_server_needs_a_longer_first_piece() -> None:
    sizes = [first_piece_words(rtf) for rtf in (0.03, 0.2, 0.36, 0.6, 1.0, 5.0)]
    assert sizes == sorted(sizes)
    assert sizes[0] == ADAPTIVE_FIRST_WORDS[0] and sizes[-1] == ADAPTIVE_FIRST_WORDS[1]


def test_the_policy_changes_only_the_clause_cuts_and_cuts_there() -> None:
    base = SegmentPolicy(max_chars=200)
    fast, slow = adaptive_policy(0.05, base), adaptive_policy(2.0, base)
    assert fast.max_chars == slow.max_chars == 200 and fast.first_piece_clause
    assert fast.first_piece_min_words < slow.first_piece_min_words
    assert fast.ramp_words < slow.ramp_words
    # The fast one ends at the earliest natural cut, the opener "Well," (decision 138), whose next piece
    # the speech model says is synthesized before the first piece has played. A server slower than real
    # time sustains no short piece after it, so its first piece runs on to the clause minimum.
    assert first_piece(fast) == "Well,"
    assert first_piece(slow) == "Well, as far as I can tell from the records, the museum opens at nine"


def test_a_server_without_an_rtf_keeps_the_base_policy() -> None:
    base = SegmentPolicy(first_piece_min_words=7)
    assert adaptive_policy(None, base) is base


@pytest.mark.parametrize("rtf", [0, -0.5, math.nan, math.inf, -math.inf, True, "0.3", [0.3]])
def test_a_malformed_rtf_is_refused_with_a_typed_error(rtf) -> None:
    with pytest.raises(SegmentPolicyError, match="rtf"):
        adaptive_policy(rtf)


# -- the ramp ------------------------------------------------------------------------------------------------

TYPICAL = (
    "Yes, of course, the museum is open every day, except on Mondays, from nine in the morning until six. "
    "There are a few things to keep in mind before you go. "
    "Tickets cost twelve dollars for adults, and children under six get in free."
)


def pieces_of(text: str, policy: SegmentPolicy, deltas: list[str] | None = None) -> list[str]:
    segmenter = Segmenter(policy)
    return [p for d in (deltas or [text]) for p in segmenter.feed(d)] + segmenter.flush()


def words(piece: str) -> int:
    return word_count(piece)


def test_on_this_cpu_the_first_piece_is_short_and_the_next_ones_end_at_clauses_until_the_lead_is_built() -> None:
    """The bench's typical answer at the rtf measured here (0.44): the ramp it was designed from."""
    policy = adaptive_policy(0.44)
    assert (policy.first_piece_min_words, policy.ramp_words) == (3, 17)
    assert pieces_of(TYPICAL, policy) == [
        "Yes, of course,",
        "the museum is open every day,",
        "except on Mondays,",
        "from nine in the morning until six.",  # 19 words emitted: the ramp is over
        "There are a few things to keep in mind before you go.",
        "Tickets cost twelve dollars for adults, and children under six get in free.",
    ]


def test_without_a_ramp_only_the_first_piece_ends_at_a_clause() -> None:
    assert pieces_of(TYPICAL, SegmentPolicy(first_piece_min_words=3))[:2] == [
        "Yes, of course,",
        "the museum is open every day, except on Mondays, from nine in the morning until six.",
    ]


def test_a_ramp_piece_also_needs_the_minimum_words() -> None:
    text = "Right, so, one, two, three, four words here, and then the end."
    assert pieces_of(text, SegmentPolicy(first_piece_min_words=2, ramp_words=100)) == [
        "Right, so,",
        "one, two,",
        "three, four words here,",
        "and then the end.",
    ]


@given(st.floats(min_value=0.001, max_value=0.999))
def test_once_the_ramp_is_over_the_lead_covers_a_long_sentence(rtf: float) -> None:
    bound = ramp_words(rtf)
    lead_s = (1 - rtf) * bound / SPEECH_WORDS_PER_S
    needed_s = rtf * LONG_SENTENCE_WORDS / SPEECH_WORDS_PER_S + PIECE_OVERHEAD_S
    if bound < MAX_RAMP_WORDS:  # not clamped: the lead suffices there, and one word earlier it does not
        assert lead_s >= needed_s - 1e-9
        assert (1 - rtf) * (bound - 1) / SPEECH_WORDS_PER_S < needed_s


def test_a_slower_server_ramps_longer_and_one_slower_than_real_time_never_stops() -> None:
    sizes = [ramp_words(rtf) for rtf in (0.01, 0.1, 0.3, 0.44, 0.7, 0.99, 1.0, 50.0)]
    assert sizes == sorted(sizes)
    assert sizes[-3:] == [MAX_RAMP_WORDS] * 3


@pytest.mark.parametrize("rtf", [1e-300, 5e-324, 1e308, 1.7976931348623157e308])
def test_extreme_rtfs_give_the_bounds_not_an_overflow(rtf: float) -> None:
    policy = adaptive_policy(rtf)
    assert policy.first_piece_min_words in ADAPTIVE_FIRST_WORDS
    assert policy.ramp_words in (1, MAX_RAMP_WORDS)


VOCABULARY = ["yes", "Of", "course", "museum", "e.g.", "Dr.", "3.14", "it's", "(aside", "caf\u00e9"]
MARKS = ["", "", "", ",", ",", ";", ":", " -", "\u2014", ".", "!", "?"]
ramp_prose = st.lists(st.tuples(st.sampled_from(VOCABULARY), st.sampled_from(MARKS)), min_size=1, max_size=50).map(
    lambda tokens: " ".join(w + m for w, m in tokens)
)
ramp_policies = st.builds(
    SegmentPolicy, first_piece_min_words=st.integers(1, 6), ramp_words=st.integers(0, 40), max_chars=st.just(1000)
)


@given(ramp_prose, ramp_policies, st.data())
def test_ramp_pieces_are_the_same_whatever_the_deltas(text: str, policy: SegmentPolicy, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=15)))
    deltas = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert pieces_of(text, policy, deltas) == pieces_of(text, policy)


@given(ramp_prose, ramp_policies)
def test_a_clause_ends_a_piece_only_within_the_ramp_and_after_the_minimum(text: str, policy: SegmentPolicy) -> None:
    pieces = pieces_of(text, policy)
    assert " ".join(pieces).split() == " ".join(pieces_of(text, SegmentPolicy(first_piece_clause=False))).split()
    emitted = 0
    for index, piece in enumerate(pieces[:-1]):  # the last piece may end anywhere: the answer ended
        if piece.rstrip("\u2014-").endswith(tuple(",;:\u2014-")) or piece.endswith("\u2014"):
            assert index == 0 or emitted < policy.ramp_words
            assert words(piece) >= policy.first_piece_min_words
        emitted += words(piece)


@given(ramp_prose, st.integers(1, 6))
def test_a_zero_ramp_cuts_exactly_as_before(text: str, min_words: int) -> None:
    ramped = SegmentPolicy(first_piece_min_words=min_words, ramp_words=0)
    first_only = SegmentPolicy(first_piece_min_words=min_words)
    assert pieces_of(text, ramped) == pieces_of(text, first_only)


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3", None])
def test_a_bad_ramp_is_refused_when_the_policy_is_built(bad) -> None:
    with pytest.raises(SegmentPolicyError, match="ramp_words"):
        SegmentPolicy(ramp_words=bad)


@pytest.mark.parametrize("bad", [1, 0, "yes", "", None])
def test_a_weak_cuts_setting_that_is_not_a_bool_is_refused_when_the_policy_is_built(bad) -> None:
    with pytest.raises(SegmentPolicyError, match="weak_cuts must be a bool"):
        SegmentPolicy(weak_cuts=bad)


def test_work_stays_linear_when_every_piece_may_end_at_a_clause() -> None:
    """Counted in lines of segmenter code run, not seconds: a ramp that re-counted words would be quadratic."""
    policy = SegmentPolicy(first_piece_min_words=1, ramp_words=10**9)
    small = lines_run("one, two; " * 300, policy)
    large = lines_run("one, two; " * 3000, policy)
    assert large <= 13 * small


def lines_run(text: str, policy: SegmentPolicy) -> int:
    return lines_executed(lambda: pieces_of(text, policy, [text[i : i + 3] for i in range(0, len(text), 3)]))


# -- adapting a segmenter to the server it speaks through -----------------------------------------------------


def test_a_segmenter_adapts_to_the_servers_rtf_and_keeps_its_other_settings() -> None:
    segmenter = Segmenter(SegmentPolicy(max_chars=120))
    segmenter.adapt_to(0.44)
    assert segmenter.policy == SegmentPolicy(max_chars=120, first_piece_min_words=3, ramp_words=17, rtf=0.44)
    assert segmenter.feed(TYPICAL)[:2] == ["Yes, of course,", "the museum is open every day,"]


def test_adapting_mid_piece_counts_the_words_already_written() -> None:
    segmenter = Segmenter()
    assert segmenter.feed("Yes, of course") == []  # "Yes," has too few words for the default 4
    segmenter.adapt_to(0.44)
    assert segmenter.feed(", the") == ["Yes, of course,"]


@pytest.mark.parametrize("rtf", [0, -1.0, math.nan, math.inf, True, "fast"])
def test_a_malformed_rtf_leaves_the_segmenter_as_it_was(rtf) -> None:
    segmenter = Segmenter()
    with pytest.raises(SegmentPolicyError, match="rtf"):
        segmenter.adapt_to(rtf)
    assert segmenter.policy == SegmentPolicy()


def test_the_servers_cost_per_piece_lengthens_the_first_piece_and_the_ramp() -> None:
    cheap, costly = adaptive_policy(0.44), adaptive_policy(0.44, piece_overhead_s=0.5)
    assert costly.piece_overhead_s == 0.5 and costly.speech_model().overhead_s == 0.5
    assert cheap.speech_model().overhead_s == PIECE_OVERHEAD_S  # a server that advertises none
    assert costly.first_piece_min_words > cheap.first_piece_min_words
    assert costly.ramp_words > cheap.ramp_words
    model = costly.speech_model()
    assert not model.cut_stalls(costly.first_piece_min_words, NEXT_PIECE_WORDS)
    assert model.cut_stalls(costly.first_piece_min_words - 1, NEXT_PIECE_WORDS)


def test_a_segmenter_adapts_to_the_servers_cost_per_piece() -> None:
    segmenter = Segmenter()
    segmenter.adapt_to(0.44, 0.5)
    assert segmenter.policy == adaptive_policy(0.44, piece_overhead_s=0.5)
    assert segmenter.feed(TYPICAL)[0] != "Yes, of course,"  # the next piece would not be ready in time


@pytest.mark.parametrize("overhead", [-0.01, math.nan, math.inf, 10.5, True, "0.2", [0.2]])
def test_a_malformed_piece_overhead_is_refused_with_a_typed_error(overhead) -> None:
    segmenter = Segmenter()
    with pytest.raises(SegmentPolicyError, match="piece_overhead_s must be a number from 0 to 10"):
        segmenter.adapt_to(0.44, overhead)
    assert segmenter.policy == SegmentPolicy()


def test_a_policy_without_an_rtf_has_no_speech_model() -> None:
    with pytest.raises(SegmentPolicyError, match="without the server's rtf"):
        SegmentPolicy().speech_model()


def test_a_server_without_an_rtf_leaves_the_segmenter_as_it_was() -> None:
    segmenter = Segmenter(SegmentPolicy(first_piece_min_words=7))
    segmenter.adapt_to(None)
    assert segmenter.policy == SegmentPolicy(first_piece_min_words=7)


# ---------------------------------------------------------------------------- the speech model decides


def test_a_shorter_first_piece_is_taken_when_the_model_says_the_next_one_is_ready_in_time() -> None:
    policy = replace(adaptive_policy(0.6), ramp_words=0)  # 4 words against a typical next piece
    assert policy.first_piece_min_words == 4
    short_next = "Yes, of course. The museum opens at nine in the morning."
    long_next = "Yes, of course, the museum is open every day except on Mondays and holidays."
    assert pieces_of(short_next, policy)[0] == "Yes, of course."  # a sentence end anyway
    assert pieces_of("Well, yes. The museum opens at nine.", policy)[0] == "Well,"  # "yes." is ready in time
    # With no ramp the next piece runs to its sentence end: "yes, it is." would not be ready in time.
    assert pieces_of("Well, yes, it is. The museum opens at nine.", policy)[0] == "Well, yes,"
    assert pieces_of("So, yes, it is. The museum opens at nine.", policy)[0] == "So, yes,"  # 2 letters: not alone
    # "Yes, of course," would stall: with no ramp to cut them, the 11 words to the sentence end follow it.
    # The piece runs on to the first cut whose rest of the sentence is in time: a weak cut, before a determiner.
    assert pieces_of(long_next, policy) == [
        "Yes, of course, the museum is open",
        "every day except on Mondays and holidays.",
    ]


@given(st.floats(0.05, 1.5), st.sampled_from([1, 2, 3, 7]))
def test_model_cuts_never_stall_and_never_depend_on_delta_sizes(rtf: float, size: int) -> None:
    policy = adaptive_policy(rtf)
    whole = pieces_of(TYPICAL, policy)
    assert pieces_of(TYPICAL, policy, [TYPICAL[i : i + size] for i in range(0, len(TYPICAL), size)]) == whole
    first, after = words(whole[0]), words(whole[1])
    if first < policy.first_piece_min_words:
        assert not SpeechModel(rtf).cut_stalls(first, after)


# -- a first piece of one word --------------------------------------------------------------------------------

SHORT = "Sure, the museum opens at nine in the morning on weekdays."


def pieces_at(rtf: float | None, text: str) -> list[str]:
    segmenter = Segmenter()
    if rtf is not None:
        segmenter.adapt_to(rtf)
    return [p for word in text.split(" ") for p in segmenter.feed(word + " ")] + segmenter.flush()


@pytest.mark.parametrize("opener", ["Sure,", "Yes,", "Okay,", "Absolutely;"])
def test_a_fast_server_starts_with_a_one_word_opener(opener: str) -> None:
    """An opener of three letters or more is its own first piece when the next piece is ready in time."""
    assert pieces_at(0.2, SHORT.replace("Sure,", opener))[0] == opener


@pytest.mark.parametrize("opener", ["No,", "Hi,", "Oh,", "So,"])
def test_a_two_letter_opener_is_never_a_piece_alone(opener: str) -> None:
    """Spoken alone, "No," was heard as "Now," (decision 138): a word that short keeps its clause company."""
    assert pieces_at(0.2, SHORT.replace("Sure,", opener))[0].startswith(opener + " ")


@pytest.mark.parametrize("rtf", [None, 0.6])
def test_a_one_word_first_piece_needs_a_server_fast_enough(rtf: float | None) -> None:
    """Without the server's rtf, or where the speech model says the next piece would stall, no one-word piece."""
    assert pieces_at(rtf, SHORT)[0] != "Sure,"


def test_only_the_first_piece_may_be_one_word_at_a_clause() -> None:
    pieces = pieces_at(0.2, "Sure, the museum opens at nine. Well, it closes at six, then the cafe stays open.")
    assert pieces[0] == "Sure,"
    assert "Well," not in pieces[1:]


# -- weak cuts, where natural cuts are too far apart --------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "next_word"), [("museum", "is"), ("open", "every"), ("sights", "are"), ("sold", "the")]
)
def test_a_weak_cut_falls_before_a_verb_after_its_subject_or_before_a_determiner(word: str, next_word: str) -> None:
    assert weak_cut_before(word, next_word)


@pytest.mark.parametrize(
    ("word", "next_word"),
    [("in", "the"), ("of", "the"), ("it", "is"), ("there", "are"), ("will", "have"), ("is", "a"), ("museum", "opens")],
)
def test_no_weak_cut_splits_a_word_from_the_head_it_binds(word: str, next_word: str) -> None:
    assert not weak_cut_before(word, next_word)


def test_a_clause_mark_is_a_natural_cut_not_a_weak_one() -> None:
    assert not weak_cut_before("day,", "the") and natural_cut_after("day,", "the")


def _boundaries(pieces: list[str]) -> list[tuple[str, str]]:
    return [(a.split()[-1], b.split()[0]) for a, b in zip(pieces, pieces[1:])]


@pytest.mark.parametrize("policy", [SegmentPolicy(first_piece_min_words=2, ramp_words=100), adaptive_policy(0.2)])
def test_without_the_speech_model_or_where_natural_cuts_keep_up_no_piece_ends_at_a_weak_cut(
    policy: SegmentPolicy,
) -> None:
    """No rtf: nothing to say a natural cut would stall. A fast server: natural cuts are close enough."""
    assert all(natural_cut_after(*pair) for pair in _boundaries(pieces_of(TYPICAL, policy)))


def test_where_the_natural_cuts_would_stall_a_piece_ends_at_a_weak_cut() -> None:
    """With a CPU server's cost per piece (kokoro_bench policy): at rtf 0.35, "Yes, of course," is ready in time
    only if the 6 words to "day," are not one piece, so the ramp cuts them before the determiner; at rtf 0.4,
    the first piece itself ends before the verb, a clause earlier than the natural cut "day," allows."""
    ramp = pieces_of(TYPICAL, adaptive_policy(0.35, piece_overhead_s=0.274))
    assert ramp[:3] == ["Yes, of course,", "the museum is open", "every day, except on Mondays,"]
    assert [natural_cut_after(*pair) for pair in _boundaries(ramp)[:2]] == [True, False]
    first = pieces_of(TYPICAL, adaptive_policy(0.4, piece_overhead_s=0.306))
    assert first[:2] == ["Yes, of course, the museum", "is open every day,"]
    assert not natural_cut_after(*_boundaries(first)[0])
    natural = pieces_of(TYPICAL, adaptive_policy(0.4, SegmentPolicy(weak_cuts=False), piece_overhead_s=0.306))
    assert natural[0] == "Yes, of course, the museum is open every day,"  # the control: no weak cut, a clause later


def test_the_first_piece_is_judged_on_a_server_slower_than_advertised() -> None:
    """At rtf 0.2, "Yes," is taken where its next piece is ready with room for the pace margin; a server whose
    cost per piece leaves "of course," ready only just in time, without that room, gets a longer first piece."""
    assert pieces_of(TYPICAL, adaptive_policy(0.2, piece_overhead_s=0.1))[0] == "Yes,"
    exact = SpeechModel(0.2, overhead_s=0.165)  # "of course," takes 0.276 s; "Yes," plays 0.278 s
    assert not exact.cut_stalls(1, 2) and cautious(exact).cut_stalls(1, 2)
    assert pieces_of(TYPICAL, adaptive_policy(0.2, piece_overhead_s=0.165))[0] == "Yes, of course,"
