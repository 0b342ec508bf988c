"""Written forms in the languages other than English: each case's normalized text, what the language's
G2P makes of it against the spoken form a person says, and, as the negative control, that the G2P alone
misreads the written form (so every case tests a rule, not something the G2P already reads right).
Hostile input keeps its bounds and its map back to the written text in every language."""

from __future__ import annotations

import re

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kokoro_server.text.normalize import normalize

# (voice letter, written, normalized, what a person says)
CASES = [
    ("e", "Cuesta 3,50 €.", "Cuesta tres euros con cincuenta.", None),
    ("e", "Cuesta $3.50.", "Cuesta tres dólares con cincuenta.", None),
    ("e", "Cuesta 20 €.", "Cuesta veinte euros.", None),
    ("e", "Son 1.000.000 €.", "Son un millón de euros.", None),
    ("e", "Es el 1.º de la lista.", "Es el primero de la lista.", None),
    ("e", "Es la 2.ª vez.", "Es la segunda vez.", None),
    ("e", "Llego a las 10:30.", "Llego a las diez y treinta.", None),
    ("e", "El 5/12/2026.", "El cinco de diciembre de dos mil veintiséis.", None),
    ("e", "Tengo 1.250 libros.", "Tengo mil doscientos cincuenta libros.", None),
    ("e", "Son 3,5 kilos.", "Son tres coma cinco kilos.", None),
    ("f", "Ça coûte 3,50 €.", "Ça coûte trois euros cinquante.", None),
    ("f", "La 2e fois.", "La deuxième fois.", None),
    ("f", "À 10h30.", "À dix heures trente.", None),
    ("f", "À 10:30.", "À dix heures trente.", None),
    ("f", "Le 5/12/2026.", "Le cinq décembre deux mille vingt-six.", None),
    ("f", "Il fait 3,5 degrés.", "Il fait trois virgule cinq degrés.", None),
    ("i", "Costa 3,50 €.", "Costa tre euro e cinquanta.", None),
    ("i", "Alle 10:30.", "Alle dieci e trenta.", None),
    ("i", "Il 5/12/2026.", "Il cinque dicembre duemilaventisei.", None),
    ("i", "Ho 1.250 libri.", "Ho milleduecentocinquanta libri.", None),
    ("i", "Sono 3,5 chili.", "Sono tre virgola cinque chili.", None),
    ("p", "Custa R$ 3,50.", "Custa três reais e cinquenta.", None),
    ("p", "Custa R$ 20.", "Custa vinte reais.", None),
    ("p", "Às 10h30.", "Às dez e trinta.", None),
    ("p", "Em 5/12/2026.", "Em cinco de dezembro de dois mil e vinte e seis.", None),
    ("p", "Tenho 1.250 livros.", "Tenho mil duzentos e cinquenta livros.", None),
    ("p", "São 3,5 quilos.", "São três vírgula cinco quilos.", None),
    ("h", "यह ₹500 का है।", "यह 500 रुपये का है।", "यह पाँच सौ रुपये का है।"),
    ("h", "मेरे पास 1,250 किताबें हैं।", "मेरे पास 1250 किताबें हैं।", "मेरे पास एक हज़ार दो सौ पचास किताबें हैं।"),
    ("h", "5/12/2026 को", "5 दिसंबर 2026 को", "पाँच दिसंबर दो हजार छब्बीस को"),
    ("j", "3,500円です。", "3500円です。", "三千五百円です。"),
    ("j", "¥3,500です。", "3500円です。", "三千五百円です。"),
    ("j", "10:30に出ます。", "10時30分に出ます。", "十時三十分に出ます。"),
    ("j", "25%です。", "25パーセントです。", "二十五パーセントです。"),
    ("j", "$3です。", "3ドルです。", "三ドルです。"),
    ("z", "一共3,500元。", "一共3500元。", "一共三千五百元。"),
    ("z", "一共¥3,500。", "一共3500元。", "一共三千五百元。"),
    ("z", "10:30见。", "10点30分见。", "十点三十分见。"),
    ("z", "一共$3.50。", "一共3.50美元。", "一共三点五零美元。"),
]
IDS = [f"{letter}:{written}" for letter, written, _, _ in CASES]
_STRESS_AND_PAUSES = re.compile(r"[ˈˌ\s,.!?;:—…'\"()\-↗↘↓→]")
# How far the phonemes of the normalized text may be from the spoken form's (espeak-ng's stress and
# liaison differ with the words around a number), and how much farther the written form alone must be.
MAX_CER = 0.1
CONTROL_MARGIN = 0.05


def _phonemes(phonemizer, text: str, letter: str) -> str:
    return _STRESS_AND_PAUSES.sub("", phonemizer.phonemize(text, letter)[0])


@pytest.mark.parametrize(("letter", "written", "normalized", "said"), CASES, ids=IDS)
def test_normalized_text(letter, written, normalized, said):
    assert normalize(written, language=letter).spoken == normalized


@pytest.mark.parametrize(("letter", "written", "normalized", "said"), CASES, ids=IDS)
def test_the_g2p_reads_the_normalized_text_as_a_person_says_it_and_misreads_the_written(
    phonemizer, letter, written, normalized, said
):
    spoken = _phonemes(phonemizer, said or normalized, letter)
    heard = jiwer.cer(spoken, _phonemes(phonemizer, normalized, letter))
    unnormalized = jiwer.cer(spoken, _phonemes(phonemizer, written, letter))
    assert heard <= MAX_CER, (heard, phonemizer.phonemize(normalized, letter)[0])
    assert unnormalized >= heard + CONTROL_MARGIN, (unnormalized, phonemizer.phonemize(written, letter)[0])


def test_english_rules_stay_english_and_off_is_the_identity_in_every_language():
    assert normalize("It costs $5M.").spoken == "It costs five million dollars."
    assert normalize("Cuesta $5M.", language="e").spoken == "Cuesta $5M."  # no English words in Spanish
    for letter in "efhipjz":
        assert normalize("Cuesta 3,50 €.", enabled=False, language=letter).spoken == "Cuesta 3,50 €."


def test_each_spoken_word_maps_to_the_written_word_it_came_from():
    n = normalize("Cuesta 3,50 € hoy.", language="e")
    assert [n.written[n.written_offset(m.start())] for m in re.finditer(r"\S+", n.spoken)] == list("C3333h")


HOSTILE = [
    "7" * 5000,
    ".".join(["123"] * 1250),
    ",".join(["123"] * 1250),
    " ".join(["123"] * 1250),
    "3," + "5" * 5000,
    "$1" * 2500,
    "€" * 5000,
    "1:" * 2500,
    "1/" * 2500,
    "1º" * 2500,
    "٣" * 5000,
    "१,२३,४५६ और ३.५",
]


@pytest.mark.parametrize("letter", "efhipjz")
@pytest.mark.parametrize("text", HOSTILE, ids=[t[:12] for t in HOSTILE])
def test_hostile_input_keeps_its_map_in_every_language(letter, text):
    n = normalize(text, language=letter)
    for s_start, s_end, _w_start, _w_end in n.rewrites:
        assert n.spoken[s_start:s_end].strip(), "a rewritten region is never spoken as nothing"
    assert n.written_offset(len(n.spoken)) == len(text)


_PIECES = [written for _, written, _, _ in CASES] + ["R$", "10h", "2e", "1.000,5", "3,", ",5", "%"]


@given(st.sampled_from("efhipjz"), st.lists(st.sampled_from(_PIECES) | st.text(max_size=8), max_size=8))
def test_map_invariants_hold_for_any_mix_in_every_language(letter, pieces):
    text = " ".join(pieces)
    n = normalize(text, language=letter)
    offsets = [n.written_offset(i) for i in range(len(n.spoken) + 1)]
    assert offsets == sorted(offsets) and offsets[-1] == len(text)
