"""A text to the chunks the model speaks; nothing here knows the model.

* :mod:`~kokoro_server.text.reading`: the plan of a text, written once (normalization, G2P one bounded slice per
  step, the chunks);
* :mod:`~kokoro_server.text.normalize`: written text to spoken text ("$3.50" as words), with a map back;
* :mod:`~kokoro_server.text.languages`: Kokoro's nine languages and the G2P that reads each;
* :mod:`~kokoro_server.text.phonemes`, :mod:`~kokoro_server.text.slices`: misaki's G2P with long tokens bounded,
  and a long text cut into slices whose readings join into the whole's;
* :mod:`~kokoro_server.text.g2p_pool`, :mod:`~kokoro_server.text.g2p_worker`: G2P on worker processes;
* :mod:`~kokoro_server.text.chunks`, :mod:`~kokoro_server.text.owners`: phonemes cut into model-sized chunks,
  each phoneme tied to its written word.

The chunks go to :mod:`kokoro_server.engine`, which turns them into audio and which this package never imports:
the data walks one way, text to chunks to audio to the wire.
"""

__all__ = ["chunks", "g2p_pool", "g2p_worker", "languages", "normalize", "owners", "phonemes", "reading", "slices"]
