"""Cutting an LLM's streamed answer into speakable pieces, each sent the moment its end is certain.

Part of the shared package so that any client of the speech session (the agent, the LiveKit and pipecat
plugins in ``plugins/``, the benchmark) cuts text the same way without installing the agent
(docs/decisions/148-pieces-in-the-shared-package.md). Standard library and :mod:`speech_protocol.pace` only:

* :mod:`speech_protocol.pieces.segmenter`: the incremental driver (``Segmenter``: deltas in, pieces out);
* :mod:`speech_protocol.pieces.cuts`: where a text may be cut, and of what kind each cut is;
* :mod:`speech_protocol.pieces.first_piece`: which cut to take (the policy, sized from the server's pace);
* :mod:`speech_protocol.pieces.speakable`: markdown made speakable, one piece at a time.

Nothing is imported here (docs/decisions/119-public-names.md).
"""

__all__ = ["cuts", "first_piece", "segmenter", "speakable"]
