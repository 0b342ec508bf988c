"""Kokoro's nine languages through the real server, heard by a multilingual recognizer (Whisper base).

Each language speaks eight sentences written for the test (kokoro_bench/data/language_sentences.json,
which ``kokoro_bench languages`` times G2P on) in its own voice;
what Whisper base hears is scored against them as sounds (multilingual_speech.py: words, Japanese kana,
Mandarin pinyin). The negative control is the same text in an English voice, which reads it with English
G2P (for English, only the first half of its audio): it must be heard far worse, or the check could not
fail. English is heard by the same recognizer, so its figure stands beside the others. And every installed voice must be heard
speaking its own language (Whisper's language identification), and hostile text keeps its bounds in
every language.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets
from multilingual_speech import error_rate, heard_language, transcribe
from session_client import ended, pcm_bytes, read_until, ws_url

from kokoro_bench.studies.languages import SENTENCES as LANGUAGE_SENTENCES
from kokoro_server.refusals import Refusal
from kokoro_server.text.chunks import MAX_PHONEMES
from kokoro_server.text.phonemes import LONG_WORD_CHARS
from kokoro_server.text.reading import Reading
from kokoro_server.text.slices import SLICE_CHARS
from speech_protocol.server_events import Audio, Error, Ready, StreamDecoder, Words

SENTENCES = json.loads(LANGUAGE_SENTENCES.read_text())
RATE = 24_000
# The voice each language's sentences are read in, and the server's language code as Whisper names it.
VOICE = {
    "en": "af_heart",
    "es": "ef_dora",
    "fr": "ff_siwis",
    "it": "if_sara",
    "pt": "pf_dora",
    "hi": "hf_alpha",
    "ja": "jf_alpha",
    "zh": "zf_xiaobei",
}
WHISPER_CODE = {"en-us": "en", "en-gb": "en", "fr-fr": "fr", "pt-br": "pt"}
# The error rate each language must stay under on Whisper base, a bound just above what it measured here
# (decision 153). The goals are WER 0.05 for the European languages and CER 0.10 for Japanese and
# Mandarin; Whisper base hears French (0.088) and Portuguese (0.057) just short of them, on phonemes that are
# Kokoro's own pipeline's (test_g2p_reads_as_kokoros_own_pipeline). Hindi it hears half in Urdu script
# (0.80 here), so Hindi is judged by the language heard instead, and by the phonemes.
MAX_ERROR = {"en": 0.05, "es": 0.05, "fr": 0.15, "it": 0.05, "pt": 0.10, "ja": 0.10, "zh": 0.10}
CONTROL_MARGIN = 0.2  # the English voice's reading must be heard this much worse, at least
# The control reads the first four sentences, but of Japanese only the first: English G2P spells kana and
# kanji one by one, and four sentences were 72 s of audio (for 26 s of Japanese), the test's costliest
# recognition by far; one is still heard far worse (CER 1.7 against 0.04). One sentence is not control
# enough elsewhere: Whisper told "es" hears the English voice's first Spanish sentence perfectly, and the
# first Chinese sentence has nothing English G2P can speak.
CONTROL_SENTENCES = {"ja": 1}


def speak(url: str, text: str, voice: str) -> bytes:
    response = httpx.post(f"{url}/invocations", json={"text": text, "voice": voice, "format": "pcm"}, timeout=300)
    assert response.status_code == 200, (voice, response.text[:300])
    return response.content


@pytest.mark.parametrize("language", list(VOICE))
def test_each_language_is_heard_as_written(model_server_url: str, language: str) -> None:
    sentences = SENTENCES[language]
    audio = [speak(model_server_url, " ".join(half), VOICE[language]) for half in (sentences[:4], sentences[4:])]
    if language not in MAX_ERROR:
        heard_as = [heard_language(pcm, RATE) for pcm in audio]
        print(f"{language}: heard as {heard_as}")
        assert all(code == language for code, _p in heard_as), heard_as
        return
    heard = [transcribe(pcm, RATE, language) for pcm in audio]
    rate = error_rate(" ".join(sentences), " ".join(heard), language)
    control_text = " ".join(sentences[: CONTROL_SENTENCES.get(language, 4)])
    if language == "en":  # English G2P is the control of the others; here, the first half of the audio
        control_audio = audio[0][: len(audio[0]) // 4 * 2]
    else:
        control_audio = speak(model_server_url, control_text, "af_heart")
    control = error_rate(control_text, transcribe(control_audio, RATE, language), language)
    print(f"{language}: error rate {rate:.3f} ({VOICE[language]}), control {control:.3f}; heard {heard}")
    assert rate <= MAX_ERROR[language], (language, rate, heard)
    assert control >= rate + CONTROL_MARGIN, ("the control passed too", language, control, rate)


@pytest.mark.parametrize("language", [code for code in VOICE if code != "en"])
def test_g2p_reads_as_kokoros_own_pipeline(phonemizer, language: str) -> None:
    """Each sentence's phonemes are those of Kokoro's own pipeline (``KPipeline`` without its model), so the
    model hears what Kokoro's authors feed it; the one difference is Hindi's sentence end, which espeak-ng
    drops and the server reads as a full stop (a pause, and a chunk per sentence)."""
    from kokoro import KPipeline

    voice = VOICE[language]
    kokoro = KPipeline(lang_code=voice[0], model=False)
    for sentence in SENTENCES[language]:
        theirs = " ".join(result.phonemes for result in kokoro(sentence))
        if language == "hi" and sentence.endswith("।"):
            theirs += "."
        ours = " ".join(chunk.phonemes for chunk in Reading(sentence, voice, 1.0, phonemizer.read).whole())
        assert ours.split() == theirs.split(), (sentence, ours, theirs)


def test_every_voice_speaks_its_language(model_server_url: str) -> None:
    listing = httpx.get(f"{model_server_url}/v1/audio/voices", timeout=30).json()
    languages = listing["languages"]
    assert len(languages) == 54 and set(languages) <= set(listing["voices"])
    wrong = {}
    for voice, code in sorted(languages.items()):
        expected = WHISPER_CODE.get(code, code)
        line = SENTENCES[expected][0]
        heard, probability = heard_language(speak(model_server_url, line, voice), RATE)
        if heard != expected:
            wrong[voice] = (expected, heard, round(probability, 2))
    assert not wrong, wrong


def test_a_blend_mixes_voices_of_one_language_only(model_server_url: str) -> None:
    mixed = httpx.post(
        f"{model_server_url}/invocations", json={"text": "Hola.", "voice": "ef_dora+af_heart"}, timeout=60
    )
    assert mixed.status_code == 400 and mixed.json()["error"]["code"] == "mixed_languages", mixed.text
    assert "Spanish" in mixed.json()["error"]["message"] and "American English" in mixed.json()["error"]["message"]
    for same in ("ef_dora(2)+em_alex(1)", "af_heart+bf_emma"):  # one language; American and British English blend
        assert (
            httpx.post(
                f"{model_server_url}/invocations", json={"text": "Hola.", "voice": same}, timeout=120
            ).status_code
            == 200
        )


HOSTILE = {
    "url": "https://example.com/" + "a/" * 2000,
    "code": "def f(x):\n    return [y**2 for y in x if y % 3 == 0]\n" * 60,
    "digits": "9" * 3000,
    "ideographs": "我" * 4000,
    "kana": "あ" * 4000,
    "devanagari": "नमस्ते" * 600,
}


@pytest.mark.parametrize("voice", ["ef_dora", "ff_siwis", "hf_alpha", "if_sara", "pf_dora", "jf_alpha", "zf_xiaobei"])
def test_hostile_text_in_every_language_is_read_in_bounded_slices(phonemizer, voice: str) -> None:
    """The bounds that keep G2P linear hold in every language: each slice G2P reads is short, and a text
    either becomes chunks or is refused with a typed refusal (never another exception)."""
    read: list[str] = []

    def reading(piece: str, lang: str) -> list:
        read.append(piece)
        return phonemizer.read(piece, lang)

    for name, text in HOSTILE.items():
        read.clear()
        try:
            chunks = Reading(text, voice, 1.0, reading).whole()
            assert chunks and all(len(c.phonemes) <= MAX_PHONEMES for c in chunks), (voice, name)
        except Refusal:
            pass
        assert read and max(map(len, read)) <= SLICE_CHARS + LONG_WORD_CHARS, (voice, name, max(map(len, read)))


def test_a_language_field_reads_the_text_in_another_language(model_server_url: str) -> None:
    """``language`` overrides the voice's own on /invocations, the OpenAI route and the session; an unknown
    one is a typed refusal, a malformed one a protocol error, on each."""
    line = SENTENCES["es"][0]
    spanish = httpx.post(
        f"{model_server_url}/invocations",
        json={"text": line, "voice": "af_heart", "language": "es", "format": "pcm"},
        timeout=300,
    )
    assert spanish.status_code == 200
    assert heard_language(spanish.content, RATE)[0] == "es"
    assert error_rate(line, transcribe(spanish.content, RATE, "es"), "es") <= 0.2
    for body, code in (
        ({"language": "de"}, "unknown_language"),
        ({"language": 5}, "bad_language"),
        ({"language": ""}, "bad_language"),
    ):
        refused = httpx.post(f"{model_server_url}/invocations", json={"text": line, **body}, timeout=60)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == code, refused.text
    assert (
        "es, fr-fr"
        in httpx.post(f"{model_server_url}/invocations", json={"text": line, "language": "de"}, timeout=60).text
    )
    openai = httpx.post(
        f"{model_server_url}/v1/audio/speech", json={"input": line, "voice": "af_heart", "lang_code": "xx"}, timeout=60
    )
    assert openai.status_code == 400 and openai.json()["error"]["code"] == "unknown_language", openai.text
    bad = httpx.post(f"{model_server_url}/v1/audio/speech", json={"input": line, "lang_code": 3}, timeout=60).json()[
        "error"
    ]
    assert (bad["code"], bad["param"]) == ("bad_language", "lang_code"), bad
    ok = httpx.post(
        f"{model_server_url}/v1/audio/speech",
        json={"input": line, "voice": "af_heart", "language": "e", "response_format": "pcm"},
        timeout=300,
    )
    assert ok.status_code == 200 and heard_language(ok.content, RATE)[0] == "es"
    asyncio.run(_session_language(model_server_url))


async def _session_language(url: str) -> None:
    decoder = StreamDecoder()
    async with websockets.connect(ws_url(url)) as ws:
        ready = await read_until(ws, decoder, lambda events: any(isinstance(e, Ready) for e in events), timeout=120)
        assert ready[0].voices == 54 and ready[0].languages["zf_xiaobei"] == "zh" and len(ready[0].languages) == 54
        await ws.send(json.dumps({"type": "synthesize", "id": "x", "text": "Hola.", "language": "xx"}))
        await ws.send(json.dumps({"type": "synthesize", "id": "y", "text": "Hola.", "language": "es"}))
        events = await read_until(ws, decoder, ended("y"), timeout=300)
    errors = [(e.code, e.id) for e in events if isinstance(e, Error)]
    assert errors == [("unknown_language", "x")] and pcm_bytes(events, "y") > 0, errors


@pytest.mark.parametrize(
    ("voice", "text", "words"),
    [
        ("zf_xiaobei", "您好，感谢您致电我们的书店。", ["您好，", "感谢您", "致电", "我们", "的", "书店。"]),
        ("jf_alpha", "窓際のお席をご用意できます。", ["窓際", "の", "お", "席", "を", "ご", "用意", "できます。"]),
    ],
)
def test_japanese_and_chinese_words_are_the_g2p_s_own_tokens(phonemizer, voice: str, text: str, words) -> None:
    """Written without spaces, a sentence is timed word by word as its G2P segments it, not as one word;
    the phonemes stay the G2P's own (test_g2p_reads_as_kokoros_own_pipeline)."""
    chunks = Reading(text, voice, 1.0, phonemizer.read).whole()
    assert list(chunks[0].words) == words
    owned = [o for chunk in chunks for o in chunk.owners if o >= 0]
    assert sorted(set(owned)) == list(range(len(words))) and owned == sorted(owned), "each word, in order"


def test_every_japanese_and_chinese_test_sentence_is_read_as_tokens(phonemizer) -> None:
    for language in ("ja", "zh"):
        for sentence in SENTENCES[language]:
            chunks = Reading(sentence, VOICE[language], 1.0, phonemizer.read).whole()
            assert len(chunks[0].words) >= 4, (sentence, chunks[0].words)
            assert "".join(chunks[0].words) == sentence


def test_japanese_and_chinese_word_timing_cuts_the_audio_where_a_word_starts(model_server_url: str) -> None:
    """The session's words event for a Chinese and a Japanese sentence: one span per token, in order, and
    the audio cut at the middle word's start is heard as the words before it (Whisper base)."""
    asyncio.run(_word_cut(model_server_url))


async def _word_cut(url: str) -> None:
    cases = {"zh": SENTENCES["zh"][0] + SENTENCES["zh"][1], "ja": SENTENCES["ja"][1] + SENTENCES["ja"][4]}
    decoder = StreamDecoder()
    async with websockets.connect(ws_url(url)) as ws:
        await read_until(ws, decoder, lambda events: any(isinstance(e, Ready) for e in events), timeout=120)
        for language, text in cases.items():
            await ws.send(json.dumps({"type": "synthesize", "id": language, "text": text, "voice": VOICE[language]}))
            events = await read_until(ws, decoder, ended(language), timeout=300)
            spans = [w for e in events if isinstance(e, Words) and e.id == language for w in e.words]
            pcm = b"".join(e.pcm for e in events if isinstance(e, Audio) and e.id == language)
            assert "".join(w.text for w in spans) == text and len(spans) >= 8, spans
            starts = [w.start_s for w in spans]
            assert starts == sorted(starts), spans
            middle = len(spans) // 2
            head = pcm[: int(spans[middle].start_s * RATE) * 2]
            said = "".join(w.text for w in spans[:middle])
            heard = transcribe(head, RATE, language)
            rate, whole = error_rate(said, heard, language), error_rate(text, heard, language)
            print(
                f"{language}: audio before word {middle} heard as {heard!r}: error {rate:.3f} vs the whole {whole:.3f}"
            )
            assert rate <= 0.25 and rate + 0.2 <= whole, (language, said, heard, rate, whole)
