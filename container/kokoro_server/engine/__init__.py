"""The synthesis engine: a text's chunks (:mod:`kokoro_server.text`) to 24 kHz audio through one of two
interchangeable backends.

``onnx`` (onnxruntime, the CPU default) and ``torch`` (kokoro's KModel, CUDA in the GPU image) implement
:class:`~kokoro_server.engine.backend.Backend`; each imports its heavy library in its own module only, and
:mod:`~kokoro_server.engine.registry` picks one by name (wrapped in :mod:`~kokoro_server.engine.slowed` when
a benchmark slows the server on purpose).
"""
