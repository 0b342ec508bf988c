"""One G2P worker process's loop (:mod:`kokoro_server.text.g2p_pool` starts and replaces them).

It has a module of its own that imports nothing heavy: a spawned process imports its target's module
before it runs the target, and until :func:`serve` ignores SIGINT a Ctrl-C to the process group (a
terminal's, at start-up) would stop it mid-import (misaki pulls in spaCy) with a traceback.

A worker loads no torch (:func:`_without_torch`).
"""

from __future__ import annotations

import signal
import sys
from multiprocessing.connection import Connection

READY = "ready"  # the worker's first message: G2P is loaded


def serve(conn: Connection) -> None:
    """Load G2P once, then read ``(text, lang)`` slices until the pipe closes or sends None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the server decides
    _without_torch()
    from kokoro_server.text.phonemes import Phonemizer, UnreadableText  # only now: see the module's docstring

    phonemizer = Phonemizer()
    try:
        conn.send(READY)
        while (request := conn.recv()) is not None:
            text, lang = request
            try:
                reply: tuple[str, object] = ("ok", phonemizer.read(text, lang))
            except UnreadableText as exc:
                reply = ("unreadable", str(exc))
            except Exception as exc:  # a fault inside misaki: this text fails, the worker goes on
                reply = ("failed", f"{type(exc).__name__}: {exc}"[:300])
            conn.send(reply)
    except (EOFError, OSError):  # the server is gone (one that ended with os._exit resets the pipe)
        return


def _without_torch() -> None:
    """Keep torch out of this process: G2P runs spaCy's small CNN tagger on numpy and never uses it.

    Where torch is installed (the GPU image, the development environment), thinc imports it if it can, and
    every spaCy pipeline imports the ``spacy_factories`` entry points of installed packages, whose only one is
    spacy-curated-transformers' (transformer pipelines, which import torch). Without both, a worker loads
    G2P in half the time and with 200 MB less memory; where torch is absent (the ONNX image) nothing changes
    (docs/decisions/141-g2p-workers-without-torch.md).
    """
    sys.modules["torch"] = None  # type: ignore[assignment]  # thinc's `import torch` then fails, as it expects
    import spacy.util

    spacy.util.registry._entry_point_factories.entry_points = False  # spaCy pinned: constraints.txt
