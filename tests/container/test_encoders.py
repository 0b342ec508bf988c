"""The OpenAI route's encoders on their own: every format gives bytes at the first piece (nothing is held
for a header rewritten at the end), and what they write decodes back to the audio's length."""

from __future__ import annotations

import numpy as np
import pytest
from audio_decode import RATE, decode

from kokoro_server.encoders import FORMATS, open_encoder

# Encoder priming that decoders ignoring it keep (mp3 1,344 and aac 1,536 samples, decision 105): under 0.1 s.
PRIMING_S = 0.1


def tone(seconds: float, hz: float = 220.0) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


@pytest.mark.parametrize("fmt", FORMATS)
def test_first_piece_leaves_at_once_and_the_stream_decodes(fmt):
    encoder = open_encoder(fmt)
    first = encoder.encode(tone(1.0))
    rest = encoder.encode(tone(1.5, 330.0)) + encoder.finish()
    encoder.close()
    assert len(first) > 1000, "the first piece's bytes were held back"
    decoded_s = len(decode(first + rest, fmt)) / 2 / RATE
    assert 2.5 <= decoded_s <= 2.5 + PRIMING_S


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_abandoned_encoder_closes_cleanly(fmt):
    """A client that hangs up mid-answer: the encoder is closed without finish, then closed again."""
    encoder = open_encoder(fmt)
    encoder.encode(tone(0.5))
    encoder.close()
    encoder.close()


def test_samples_beyond_full_scale_are_clipped_not_wrapped():
    encoder = open_encoder("flac")
    data = encoder.encode(np.full(RATE, 1.7, dtype=np.float32)) + encoder.finish()
    pcm = np.frombuffer(decode(data, "flac"), dtype="<i2")
    assert pcm.min() > 30000
