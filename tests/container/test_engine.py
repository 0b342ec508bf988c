"""The engine in-process: chunking never truncates, voices and blends, silence trimming, real synthesis."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from kokoro_server import assets as model_assets
from kokoro_server.audio import first_audible_sample, to_pcm16, trim_silence
from kokoro_server.engine.registry import load_backend
from kokoro_server.engine.slowed import SlowedBackend
from kokoro_server.engine.synthesizer import Synthesizer
from kokoro_server.engine.voices import MixedLanguages, UnknownVoice, VoiceBank
from kokoro_server.runtime import warm_up
from kokoro_server.text.chunks import MAX_PHONEMES, SPLIT_SENTENCE_PHONEMES, NothingToSay, chunk_phonemes
from kokoro_server.text.languages import UnknownLanguage, language_letter
from kokoro_server.text.reading import Reading


@pytest.fixture(scope="module")
def assets():
    return model_assets.resolve("onnx")


def test_one_chunk_per_sentence():
    assert chunk_phonemes("hˈɛlO. ɡʊd dˈA! hˌW ɑɹ ju?") == ["hˈɛlO.", "ɡʊd dˈA!", "hˌW ɑɹ ju?"]


def test_long_text_is_split_at_clauses_then_words_never_truncated():
    clause = "ðɪs ɪz ə vˈɛɹi lˈɔŋ klˈɔz wɪð mˈɛni wˈɜɹdz ɪn ɪt,"
    sentence = " ".join([clause] * 40)
    chunks = chunk_phonemes(sentence)
    assert len(chunks) > 1 and all(len(c) <= MAX_PHONEMES for c in chunks)
    assert " ".join(chunks).split() == sentence.split()


def test_one_enormous_word_is_cut_hard_but_kept():
    word = "a" * 1300
    chunks = chunk_phonemes(word)
    assert "".join(chunks) == word and max(map(len, chunks)) <= MAX_PHONEMES


def test_a_sentence_the_model_cannot_read_whole_is_rendered_in_bounded_units_and_one_it_can_is_left_whole():
    """Text without sentence ends (a URL, a code) holds a model worker one bounded unit at a time, so a
    newcomer waits for one such render at most (docs/decisions/167-bounded-render-units.md)."""
    clause = "ðɪs ɪz ə vˈɛɹi lˈɔŋ klˈɔz wɪð mˈɛni wˈɜɹdz ɪn ɪt,"
    run_on = " ".join([clause] * 40)
    units = chunk_phonemes(run_on)
    assert max(map(len, units)) <= SPLIT_SENTENCE_PHONEMES and " ".join(units) == run_on
    assert all(len(unit) + 1 + len(clause) > SPLIT_SENTENCE_PHONEMES for unit in units[:-1])  # packed, not tiny
    assert chunk_phonemes(" ".join([clause] * 9)) == [" ".join([clause] * 9)]  # 449 phonemes: one model call
    token = "aB1x9Z" * 500
    assert max(map(len, chunk_phonemes(token))) == SPLIT_SENTENCE_PHONEMES


def test_voice_bank_lists_every_language_and_rejects_unknown_voices(assets):
    bank = VoiceBank(assets)
    assert len(bank.names) == 54 and {"af_heart", "bm_george", "ef_dora", "jf_alpha", "zm_yunxi"} <= set(bank.names)
    assert bank.languages["hf_alpha"] == "hi" and bank.languages["pf_dora"] == "pt-br"
    with pytest.raises(MixedLanguages):
        bank.get("jf_alpha+zf_xiaobei")
    for bad in ["zz_none", "xf_none", "af_heart(0)", "af_heart(", "+", "af_heart+" * 9 + "af_bella", ""]:
        with pytest.raises(UnknownVoice):
            bank.get(bad)


def test_blend_is_the_weighted_mean(assets):
    bank = VoiceBank(assets)
    a, b = bank.get("af_heart").table, bank.get("am_michael").table
    mixed = bank.get("af_heart(3)+am_michael(1)")
    np.testing.assert_allclose(mixed.table, 0.75 * a + 0.25 * b, rtol=1e-5, atol=1e-6)
    assert (
        language_letter(None, "af_heart(3)+am_michael(1)") == "a" and language_letter(None, " bf_emma+af_heart") == "b"
    )
    assert language_letter("es", "af_heart") == "e" and language_letter("PT-BR", "af_heart") == "p"
    assert language_letter("j", "af_heart") == "j"
    with pytest.raises(UnknownLanguage, match="Kokoro speaks en-us, en-gb, es"):
        language_letter("de", "af_heart")


def test_trim_keeps_a_short_pause_and_fades_edges():
    sr = 24000
    tone = 0.5 * np.sin(np.linspace(0, 2 * np.pi * 220, sr)).astype(np.float32)
    audio = np.concatenate([np.zeros(sr // 2, np.float32), tone, np.zeros(sr, np.float32)])
    out = trim_silence(audio)
    assert len(out) < len(audio) - sr // 2
    assert first_audible_sample(out) <= int(0.03 * sr)
    assert abs(out[0]) < 1e-3 and abs(out[-1]) < 1e-3  # no click at the cut
    silence = np.zeros(sr, np.float32)
    assert trim_silence(silence) is silence  # all-silent input is not hidden


def test_pcm16_clips_instead_of_wrapping():
    pcm = np.frombuffer(to_pcm16(np.array([2.0, -2.0, 0.0], np.float32)), "<i2")
    assert pcm.tolist() == [32767, -32767, 0]


def speak(synth: Synthesizer, read, text: str) -> np.ndarray:
    """The whole text's audio in one array: its chunks, read as a request's are, rendered in order."""
    return np.concatenate([synth.render(chunk).audio for chunk in Reading(text, synth.voice(None), 1.0, read).whole()])


def test_real_synthesis_starts_speaking_at_once(synth, phonemizer):
    audio = speak(synth, phonemizer.read, "Good morning, how are you?")
    assert 0.8 < len(audio) / 24000 < 4
    assert first_audible_sample(audio) < 0.1 * 24000  # trimmed: no 0.3 s lead-in


def test_untrimmed_output_has_the_lead_in(assets, phonemizer):
    raw = Synthesizer(load_backend("onnx", assets, "cpu", 0), VoiceBank(assets), default_voice="af_heart", trim=False)
    assert first_audible_sample(speak(raw, phonemizer.read, "Good morning.")) >= 0.15 * 24000


def test_warm_up_measures_the_pace_on_the_real_weights(synth, phonemizer):
    pace = warm_up(synth, phonemizer.read, rounds=1)
    assert pace.rtf > 0 and pace.overhead_s >= 0
    with pytest.raises(ValueError, match="at least one round"):
        warm_up(synth, phonemizer.read, rounds=0)


@pytest.mark.slow
def test_a_slowed_backend_holds_each_call_and_the_warm_up_measures_it(assets, phonemizer):
    """The benchmark's slowing is a backend like any other: the synthesizer above it measures it unaware."""
    slowed = load_backend("onnx", assets, "cpu", 0, simulate_rtf=1.5)
    assert isinstance(slowed, SlowedBackend) and slowed.name == "onnx"
    style = VoiceBank(assets).get("af_heart")
    start = time.perf_counter()
    out = slowed.infer("hˈɛlO.", style.vector_for(6), 1.0)
    assert time.perf_counter() - start >= 1.5 * len(out.audio) / 24000  # held at least that long, by construction
    pace = warm_up(Synthesizer(slowed, VoiceBank(assets), default_voice="af_heart"), phonemizer.read, rounds=1)
    assert pace.rtf >= 1.5  # the trimmed audio is shorter than what the engine produced, so slower still


@pytest.mark.parametrize("rtf", [-0.5, 0.0, 10.5, math.nan])
def test_a_slowed_backend_needs_a_sensible_rtf(assets, rtf):
    with pytest.raises(ValueError, match="slowed backend needs an rtf"):
        SlowedBackend(load_backend("onnx", assets, "cpu", 0), rtf)


def test_an_unknown_engine_is_refused_by_name(assets):
    with pytest.raises(ValueError, match="unknown engine 'tpu': use 'onnx' or 'torch'"):
        load_backend("tpu", assets, "cpu", 0)


def test_nothing_to_say(synth, phonemizer):
    with pytest.raises(NothingToSay):
        Reading("... !!! ???", synth.voice(None), 1.0, phonemizer.read).whole()


def test_unknown_default_voice_fails_at_start(assets, phonemizer):
    with pytest.raises(UnknownVoice):
        Synthesizer(load_backend("onnx", assets, "cpu", 0), VoiceBank(assets), default_voice="xx_missing")


def test_onnx_on_cuda_without_its_provider_is_a_clear_error(assets, monkeypatch):
    """ONNX Runtime would quietly run on the CPU; asking for CUDA it cannot give stops the load instead. An
    onnxruntime with a CUDA provider (a GPU build) is shown as one without it, so the check runs there too."""
    import onnxruntime as ort

    providers = [p for p in ort.get_available_providers() if p != "CUDAExecutionProvider"]
    monkeypatch.setattr(ort, "get_available_providers", lambda: providers)
    with pytest.raises(RuntimeError, match="no CUDA provider .*--engine torch"):
        load_backend("onnx", assets, "cuda", 0)


@pytest.mark.parametrize(("spin", "entry"), [(True, "1"), (False, "0")])
def test_onnx_threads_spin_unless_told_to_sleep(assets, spin: bool, entry: str):
    """``--no-onnx-spin`` reaches ONNX Runtime's session: its idle threads sleep (decision 158)."""
    backend = load_backend("onnx", assets, "cpu", 0, spin=spin)
    options = backend._session.get_session_options()  # type: ignore[attr-defined]
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == entry
