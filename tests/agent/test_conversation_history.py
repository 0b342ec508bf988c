"""What was heard, and the history that keeps exactly that (pure functions, no sockets)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from voice_agent.conversation.events import HistoryLine
from voice_agent.conversation.history import (
    INTERRUPTED_MARK,
    close_failed_turn,
    heard_text,
    record_interrupted,
    transcript,
)
from voice_agent.events import WordSpan


def spans(*texts: str) -> list[WordSpan]:
    return [WordSpan(t, i * 0.5, i * 0.5 + 0.4) for i, t in enumerate(texts)]


def test_words_started_before_played_s_are_heard_with_their_punctuation() -> None:
    answer = "Hello, world! How are you?"
    words = spans("Hello,", "world!", "How", "are", "you?")
    assert heard_text(answer, words, 0.0) == ""
    assert heard_text(answer, words, 0.01) == "Hello,"
    assert heard_text(answer, words, 0.5) == "Hello,"  # "world!" starts at 0.5: not yet
    assert heard_text(answer, words, 0.51) == "Hello, world!"
    assert heard_text(answer, words, 99) == answer


def test_markdown_stripped_for_speech_still_maps_onto_the_written_answer() -> None:
    answer = "**Bold** move: see [the docs](http://x) now."
    assert (
        heard_text(answer, spans("Bold", "move:", "see", "the", "docs"), 2.1)
        == "**Bold** move: see [the docs](http://x)"
    )


def test_in_japanese_and_chinese_the_heard_text_ends_with_the_last_heard_token() -> None:
    answer = "您好，感谢您致电我们的书店。"
    words = spans("您好，", "感谢您", "致电", "我们", "的", "书店。")
    assert heard_text(answer, words, 0.6) == "您好，感谢您"
    assert heard_text(answer, words, 99) == answer


def test_a_word_rewritten_on_the_way_to_speech_is_skipped_not_fatal() -> None:
    assert heard_text("It costs $5 today.", spans("It", "costs", "five dollars", "today."), 9) == "It costs $5 today."


@given(st.lists(st.text(alphabet="abc ,.", min_size=1, max_size=6), min_size=1, max_size=12), st.floats(0, 10))
def test_heard_text_is_always_a_prefix_of_the_answer(words: list[str], played: float) -> None:
    answer = " ".join(words)
    assert answer.startswith(heard_text(answer, spans(*words), played))


def test_history_keeps_the_heard_text_whether_or_not_the_llm_had_finished() -> None:
    finished = [{"role": "user", "content": [{"text": "q"}]}, {"role": "assistant", "content": [{"text": "A. B."}]}]
    record_interrupted(finished, "A.")
    stopped = [{"role": "user", "content": [{"text": "q"}]}]
    record_interrupted(stopped, "A.")
    for messages in (finished, stopped):
        assert messages[-1] == {"role": "assistant", "content": [{"text": "A."}, {"text": INTERRUPTED_MARK}]}
        assert transcript(messages)[-1] == HistoryLine("assistant", "A.", interrupted=True)


def test_a_failed_turn_leaves_no_unanswered_user_message() -> None:
    messages = [{"role": "user", "content": [{"text": "q"}]}]
    close_failed_turn(messages)
    assert messages[-1] == {"role": "assistant", "content": [{"text": INTERRUPTED_MARK}]}
    close_failed_turn(messages)
    assert len(messages) == 2


def test_server_word_spans_are_shifted_and_malformed_ones_skipped() -> None:
    from voice_agent.events import word_spans

    raw = [
        {"text": "Hi", "start_s": 0.0, "end_s": 0.2},
        WordSpan("there.", 0.2, 0.5),
        {"text": 3, "start_s": 0, "end_s": 1},
        {"text": "x", "start_s": True, "end_s": 1},
        "junk",
    ]
    assert word_spans(raw, 1.5) == (WordSpan("Hi", 1.5, 1.7), WordSpan("there.", 1.7, 2.0))
    assert word_spans("not a list", 0) == ()
