"""The lower bound's search against brute force over every cut, and its LLM timeline."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kokoro_bench.errors import BenchError
from kokoro_bench.measuring.lower_bound import fit_speech_model, lower_bound, natural_cuts, word_ready_times
from speech_protocol.pace import SpeechModel


def brute_force(ready: list[float], model: SpeechModel, allowed: set[int] | None = None) -> float:
    """Every set of cut points (among ``allowed``), simulated piece by piece: the earliest zero-stall first audio."""
    n, best = len(ready), float("inf")
    points = [k for k in range(1, n) if allowed is None or k in allowed]
    for cuts in itertools.chain.from_iterable(itertools.combinations(points, k) for k in range(len(points) + 1)):
        bounds, done, first, ok = [0, *cuts, n], None, None, True
        for start, end in zip(bounds, bounds[1:]):
            done = (ready[end - 1] if done is None else max(ready[end - 1], done)) + model.synth_s(end - start)
            if first is None:
                first = done
            elif done > first + model.audio_s(start) + 1e-12:
                ok = False
                break
        if ok:
            best = min(best, first)
    return best


@given(
    gaps=st.lists(st.floats(0, 0.5), min_size=1, max_size=8),
    rtf=st.floats(0.05, 2.0),
    overhead=st.floats(0, 0.3),
)
def test_the_search_finds_what_brute_force_finds(gaps: list[float], rtf: float, overhead: float) -> None:
    ready = list(itertools.accumulate(gaps))
    model = SpeechModel(rtf=rtf, words_per_s=3.0, overhead_s=overhead)
    words = [f"w{i}" for i in range(len(ready))]
    assert lower_bound(words, ready, model).first_audio_s == pytest.approx(brute_force(ready, model), abs=1e-3)


def test_a_fast_engine_may_start_with_one_word_a_slow_one_may_not() -> None:
    words, ready = [f"w{i}" for i in range(20)], [0.0] * 20
    assert lower_bound(words, ready, SpeechModel(rtf=0.2, overhead_s=0)).first_piece == "w0"
    assert len(lower_bound(words, ready, SpeechModel(rtf=0.9, overhead_s=0.1)).first_piece.split()) > 1


def test_word_ready_times_wait_for_the_character_after_each_word() -> None:
    words, ready = word_ready_times([(0.1, "Here is"), (0.2, " a"), (0.3, " plan.")])
    assert words == ["Here", "is", "a", "plan."]
    assert ready == [0.1, 0.2, 0.3, 0.3]  # "is" is complete once the space after it arrives
    with pytest.raises(BenchError):
        word_ready_times([(0.1, "  ")])


def test_the_speech_model_is_fitted_from_the_runs_pieces() -> None:
    model = fit_speech_model([0.05 + 0.4 * a for a in (1.0, 2.0, 4.0)], [1.0, 2.0, 4.0], 3.6)
    assert model.rtf == pytest.approx(0.4) and model.overhead_s == pytest.approx(0.05)
    with pytest.raises(BenchError):
        fit_speech_model([0.4], [1.0], 3.6)


@given(
    gaps=st.lists(st.floats(0, 0.5), min_size=1, max_size=8),
    allowed=st.sets(st.integers(1, 7)),
    rtf=st.floats(0.05, 2.0),
)
def test_the_search_keeps_to_the_allowed_cuts(gaps: list[float], allowed: set[int], rtf: float) -> None:
    ready = list(itertools.accumulate(gaps))
    model = SpeechModel(rtf=rtf, words_per_s=3.0, overhead_s=0.1)
    words = [f"w{i}" for i in range(len(ready))]
    found = lower_bound(words, ready, model, allowed)
    assert found.first_audio_s == pytest.approx(brute_force(ready, model, allowed), abs=1e-3)
    assert len(found.first_piece.split()) in allowed | {len(words)}


def test_natural_cuts_fall_at_clause_ends_and_before_phrase_openers() -> None:
    words = "Yes, of course, the museum is open every day from nine - or ten. Tickets cost twelve dollars".split()
    cut_after = [words[k - 1] for k in sorted(natural_cuts(words))]
    assert cut_after == ["Yes,", "course,", "day", "nine", "-", "ten."]
