"""Linear time without a timer: count the lines of the segmenter's code (``speech_protocol.pieces``) a call executes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

PIECES = os.path.join("speech_protocol", "pieces", "")


def lines_executed(work: Callable[[], object], package: str = PIECES) -> int:
    """Run ``work`` and return how many lines of the code under ``package`` ran (repeatable, load-independent)."""
    count = 0

    def tracer(frame, event, _arg):  # sys.settrace's signature
        nonlocal count
        if package not in frame.f_code.co_filename:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count
